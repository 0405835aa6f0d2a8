package validate

import (
	"bytes"
	"encoding/json"
	"math/big"
	"regexp"
	"strings"
	"testing"
)

// bounded is a model with every shape whose bound docs/tools.md "Shared argument shapes" states: USDC amounts (any and
// positive), profile names and resource ids.
type bounded struct {
	Price      *string  `json:"price,omitempty" validate:"omitnil,usdcpos"`
	MinPrice   *string  `json:"minPrice,omitempty" validate:"omitnil,usdc"`
	Profile    *string  `json:"profile,omitempty" validate:"omitnil,profile"`
	Tags       []string `json:"tags,omitempty" validate:"omitempty,max=8,dive,tag"`
	ResourceID *string  `json:"resourceId,omitempty" validate:"omitnil,resourceid"`
}

// TestAmountAndProfileBounds: a price beyond the contract's maximum (10^18 units of 7
// decimals), a profile name and a resource id without a letter or digit ("." and "..", path
// components rather than names) are rejected at the boundary, with the argument's path.
func TestAmountAndProfileBounds(t *testing.T) {
	cases := []struct {
		name, args string
		want       []string
	}{
		{"32-digit price", `{"price":"` + strings.Repeat("9", 32) + `"}`, []string{"/price usdcpos"}},
		{"12-digit price above the maximum", `{"price":"100000000001"}`, []string{"/price usdcpos"}},
		{"maximum price", `{"price":"100000000000"}`, nil},
		{"maximum price with zero fraction", `{"price":"100000000000.0000000"}`, nil},
		{"just above the maximum", `{"price":"100000000000.0000001"}`, []string{"/price usdcpos"}},
		{"just below the maximum", `{"price":"99999999999.9999999"}`, nil},
		{"leading zeros do not count", `{"price":"000100000000000"}`, nil},
		{"smallest price", `{"price":"0.0000001"}`, nil},
		{"zero price", `{"price":"0"}`, []string{"/price usdcpos"}},
		{"negative price", `{"price":"-1"}`, []string{"/price usdcpos"}},
		{"exponent", `{"price":"1e3"}`, []string{"/price usdcpos"}},
		{"filter zero", `{"minPrice":"0"}`, nil},
		{"filter maximum", `{"minPrice":"100000000000"}`, nil},
		{"filter above the maximum", `{"minPrice":"100000000000.5"}`, []string{"/minPrice usdc"}},
		{"32-digit filter", `{"minPrice":"` + strings.Repeat("1", 32) + `"}`, []string{"/minPrice usdc"}},
		{"profile dot", `{"profile":"."}`, []string{"/profile profile"}},
		{"profile dot dot", `{"profile":".."}`, []string{"/profile profile"}},
		{"profile of punctuation", `{"profile":"-_."}`, []string{"/profile profile"}},
		{"profile with a dot", `{"profile":".a"}`, nil},
		{"profile digit", `{"profile":"7"}`, nil},
		{"resource id dot", `{"resourceId":"."}`, []string{"/resourceId resourceid"}},
		{"resource id dot dot", `{"resourceId":".."}`, []string{"/resourceId resourceid"}},
		{"resource id dot dot, padded", `{"resourceId":" .. "}`, []string{"/resourceId resourceid"}},
		{"resource id of dots", `{"resourceId":"..."}`, []string{"/resourceId resourceid"}},
		{"resource id of punctuation", `{"resourceId":"-_."}`, []string{"/resourceId resourceid"}},
		{"resource id with a slash", `{"resourceId":"../meta"}`, []string{"/resourceId resourceid"}},
		{"resource id with dots and letters", `{"resourceId":"a..b"}`, nil},
		{"resource id starting with dots", `{"resourceId":"..a"}`, nil},
		{"resource id digit", `{"resourceId":"7"}`, nil},
		{"resource id of 128", `{"resourceId":"` + strings.Repeat("a", 128) + `"}`, nil},
		{"resource id of 129", `{"resourceId":"` + strings.Repeat("a", 129) + `"}`, []string{"/resourceId resourceid"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, issues := Decode[bounded](json.RawMessage(tc.args))
			var got []string
			for _, is := range issues {
				got = append(got, is.Path+" "+is.Rule)
			}
			if strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Fatalf("issues = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestDuplicateKeys: a key given twice in any object of the arguments is an issue at its
// path, whatever the values and however it is spelled.
func TestDuplicateKeys(t *testing.T) {
	cases := []struct {
		name, args string
		want       []string
	}{
		{"top level", `{"price":"1","price":"2"}`, []string{"/price duplicate"}},
		{"same value twice", `{"price":"1","price":"1"}`, []string{"/price duplicate"}},
		{"escaped spelling", `{"price":"1","\u0070rice":"2"}`, []string{"/price duplicate"}},
		{"three times is one issue", `{"profile":"a","profile":"b","profile":"c"}`, []string{"/profile duplicate"}},
		{"nested in an array", `{"tags":[{"a":1,"a":2}]}`, []string{"/tags/0/a duplicate", "/tags/0 type"}},
		{"nested object", `{"x":{"y":{"k":1,"k":2}}}`, []string{"/x unknown", "/x/y/k duplicate"}},
		{"unknown key twice", `{"zz":1,"zz":2}`, []string{"/zz unknown", "/zz duplicate"}},
		{"same key in sibling objects is fine", `{"tags":[{"a":1},{"a":2}]}`, []string{"/tags/0 type", "/tags/1 type"}},
		{"no duplicates", `{"price":"1","profile":"a"}`, nil},
		{"colons, quotes and braces inside values", `{"price":"1","profile":"a:\"b\":{c}","price":"2"}`, []string{"/price duplicate", "/profile profile"}},
		{"escaped spelling after a value with escapes", `{"profile":"a\\","\u0070rofile":"b"}`, []string{"/profile duplicate"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, issues := Decode[bounded](json.RawMessage(tc.args))
			var got []string
			for _, is := range issues {
				got = append(got, is.Path+" "+is.Rule)
				if is.Rule == "duplicate" && (is.Message == "" || is.Expected == "") {
					t.Errorf("duplicate issue without text: %+v", is)
				}
			}
			if strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Fatalf("issues = %q, want %q", got, tc.want)
			}
		})
	}
}

// maxUnits is the contract's maximum price, 10^18 units of 7 decimals.
var maxUnits = new(big.Rat).SetFrac(new(big.Int).Exp(big.NewInt(10), big.NewInt(18), nil), big.NewInt(10_000_000))

// amountOracle is the USDC amount rule of docs/tools.md "Shared argument shapes" computed with exact arithmetic rather than
// a pattern: a decimal with at most 7 places, at most the contract's maximum, > 0 when
// positive, and at most 32 characters (the advertised maxLength).
func amountOracle(s string, positive bool) bool {
	if len(s) == 0 || len(s) > 32 || !regexp.MustCompile(`^\d+(\.\d{1,7})?$`).MatchString(s) {
		return false
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok || r.Cmp(maxUnits) > 0 {
		return false
	}
	return !positive || r.Sign() > 0
}

var amountSeeds = []string{"0", "0.0000000", "0.0000001", "1", "1.5", "00.5", "100000000000", "100000000000.0",
	"100000000000.0000001", "100000000001", "99999999999.9999999", "999999999999", "0100000000000",
	"00000000000000000000000000000001", "000000000000000000000000000000001", "1.", ".5", "1.12345678", "",
	"0.00000001", "10000000000", "100000000000.0000000", "1000000000000"}

// TestAmountPatternMatchesArithmetic: the advertised pattern (which is also the check) says
// exactly what exact arithmetic says, so what is advertised is what is accepted and both
// hold the contract's bound.
func TestAmountPatternMatchesArithmetic(t *testing.T) {
	for _, s := range amountSeeds {
		for _, pos := range []bool{false, true} {
			tag := "usdc"
			if pos {
				tag = "usdcpos"
			}
			if got, want := shapeByTag[tag].check(s), amountOracle(s, pos); got != want {
				t.Errorf("%s(%q) = %v, arithmetic says %v", tag, s, got, want)
			}
		}
	}
}

// FuzzAmountShapes: the amount patterns agree with exact arithmetic on any input.
func FuzzAmountShapes(f *testing.F) {
	for _, s := range amountSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := shapeByTag["usdc"].check(s), amountOracle(s, false); got != want {
			t.Fatalf("usdc(%q) = %v, arithmetic says %v", s, got, want)
		}
		if got, want := shapeByTag["usdcpos"].check(s), amountOracle(s, true); got != want {
			t.Fatalf("usdcpos(%q) = %v, arithmetic says %v", s, got, want)
		}
	})
}

// TestSchemaPatternsAreTheChecks: for the shapes that are a pattern plus a length, the
// advertised pattern and lengths accept exactly what the check accepts.
func TestSchemaPatternsAreTheChecks(t *testing.T) {
	samples := append([]string{".", "..", "...", "-", "-_.", "..a", "a..", "a", "a.b", "A_", strings.Repeat("a", 64), strings.Repeat("a", 65),
		strings.Repeat("a", 128), strings.Repeat("a", 129), strings.Repeat(".", 127) + "a"}, amountSeeds...)
	for _, tag := range []string{"profile", "usdc", "usdcpos", "resourceid"} {
		sh := shapeByTag[tag]
		s := sh.schema
		re := regexp.MustCompile(s.Pattern)
		for _, v := range samples {
			adv := re.MatchString(v) && uint64(len(v)) >= s.MinLength && uint64(len(v)) <= s.MaxLength
			if adv != sh.check(v) {
				t.Errorf("%s: %q advertised %v, checked %v", tag, v, adv, sh.check(v))
			}
		}
	}
}

// TestConforms: a shape checked outside a request model is the model's check with its phrase.
func TestConforms(t *testing.T) {
	for v, want := range map[string]bool{"rustguide": true, "a.b": true, "..": false, ".": false, "a/b": false} {
		ok, msg := Conforms("resourceid", v)
		if ok != want || msg != shapeByTag["resourceid"].message {
			t.Errorf("Conforms(resourceid, %q) = %v %q", v, ok, msg)
		}
	}
	if ok, _ := Conforms("no-such-shape", "a"); ok {
		t.Error("an unknown shape conforms")
	}
}

// countKeys counts every key token of a valid JSON text; mapKeys counts the keys that survive
// decoding into Go maps. They differ exactly when some object repeats a key.
func countKeys(raw []byte) int {
	dec := json.NewDecoder(bytes.NewReader(raw))
	n, depth := 0, 0
	inObject := []bool{}
	expectKey := []bool{}
	for {
		tok, err := dec.Token()
		if err != nil {
			return n
		}
		if d, ok := tok.(json.Delim); ok {
			switch d {
			case '{', '[':
				if depth > 0 && inObject[depth-1] {
					expectKey[depth-1] = true
				}
				inObject = append(inObject, d == '{')
				expectKey = append(expectKey, true)
				depth++
			default:
				depth--
				inObject, expectKey = inObject[:depth], expectKey[:depth]
				if depth > 0 && inObject[depth-1] {
					expectKey[depth-1] = true
				}
			}
			continue
		}
		if depth > 0 && inObject[depth-1] {
			if expectKey[depth-1] {
				n++
			}
			expectKey[depth-1] = !expectKey[depth-1]
		}
	}
}

func mapKeys(v any) int {
	switch x := v.(type) {
	case map[string]any:
		n := len(x)
		for _, e := range x {
			n += mapKeys(e)
		}
		return n
	case []any:
		n := 0
		for _, e := range x {
			n += mapKeys(e)
		}
		return n
	}
	return 0
}

// FuzzDuplicateKeys: for any JSON object, a duplicate issue is reported exactly when
// decoding into maps loses a key, and never for a text that is not an object.
func FuzzDuplicateKeys(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":1,"a":2}`, `{"a":{"b":1,"b":1}}`, `{"a":[{"b":1},{"b":2}]}`, `{"a":1,"\u0061":2}`,
		`{"price":"1","price":"2"}`, `{"a":[[{"c":1,"c":{"c":1}}]]}`, `{"a":"{\"b\":1,\"b\":2}"}`, "{\"\xff\":1,\"\xfe\":2}", `[{"a":1,"a":1}]`} {
		f.Add([]byte(s))
	}
	m := For[bounded]()
	f.Fuzz(func(t *testing.T, data []byte) {
		issues := m.Check(data)
		dups := 0
		for _, is := range issues {
			if is.Rule == "duplicate" {
				dups++
			}
		}
		var obj map[string]any
		trimmed := bytes.TrimSpace(data)
		if len(trimmed) == 0 || trimmed[0] != '{' || json.Unmarshal(trimmed, &obj) != nil {
			if dups > 0 {
				t.Fatalf("duplicate issue for a text that is not an object: %q", data)
			}
			return
		}
		lost := countKeys(trimmed) != mapKeys(obj)
		if lost != (dups > 0) {
			t.Fatalf("keys lost %v, duplicate issues %d: %q", lost, dups, data)
		}
	})
}
