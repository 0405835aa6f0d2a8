package redact

import (
	"strings"
	"testing"
)

// TestConstantFollowsTheRegistry: a constant document is cleaned like any answer, and again
// whenever a secret is registered after it was first served, so the cached bytes never carry a
// value registered later.
func TestConstantFollowsTheRegistry(t *testing.T) {
	const planted, later = "constant-planted-value-91", "constant-later-value-92"
	c := NewConstant([]byte(`{"tools":[{"description":"uses ` + planted + ` and ` + later + `"}]}`))
	_, out, _, ok := c.Within(nil, nil)
	if !ok || !strings.Contains(string(out), planted) {
		t.Fatalf("before registration: %s %v", out, ok)
	}
	for _, v := range []string{planted, later} {
		if err := Register(v); err != nil {
			t.Fatal(err)
		}
		_, out, _, ok = c.Within(nil, nil)
		if !ok || strings.Contains(string(out), v) || !strings.Contains(string(out), Marker) {
			t.Fatalf("after registering %s: %s %v", v, out, ok)
		}
	}
	if _, again, _, _ := c.Within(nil, nil); &again[0] != &out[0] {
		t.Error("the cleaned document was not reused while the registry stayed the same")
	}
}

// TestConstantWithin: the envelope around a constant document is cleaned on every call, and a
// value crossing either seam between envelope and document, which neither part holds alone,
// withholds the answer. A crossing value of which a whole window lies on one side loses it
// there, so the answer goes out without it.
func TestConstantWithin(t *testing.T) {
	c := NewConstant([]byte(`{"list":["within-doc-secret-1"]}`))
	long := strings.Repeat("within-long-", 60)
	if err := Register("within-doc-secret-1", "within-id-secret-1", `within-head","result":{"li`, `wh","result":{"li`,
		`"]}}`+"\n"+`within-tail`, `"]}}`+"\n"+long); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, prefix, suffix string
		ok                   bool
	}{
		{"clean", `{"id":1,"result":`, "}\n", true},
		{"secret in the id", `{"id":"within-id-secret-1","result":`, "}\n", true},
		{"crossing the head seam", `{"id":"wh","result":`, "}\n", false},
		{"crossing the tail seam", `{"id":1,"result":`, "}\nwithin-tail", false},
		// Redacted in the envelope, which then is no JSON answer (text after the object).
		{"a long value crossing", `{"id":1,"result":`, "}\n" + long, false},
		{"the start of a long value crossing", `{"id":1,"result":`, "}\n" + long[:100], false},
		{"a long value without its start", `{"id":1,"result":`, "}\n" + long[1:], false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			head, doc, tail, ok := c.Within([]byte(tc.prefix), []byte(tc.suffix))
			out := string(head) + string(doc) + string(tail)
			if ok != tc.ok {
				t.Fatalf("ok = %v, want %v (%s)", ok, tc.ok, out)
			}
			if !ok {
				return
			}
			for _, leak := range []string{"within-doc-secret-1", "within-id-secret-1", "within-head", "within-long-within-long-"} {
				if strings.Contains(out, leak) {
					t.Fatalf("%s left in %s", leak, out)
				}
			}
			if whole, _ := JSON([]byte(tc.prefix+`{"list":["within-doc-secret-1"]}`+tc.suffix), nil); string(whole) != out {
				t.Fatalf("Within gives %s, JSON of the whole %s", out, whole)
			}
		})
	}
}
