package validate

import (
	"encoding/json"
	"strings"
	"testing"
)

// sample exercises every kind, shape and rule the request models use.
type sample struct {
	ResourceID string   `json:"resourceId" validate:"required,resourceid" jsonschema_description:"the resource"`
	Limit      int      `json:"limit" validate:"min=1,max=100" jsonschema:"default=20"`
	Offset     *int     `json:"offset,omitempty" validate:"omitnil,min=0"`
	Sort       *string  `json:"sort,omitempty" validate:"omitnil,oneof=newest price_asc"`
	Price      *string  `json:"price,omitempty" validate:"omitnil,usdcpos"`
	MinPrice   *string  `json:"minPrice,omitempty" validate:"omitnil,usdc"`
	MaxPrice   *string  `json:"maxPrice,omitempty" validate:"omitnil,usdc"`
	Account    *string  `json:"account,omitempty" validate:"omitnil,gaccount"`
	TxHash     *string  `json:"txHash,omitempty" validate:"omitnil,txhash"`
	Metadata   *string  `json:"metadata,omitempty" validate:"omitnil,metaptr"`
	Tags       []string `json:"tags,omitempty" validate:"omitempty,max=8,dive,tag"`
	Email      *string  `json:"email,omitempty" validate:"omitnil,max=254,email"`
	Listed     *bool    `json:"listed,omitempty"`
	DryRun     bool     `json:"dryRun,omitempty"`
}

func (s *sample) CrossCheck() []Issue {
	if s.MinPrice != nil && s.MaxPrice != nil && cmpDecimal(*s.MinPrice, *s.MaxPrice) > 0 {
		return []Issue{{Path: "/minPrice", Rule: "lte_field", Expected: "at most maxPrice", Message: "must not exceed maxPrice"}}
	}
	return nil
}

// cmpDecimal compares two validated decimal strings of equal shape well enough for tests.
func cmpDecimal(a, b string) int {
	pa, pb := strings.Split(a+".", "."), strings.Split(b+".", ".")
	if len(pa[0]) != len(pb[0]) {
		return len(pa[0]) - len(pb[0])
	}
	return strings.Compare(pa[0]+"."+pa[1], pb[0]+"."+pb[1])
}

const validAccount = "GBBD47IF6LWK7P7MDEVSCWR7DPUWV3NY3DTQEVFL4NAT4AQH3ZLLFLA5"

func TestDecodeIssues(t *testing.T) {
	cases := []struct {
		name string
		args string
		want []string // "path rule" in order
	}{
		{"valid minimal", `{"resourceId":"abc"}`, nil},
		{"absent arguments", ``, []string{"/resourceId required"}},
		{"missing required", `{}`, []string{"/resourceId required"}},
		{"blank required", `{"resourceId":"   "}`, []string{"/resourceId nonempty"}},
		{"wrong type string", `{"resourceId":5}`, []string{"/resourceId type"}},
		{"null is a wrong type", `{"resourceId":null}`, []string{"/resourceId type"}},
		{"wrong type int", `{"resourceId":"a","limit":"20"}`, []string{"/limit type"}},
		{"fraction is not an integer", `{"resourceId":"a","limit":2.5}`, []string{"/limit type"}},
		{"integral float accepted", `{"resourceId":"a","limit":20.0}`, nil},
		{"int overflow", `{"resourceId":"a","limit":1e300}`, []string{"/limit type"}},
		{"range max", `{"resourceId":"a","limit":101}`, []string{"/limit max"}},
		{"range min", `{"resourceId":"a","limit":0}`, []string{"/limit min"}},
		{"optional min", `{"resourceId":"a","offset":-1}`, []string{"/offset min"}},
		{"enum", `{"resourceId":"a","sort":"oldest"}`, []string{"/sort oneof"}},
		{"blank optional string", `{"resourceId":"a","sort":" "}`, []string{"/sort oneof"}},
		{"bad format", `{"resourceId":"a b"}`, []string{"/resourceId resourceid"}},
		{"too long id", `{"resourceId":"` + strings.Repeat("a", 129) + `"}`, []string{"/resourceId resourceid"}},
		{"zero price", `{"resourceId":"a","price":"0.0000000"}`, []string{"/price usdcpos"}},
		{"eight decimals", `{"resourceId":"a","price":"1.00000001"}`, []string{"/price usdcpos"}},
		{"smallest price", `{"resourceId":"a","price":"0.0000001"}`, nil},
		{"bad checksum account", `{"resourceId":"a","account":"GBBD47IF6LWK7P7MDEVSCWR7DPUWV3NY3DTQEVFL4NAT4AQH3ZLLFLA4"}`, []string{"/account gaccount"}},
		{"good account", `{"resourceId":"a","account":"` + validAccount + `"}`, nil},
		{"tx hash with prefix and upper case", `{"resourceId":"a","txHash":"sha256:` + strings.Repeat("AB", 32) + `"}`, nil},
		{"short tx hash", `{"resourceId":"a","txHash":"abc"}`, []string{"/txHash txhash"}},
		{"metadata prefix", `{"resourceId":"a","metadata":"ftp://x"}`, []string{"/metadata metaptr"}},
		{"bare prefix is not a pointer", `{"resourceId":"a","metadata":"ipfs://"}`, []string{"/metadata metaptr"}},
		{"tags element type", `{"resourceId":"a","tags":["ok",3]}`, []string{"/tags/1 type"}},
		{"tags element shape", `{"resourceId":"a","tags":["ok","no way"]}`, []string{"/tags/1 tag"}},
		{"too many tags", `{"resourceId":"a","tags":["a","b","c","d","e","f","g","h","i"]}`, []string{"/tags max"}},
		{"tags not an array", `{"resourceId":"a","tags":"a"}`, []string{"/tags type"}},
		{"email", `{"resourceId":"a","email":"nope"}`, []string{"/email email"}},
		{"bool type", `{"resourceId":"a","listed":"yes"}`, []string{"/listed type"}},
		{"cross field", `{"resourceId":"a","minPrice":"5","maxPrice":"1"}`, []string{"/minPrice lte_field"}},
		{"cross field skipped while fields are invalid", `{"resourceId":"a b","minPrice":"5","maxPrice":"1"}`, []string{"/resourceId resourceid"}},
		{"unknown first, sorted, then model order", `{"zeta":1,"limit":0,"alpha":2,"resourceId":""}`,
			[]string{"/alpha unknown", "/zeta unknown", "/resourceId nonempty", "/limit min"}},
		{"unknown name escaped", `{"a/b~c":1,"resourceId":"a"}`, []string{"/a~1b~0c unknown"}},
		{"arguments not an object", `[1]`, []string{" type"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, issues := Decode[sample](json.RawMessage(tc.args))
			var got []string
			for _, is := range issues {
				got = append(got, is.Path+" "+is.Rule)
				if is.Message == "" {
					t.Errorf("issue %s has no message", is.Path)
				}
			}
			if strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Fatalf("issues = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestDecodeNormalisesAndDefaults(t *testing.T) {
	v, issues := Decode[sample](json.RawMessage(`{"resourceId":"  abc  ","txHash":"SHA256:` + strings.Repeat("AB", 32) + `","tags":[" Go ","go","AI"]}`))
	if issues != nil {
		t.Fatalf("issues: %v", issues)
	}
	if v.ResourceID != "abc" {
		t.Errorf("resourceId not trimmed: %q", v.ResourceID)
	}
	if v.Limit != 20 {
		t.Errorf("limit default = %d, want 20", v.Limit)
	}
	if v.Offset != nil || v.Listed != nil {
		t.Errorf("absent optional fields must stay nil")
	}
	if *v.TxHash != strings.Repeat("ab", 32) {
		t.Errorf("tx hash not normalised: %q", *v.TxHash)
	}
	if strings.Join(v.Tags, ",") != "go,ai" {
		t.Errorf("tags = %v, want [go ai]", v.Tags)
	}
}

func TestIssuesNeverCarryTheRejectedValue(t *testing.T) {
	const planted = "SECRETVALUE123"
	args := `{"resourceId":"` + planted + ` x","sort":"` + planted + `","limit":"` + planted + `","tags":["` + planted + `!"],"email":"` + planted + `"}`
	_, issues := Decode[sample](json.RawMessage(args))
	if len(issues) == 0 {
		t.Fatal("expected issues")
	}
	b, _ := json.Marshal(issues)
	for _, is := range issues {
		b = append(b, is.Message...)
	}
	if strings.Contains(string(b), planted) {
		t.Fatalf("issues echo the rejected value: %s", b)
	}
}

func TestCompileRejectsAmbiguousModels(t *testing.T) {
	type optionalIntWithoutDefault struct {
		N int `json:"n" validate:"min=1"`
	}
	type requiredPlainBool struct {
		B bool `json:"b" validate:"required"`
	}
	type unknownRule struct {
		S string `json:"s" validate:"required,uuid"`
	}
	type badBound struct {
		S *string `json:"s,omitempty" validate:"omitnil,max=ten"`
	}
	for name, fn := range map[string]func(){
		"optional int without default": func() { For[optionalIntWithoutDefault]() },
		"required plain bool":          func() { For[requiredPlainBool]() },
		"rule without schema":          func() { For[unknownRule]() },
		"bound that is not a number":   func() { For[badBound]() },
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Fatal("expected a panic")
				}
			}()
			fn()
		})
	}
}

// ValidateFnGroup carries validateFn inside an embedded argument group.
type ValidateFnGroup struct {
	S string `json:"s" validate:"required,validateFn"`
}

// TestCompileRefusesValidateFn: validator's validateFn rule is refused when a model is compiled
// (when a tool is registered), in every place a rule can hide. The deployed binary is built
// with validator_novalidatefn, where that rule panics on the first call that reaches it; this
// is what keeps the build tag from ever turning a tool call into a panic.
func TestCompileRefusesValidateFn(t *testing.T) {
	type plain struct {
		S string `json:"s" validate:"required,validateFn"`
	}
	type withMethod struct {
		S *string `json:"s,omitempty" validate:"omitnil,validateFn=Check"`
	}
	type inDive struct {
		Tags []string `json:"tags,omitempty" validate:"omitempty,max=8,dive,validateFn"`
	}
	type alternative struct {
		S string `json:"s" validate:"required,resourceid|validateFn"`
	}
	type inGroup struct {
		ValidateFnGroup
	}
	for name, fn := range map[string]func(){
		"the rule":                  func() { For[plain]() },
		"with a method name":        func() { For[withMethod]() },
		"on slice elements":         func() { For[inDive]() },
		"as an alternative":         func() { For[alternative]() },
		"in an embedded group":      func() { For[inGroup]() },
		"through Decode, not first": func() { Decode[plain](json.RawMessage(`{"s":"x"}`)) },
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				r := recover()
				if r == nil {
					t.Fatal("the model compiled; a call would reach validateFn")
				}
				if msg, _ := r.(string); !strings.Contains(msg, "validateFn") {
					t.Fatalf("panic %v does not name the rule", r)
				}
			}()
			fn()
		})
	}
}

func FuzzDecode(f *testing.F) {
	for _, seed := range []string{``, `{}`, `{"resourceId":"a"}`, `{"tags":[1,"x"]}`, `{"limit":1e309}`, `[`, `{"a/b":null}`, "{\"resourceId\":\"\xff\"}"} {
		f.Add([]byte(seed))
	}
	m := For[sample]()
	f.Fuzz(func(t *testing.T, data []byte) {
		issues := m.Check(data)
		if len(issues) > 0 && issues[0].Rule == "" {
			t.Fatalf("issue without a rule: %+v", issues[0])
		}
		for _, is := range issues {
			if is.Path != "" && !strings.HasPrefix(is.Path, "/") {
				t.Fatalf("path %q is not a JSON pointer", is.Path)
			}
		}
	})
}
