package validate

import (
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/stellar/go-stellar-sdk/strkey"

	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/internal/redact/lazyre"
)

// shape is one of docs/tools.md "Shared argument shapes": a validator tag whose check, advertised
// schema and issue text are defined together, so the three cannot drift apart.
type shape struct {
	tag      string
	check    func(string) bool
	schema   ShapeSchema
	message  string // phrase after the path
	expected string
}

// ShapeSchema is what the advertised inputSchema says of a shared shape: a string of
// MinLength to MaxLength characters matching Pattern, with Format when one applies. A shape
// whose Number is set also accepts a JSON number within those bounds, read exactly from its
// literal (a USDC amount, amountNumber). The tool definitions are generated from it at build
// time (internal/gen/schemagen).
type ShapeSchema struct {
	Pattern              string
	MinLength, MaxLength uint64
	Format               string
	Number               *NumberBounds
}

// NumberBounds is what the advertised inputSchema says of a shape's JSON number form:
// minimum or exclusiveMinimum, and maximum, as decimal literals. The number form's at most 7
// decimal places is not among them: JSON Schema's multipleOf 0.0000001 is evaluated in
// floating point by common validators, which would refuse amounts such as 0.3 that are
// accepted, so the argument's description says it instead.
type NumberBounds struct {
	Minimum, ExclusiveMinimum, Maximum string
}

// Shape returns the advertised schema of the shared shape tag (a validate rule name).
func Shape(tag string) (ShapeSchema, bool) {
	sh, ok := shapeByTag[tag]
	return sh.schema, ok
}

// Conforms reports whether s, outside a request model, has the shared shape tag, with the phrase
// of an issue about it ("must be ..."). An unknown tag conforms to nothing.
func Conforms(tag, s string) (ok bool, message string) {
	sh, known := shapeByTag[tag]
	if !known {
		return false, "is invalid (" + tag + ")"
	}
	return sh.check(s), sh.message
}

var (
	// A resource id and a profile name are characters of A-Z a-z 0-9 . _ - with at least one
	// letter or digit: "." and ".." are path components, not names (a resource id goes into
	// the API's paths, /resources/{id}/meta, and a profile name into the credential store's).
	nameRe = lazyre.New(`^[A-Za-z0-9._-]*[A-Za-z0-9][A-Za-z0-9._-]*$`)
	// USDC amounts are bounded by the vault-registry contract's maximum price, 10^18 units of
	// 7 decimals = 100000000000 USDC, so an amount that passes here always fits the contract's
	// i128 and its own limit, and the API never sees a number the chain would refuse. The
	// bound is in the pattern itself (at most 11 significant integer digits, or exactly
	// 100000000000 with a zero fraction), so the advertised schema carries it too.
	usdcRe       = lazyre.New(`^0*(?:\d{1,11}(?:\.\d{1,7})?|100000000000(?:\.0{1,7})?)$`)
	positiveUSDC = lazyre.New(`^0*(?:[1-9]\d{0,10}(?:\.\d{1,7})?|100000000000(?:\.0{1,7})?|0\.(?:[1-9]\d{0,6}|0[1-9]\d{0,5}|00[1-9]\d{0,4}|000[1-9]\d{0,3}|0000[1-9]\d{0,2}|00000[1-9]\d?|000000[1-9]))$`)
	hashRe       = lazyre.New(`^[0-9a-f]{64}$`)
	tagRe        = lazyre.New(`^[a-z0-9_-]{1,32}$`)
	idemKeyRe    = lazyre.New(`^[A-Za-z0-9_-]+$`)
	metaPrefixes = []string{"ipfs://", "ar://", "https://", "http://", "sha256:", "sha-256:", "0x"}
)

func nameShape(tag string, max int, expected string) shape {
	return shape{
		tag:      tag,
		check:    func(s string) bool { return len(s) >= 1 && len(s) <= max && nameRe.MatchString(s) },
		schema:   ShapeSchema{Pattern: nameRe.String(), MinLength: 1, MaxLength: uint64(max)},
		message:  "must be 1-" + strconv.Itoa(max) + " characters of A-Z a-z 0-9 . _ - with at least one letter or digit",
		expected: expected,
	}
}

var shapes = []shape{
	nameShape("resourceid", 128, "resource id"),
	nameShape("profile", 64, "profile name"),
	{
		// An amount is a string or a number (amountNumber reads a number's literal into the
		// string this check sees), so the schema carries both forms.
		tag:      "usdc",
		check:    func(s string) bool { return len(s) <= 32 && usdcRe.MatchString(s) },
		schema:   ShapeSchema{Pattern: usdcRe.String(), MinLength: 1, MaxLength: 32, Number: &NumberBounds{Minimum: "0", Maximum: errmap.MaxPriceUSDC}},
		message:  `must be a decimal USDC amount of at most 100000000000 with at most 7 decimal places, as a string or a number, like "1.5" or 1.5`,
		expected: "USDC amount",
	},
	{
		tag:      "usdcpos",
		check:    func(s string) bool { return len(s) <= 32 && positiveUSDC.MatchString(s) },
		schema:   ShapeSchema{Pattern: positiveUSDC.String(), MinLength: 1, MaxLength: 32, Number: &NumberBounds{ExclusiveMinimum: "0", Maximum: errmap.MaxPriceUSDC}},
		message:  `must be a USDC amount greater than 0 and at most 100000000000 with at most 7 decimal places, as a string or a number, like "1.5" or 1.5`,
		expected: "positive USDC amount",
	},
	{
		tag:      "gaccount",
		check:    func(s string) bool { return strkey.IsValidEd25519PublicKey(s) },
		schema:   ShapeSchema{Pattern: `^G[A-Z2-7]{55}$`, MinLength: 56, MaxLength: 56},
		message:  "must be a Stellar account id (G..., 56 characters, valid checksum)",
		expected: "Stellar account",
	},
	{
		// Checked after normalisation, so the advertised pattern allows the prefix and upper case.
		tag:      "txhash",
		check:    hashRe.MatchString,
		schema:   ShapeSchema{Pattern: `^(sha256:)?[0-9a-fA-F]{64}$`, MinLength: 64, MaxLength: 71},
		message:  "must be a transaction hash of 64 hex characters",
		expected: "transaction hash",
	},
	{
		tag: "metaptr",
		check: func(s string) bool {
			return len(s) <= 512 && slices.ContainsFunc(metaPrefixes, func(p string) bool { return len(s) > len(p) && strings.HasPrefix(s, p) })
		},
		schema:   ShapeSchema{Pattern: `^(ipfs://|ar://|https://|http://|sha256:|sha-256:|0x).+`, MinLength: 1, MaxLength: 512},
		message:  "must be a metadata pointer starting with ipfs://, ar://, https://, http://, sha256:, sha-256: or 0x (at most 512 characters)",
		expected: "metadata pointer",
	},
	{
		// Tags are lower-cased before the check, so the advertised pattern is case-insensitive.
		tag:      "tag",
		check:    tagRe.MatchString,
		schema:   ShapeSchema{Pattern: `^[A-Za-z0-9_-]+$`, MinLength: 1, MaxLength: 32},
		message:  "must be 1-32 characters of a-z 0-9 _ -",
		expected: "tag",
	},
	{
		tag: "httpurl",
		check: func(s string) bool {
			return len(s) <= 2048 && (strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://")) && len(s) > len("https://")
		},
		schema:   ShapeSchema{Pattern: `^https?://.+`, MinLength: 1, MaxLength: 2048, Format: "uri"},
		message:  "must be an http:// or https:// URL of at most 2048 characters",
		expected: "http(s) URL",
	},
	{
		tag:      "idemkey",
		check:    func(s string) bool { return len(s) >= 8 && len(s) <= 64 && idemKeyRe.MatchString(s) },
		schema:   ShapeSchema{Pattern: `^[A-Za-z0-9_-]+$`, MinLength: 8, MaxLength: 64},
		message:  "must be 8-64 characters of A-Z a-z 0-9 _ -",
		expected: "idempotency key",
	},
}

var shapeByTag = func() map[string]shape {
	m := make(map[string]shape, len(shapes))
	for _, s := range shapes {
		m[s.tag] = s
	}
	return m
}()

// normalise applies the rewrites the shared shapes promise (docs/tools.md) to hashes and tags.
func normalise(f *field, v reflect.Value) {
	switch {
	case hasRule(f.Rules, "txhash") && v.Kind() == reflect.String:
		s := strings.TrimPrefix(strings.ToLower(v.String()), "sha256:")
		v.SetString(s)
	case hasRule(f.Dive, "tag") && v.Kind() == reflect.Slice:
		seen := map[string]bool{}
		out := reflect.MakeSlice(v.Type(), 0, v.Len())
		for i := 0; i < v.Len(); i++ {
			s := strings.ToLower(v.Index(i).String())
			if seen[s] {
				continue
			}
			seen[s] = true
			out = reflect.Append(out, reflect.ValueOf(s))
		}
		v.Set(out)
	}
}

// OnchainID reports an id the vault-registry contract can hold: 1-24 lower-case letters and
// digits (it answers #11 otherwise). A shape of the arguments, so the request models check it
// without asking the registry client, which reuses it.
func OnchainID(id string) bool { return onchainIDRe.MatchString(id) }

var onchainIDRe = lazyre.New(`^[a-z0-9]{1,24}$`)
