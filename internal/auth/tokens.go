package auth

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	"github.com/mindvault/mcp-endpoint/internal/credentials"
)

// Token is one accepted bearer token: the SHA-256 of the token (never the token itself) and
// the profiles it may use.
type Token struct {
	Digest   [32]byte
	Profiles []string // profile names; "*" alone means every profile
}

// AllProfiles is the profile list entry that grants every profile.
const AllProfiles = "*"

// Digest is the SHA-256 of a bearer token, the form in which tokens are configured.
func Digest(token string) [32]byte { return sha256.Sum256([]byte(token)) }

// ParseTokens reads the MINDVAULT_ACCESS_TOKENS format (docs/operations.md "Inbound auth"), also
// the token secret's value. Errors name the entry by its 1-based index and never repeat it, since
// a digest pasted in the wrong field could be a token.
func ParseTokens(s string) ([]Token, error) {
	var out []Token
	seen := map[[32]byte]int{}
	index := 0
	for _, line := range strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "#") {
			continue
		}
		for _, entry := range strings.Split(line, ",") {
			entry = strings.TrimSpace(entry)
			if entry == "" {
				continue
			}
			index++
			tok, err := parseEntry(entry)
			if err != nil {
				return nil, fmt.Errorf("access token entry %d: %s", index, err)
			}
			if first, dup := seen[tok.Digest]; dup {
				return nil, fmt.Errorf("access token entry %d: repeats the digest of entry %d", index, first)
			}
			seen[tok.Digest] = index
			out = append(out, tok)
		}
	}
	return out, nil
}

func parseEntry(entry string) (Token, error) {
	digest, profiles, ok := strings.Cut(entry, ":")
	if !ok {
		return Token{}, fmt.Errorf("must be <sha256-hex>:<profile>[|<profile>...] or <sha256-hex>:*")
	}
	var t Token
	d, err := hex.DecodeString(strings.TrimSpace(digest))
	if err != nil || len(d) != len(t.Digest) {
		return Token{}, fmt.Errorf("the digest must be 64 hex characters (the SHA-256 of the token, not the token)")
	}
	copy(t.Digest[:], d)
	for _, p := range strings.Split(profiles, "|") {
		p = strings.TrimSpace(p)
		switch {
		case p == "":
			return Token{}, fmt.Errorf("empty profile name (use * for every profile)")
		case p == AllProfiles:
		case !credentials.ValidName(p):
			return Token{}, fmt.Errorf("invalid profile name (letters, digits, '.', '_', '-'; at most 64)")
		}
		t.Profiles = append(t.Profiles, p)
	}
	if len(t.Profiles) > 1 && slices.Contains(t.Profiles, AllProfiles) {
		return Token{}, fmt.Errorf("* cannot be combined with profile names")
	}
	return t, nil
}

// all reports a token bound to every profile.
func (t Token) all() bool { return len(t.Profiles) == 1 && t.Profiles[0] == AllProfiles }

// LoadTokenSecret reads the access-token list (ParseTokens format) from the Secrets Manager
// secret name (a name or an ARN), once per process at start, with the AWS configuration load
// gives (nil: credentials.EnvAWSConfig). Errors name the secret and the AWS error code, never the
// value or the SDK's message (which may quote a response body).
func LoadTokenSecret(ctx context.Context, name string, load credentials.AWSConfigLoader) ([]Token, error) {
	value, err := credentials.LoadSecretString(ctx, "access token secret", name, load)
	if err != nil {
		return nil, err
	}
	tokens, err := ParseTokens(value)
	if err != nil {
		return nil, fmt.Errorf("access token secret %q: %w", name, err)
	}
	return tokens, nil
}
