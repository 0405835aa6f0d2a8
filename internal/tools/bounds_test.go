package tools

import (
	"encoding/json"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mindvault/mcp-endpoint/internal/testkit/schemacheck"
)

// maxExactInteger is the largest integer every party reads exactly: JSON numbers in
// JavaScript, and so the MindVault API, are doubles (Number.MAX_SAFE_INTEGER, 2^53-1).
const maxExactInteger = 1<<53 - 1

// TestEveryIntegerArgumentIsBounded: every integer argument of every tool has a lower and an
// upper bound, no larger than what the API reads exactly, advertised in the inputSchema as
// checked: the bound itself passes and one above it is an issue at the argument's path.
func TestEveryIntegerArgumentIsBounded(t *testing.T) {
	n := 0
	for _, tool := range toolRegistry(t).Tools() {
		var schema struct {
			Properties map[string]struct {
				Type    json.RawMessage `json:"type"` // a name, or a list of names (an amount's)
				Minimum *json.Number    `json:"minimum"`
				Maximum *json.Number    `json:"maximum"`
			} `json:"properties"`
		}
		if err := json.Unmarshal(tool.Definition().InputSchema, &schema); err != nil {
			t.Fatal(err)
		}
		for _, a := range tool.Model().Arguments() {
			if a.Kind != "integer" {
				continue
			}
			n++
			name := tool.Name() + " " + a.Name
			var lo, hi string
			for _, r := range a.Rules {
				switch r.Name {
				case "min", "gte":
					lo = r.Param
				case "max", "lte":
					hi = r.Param
				}
			}
			max, err := strconv.ParseInt(hi, 10, 64)
			if lo == "" || err != nil || max > maxExactInteger {
				t.Errorf("%s: bounds [%q, %q]; want both, the upper at most %d", name, lo, hi, int64(maxExactInteger))
				continue
			}
			p := schema.Properties[a.Name]
			if string(p.Type) != `"integer"` || p.Minimum == nil || p.Maximum == nil || p.Minimum.String() != lo || p.Maximum.String() != hi {
				t.Errorf("%s: advertised %+v, checked [%s, %s]", name, p, lo, hi)
			}
			for _, c := range []struct {
				v    int64
				want string
			}{{max, ""}, {max + 1, "max"}, {1<<63 - 1, "max"}} {
				got := ""
				for _, is := range tool.Model().Check(json.RawMessage(`{"` + a.Name + `":` + strconv.FormatInt(c.v, 10) + `}`)) {
					if is.Path == "/"+a.Name {
						got = is.Rule
					}
				}
				if got != c.want {
					t.Errorf("%s = %d: issue %q, want %q", name, c.v, got, c.want)
				}
			}
		}
	}
	if n == 0 {
		t.Fatal("no integer argument found: the test checks nothing")
	}
}

// TestIDArgumentsRefuseDotSegments: every argument with an id shape (a resource id, a profile
// name) refuses "." and "..", which a client would send as path segments
// (/resources/../meta), at the argument's path; a name with a dot and a letter passes.
func TestIDArgumentsRefuseDotSegments(t *testing.T) {
	n := 0
	for _, tool := range toolRegistry(t).Tools() {
		for _, a := range tool.Model().Arguments() {
			shape := ""
			for _, r := range a.Rules {
				if r.Name == "resourceid" || r.Name == "profile" {
					shape = r.Name
				}
			}
			if shape == "" {
				continue
			}
			n++
			for _, v := range []string{".", "..", "...", "-", "_.-", " .. "} {
				found := false
				for _, is := range tool.Model().Check(json.RawMessage(`{"` + a.Name + `":"` + v + `"}`)) {
					found = found || (is.Path == "/"+a.Name && is.Rule == shape)
				}
				if !found {
					t.Errorf("%s %s = %q: no %s issue", tool.Name(), a.Name, v, shape)
				}
			}
			for _, is := range tool.Model().Check(json.RawMessage(`{"` + a.Name + `":"a.b"}`)) {
				if is.Path == "/"+a.Name && is.Rule == shape {
					t.Errorf("%s %s = \"a.b\" refused", tool.Name(), a.Name)
				}
			}
		}
	}
	if n < 10 {
		t.Fatalf("only %d id arguments found", n)
	}
}

// amountSamples are argument values for an amount: strings and numbers in and out of range,
// with exponents, more decimals than 7, beyond what a float64 holds, and other JSON types.
var amountSamples = []string{`"2"`, `"2.5"`, `"0"`, `"0.0000001"`, `"0.12345678"`, `"1e2"`, `"-1"`, `"100000000000"`,
	`"100000000000.0000001"`, `""`, `"abc"`, `"007.5"`, `2`, `2.5`, `0`, `-0`, `0.1`, `1e2`, `1E-7`, `5e-8`, `0.12345678`,
	`-1`, `-0.0000001`, `1e400`, `1e-400`, `100000000000`, `1e11`, `100000000000.0000001`, `99999999999.9999999`,
	`123456789012345678901234567890`, `2.50000000`, `null`, `true`, `{}`, `[]`}

// overSeven reports a JSON number whose value has more than 7 decimal places: the one thing
// about an amount the schema's number form cannot say (its description does).
func overSeven(sample string) bool {
	r, ok := new(big.Rat).SetString(sample)
	return ok && !strings.HasPrefix(sample, `"`) && !new(big.Rat).Mul(r, big.NewRat(10_000_000, 1)).IsInt()
}

// TestAmountArgumentsTakeStringsAndNumbers: every USDC amount argument (maxPriceUsdc,
// maxFeeUsdc, price, minPrice, maxPrice) is advertised as a string or a number with the
// contract's bounds, and a JSON Schema validator given its advertised schema agrees with the
// endpoint on every sample, except a number with more than 7 decimal places, which only the
// endpoint refuses and the description names.
func TestAmountArgumentsTakeStringsAndNumbers(t *testing.T) {
	var names []string
	for _, tool := range toolRegistry(t).Tools() {
		var schema struct {
			Properties map[string]json.RawMessage `json:"properties"`
		}
		if err := json.Unmarshal(tool.Definition().InputSchema, &schema); err != nil {
			t.Fatal(err)
		}
		for _, a := range tool.Model().Arguments() {
			if a.Kind != "string or number" {
				continue
			}
			if !slices.Contains(names, a.Name) {
				names = append(names, a.Name)
			}
			name := tool.Name() + " " + a.Name
			prop := schema.Properties[a.Name]
			var p struct {
				Type             []string     `json:"type"`
				Minimum          *json.Number `json:"minimum"`
				ExclusiveMinimum *json.Number `json:"exclusiveMinimum"`
				Maximum          *json.Number `json:"maximum"`
				Description      string       `json:"description"`
			}
			if err := json.Unmarshal(prop, &p); err != nil || strings.Join(p.Type, ",") != "string,number" ||
				p.Maximum == nil || p.Maximum.String() != "100000000000" || (p.Minimum == nil) == (p.ExclusiveMinimum == nil) ||
				!strings.Contains(p.Description, "a string or a number") || !strings.Contains(p.Description, "at most 7 decimals") {
				t.Errorf("%s: advertised %s", name, prop)
				continue
			}
			for _, v := range amountSamples {
				advertised := schemacheck.Validate(prop, []byte(v)) == nil
				accepted := true
				for _, is := range tool.Model().Check(json.RawMessage(`{"` + a.Name + `":` + v + `}`)) {
					if is.Path == "/"+a.Name {
						accepted = false
					}
				}
				if advertised != accepted && !(advertised && overSeven(v)) {
					t.Errorf("%s = %s: advertised %v, accepted %v", name, v, advertised, accepted)
				}
				if overSeven(v) && accepted {
					t.Errorf("%s = %s: more than 7 decimals accepted", name, v)
				}
			}
		}
	}
	slices.Sort(names)
	if got, want := strings.Join(names, ","), "maxFeeUsdc,maxPrice,maxPriceUsdc,minPrice,price"; got != want {
		t.Fatalf("amount arguments %s, want %s", got, want)
	}
}
