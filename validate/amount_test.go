package validate

import (
	"encoding/json"
	"math/big"
	"strings"
	"testing"
)

// amounts is a model with both amount shapes, required and optional.
type amounts struct {
	Price    string  `json:"price" validate:"required,usdcpos"`
	MinPrice *string `json:"minPrice,omitempty" validate:"omitnil,usdc"`
}

// TestAmountsTakeStringsAndNumbers: an amount is a string or a number; a number is read
// exactly from its literal (never through a float64) into the plain decimal the string rules
// check, and refused at its path with the shape's rule when its value is not an amount.
func TestAmountsTakeStringsAndNumbers(t *testing.T) {
	cases := []struct {
		name, price string // the JSON text of price
		want        string // the decoded price, or "!rule" for the issue at /price
	}{
		{"integer", `2`, "2"},
		{"decimal", `2.5`, "2.5"},
		{"string", `"2.5"`, "2.5"},
		{"string keeps its form", `" 002.50 "`, "002.50"},
		{"0.1 is exactly a tenth", `0.1`, "0.1"},
		{"seven decimals", `0.1234567`, "0.1234567"},
		{"eight decimals", `0.12345678`, "!usdcpos"},
		{"eight decimals as a string", `"0.12345678"`, "!usdcpos"},
		{"trailing zeros are the same value", `2.50000000000`, "2.5"},
		{"smallest", `0.0000001`, "0.0000001"},
		{"exponent", `1e2`, "100"},
		{"upper-case exponent", `1E-7`, "0.0000001"},
		{"exponent with a fraction", `25e-1`, "2.5"},
		{"signed exponent", `2.5E+1`, "25"},
		{"exponent zero", `2e0`, "2"},
		{"exponent beyond seven decimals", `5e-8`, "!usdcpos"},
		{"exponent in a string", `"1e2"`, "!usdcpos"},
		{"maximum", `100000000000`, "100000000000"},
		{"maximum, exponent form", `1e11`, "100000000000"},
		{"one unit above the maximum, which a float64 would round to it", `100000000000.0000001`, "!usdcpos"},
		{"one unit below the maximum, read exactly", `99999999999.9999999`, "99999999999.9999999"},
		{"above the maximum", `100000000001`, "!usdcpos"},
		{"integer beyond int64", `123456789012345678901234567890`, "!usdcpos"},
		{"beyond float64's range", `1e400`, "!usdcpos"},
		{"beyond float64's range, long exponent", `1e9999999999999999999`, "!usdcpos"},
		{"below float64's range", `1e-400`, "!usdcpos"},
		{"zero", `0`, "!usdcpos"},
		{"zero with an exponent", `0e999999999999`, "!usdcpos"},
		{"negative", `-1`, "!usdcpos"},
		{"negative zero is zero", `-0.0`, "!usdcpos"},
		{"null", `null`, "!type"},
		{"true", `true`, "!type"},
		{"object", `{"v":1}`, "!type"},
		{"array", `[1]`, "!type"},
		{"empty string", `""`, "!nonempty"},
		{"leading zeros in a string", `"0001.5"`, "0001.5"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req, issues := Decode[amounts](json.RawMessage(`{"price":` + tc.price + `}`))
			got := ""
			if req != nil {
				got = req.Price
			}
			for _, is := range issues {
				if is.Path != "/price" || is.Message == "" {
					t.Fatalf("issue %+v", is)
				}
				got = "!" + is.Rule
			}
			if got != tc.want {
				t.Fatalf("price %s: got %q, want %q (issues %+v)", tc.price, got, tc.want, issues)
			}
		})
	}
}

// TestAmountIssuesSayBothForms: a refused amount's issue says a string or a number is taken.
func TestAmountIssuesSayBothForms(t *testing.T) {
	for _, args := range []string{`{"price":true}`, `{"price":-1}`, `{"price":"-1"}`, `{"price":"1","minPrice":null}`, `{"price":1,"minPrice":1e-8}`} {
		_, issues := Decode[amounts](json.RawMessage(args))
		if len(issues) != 1 || !strings.Contains(issues[0].Message, "a string or a number") {
			t.Errorf("%s: issues %+v", args, issues)
		}
	}
	_, issues := Decode[amounts](json.RawMessage(`{"price":null}`))
	if len(issues) != 1 || issues[0].Expected != "string or number" {
		t.Errorf("null: %+v", issues)
	}
}

// TestAmountFilterTakesZero: usdc, unlike usdcpos, takes zero in every spelling of its value.
func TestAmountFilterTakesZero(t *testing.T) {
	for lit, want := range map[string]string{`0`: "0", `-0`: "0", `0.0`: "0", `0e5`: "0", `1e-7`: "0.0000001", `"0"`: "0"} {
		req, issues := Decode[amounts](json.RawMessage(`{"price":1,"minPrice":` + lit + `}`))
		if issues != nil || *req.MinPrice != want {
			t.Errorf("minPrice %s: %+v %+v", lit, req, issues)
		}
	}
}

// amountRat is a JSON number literal's exact value, for literals whose exponent big.Rat
// reads cheaply.
func amountRat(lit string) (*big.Rat, bool) {
	return new(big.Rat).SetString(lit)
}

// FuzzAmountNumber: for any JSON number literal, amountNumber agrees with exact arithmetic:
// it accepts exactly the non-negative values with at most 7 decimal places and at most 12
// integer digits, and the text it returns has the literal's value.
func FuzzAmountNumber(f *testing.F) {
	for _, s := range []string{"0", "-0", "2", "2.5", "0.1", "1e2", "1E-7", "25e-1", "2.50000000", "0.12345678", "-1", "1e400",
		"100000000000.0000001", "99999999999.9999999", "123456789012345678901234567890", "0e99", "1e-7", "5e-8", "999999999999", "1000000000000"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, lit string) {
		var n json.Number
		if json.Unmarshal([]byte(lit), &n) != nil || strings.ContainsAny(lit, " \t\r\n\"") {
			return // not a JSON number token
		}
		_, exp, _ := strings.Cut(strings.ToLower(lit), "e")
		if len(strings.TrimLeft(strings.TrimLeft(exp, "+-"), "0")) > 4 {
			return // big.Rat would spend its time on the exponent
		}
		want, ok := amountRat(lit)
		if !ok {
			t.Fatalf("big.Rat cannot read %q", lit)
		}
		units := new(big.Rat).Mul(want, big.NewRat(10_000_000, 1))
		limit := new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(12), nil))
		wantOK := want.Sign() >= 0 && units.IsInt() && want.Cmp(limit) < 0
		got, gotOK := amountNumber([]byte(lit))
		if gotOK != wantOK {
			t.Fatalf("amountNumber(%q) ok = %v, arithmetic says %v", lit, gotOK, wantOK)
		}
		if !gotOK {
			return
		}
		if r, ok := amountRat(got); !ok || r.Cmp(want) != 0 || strings.ContainsAny(got, "eE-+") || (strings.Contains(got, ".") && strings.HasSuffix(got, "0")) {
			t.Fatalf("amountNumber(%q) = %q, not its plain value", lit, got)
		}
	})
}
