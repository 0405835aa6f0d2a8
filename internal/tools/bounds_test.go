package tools

import (
	"encoding/json"
	"strconv"
	"testing"
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
				Type    string       `json:"type"`
				Minimum *json.Number `json:"minimum"`
				Maximum *json.Number `json:"maximum"`
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
			if p.Type != "integer" || p.Minimum == nil || p.Maximum == nil || p.Minimum.String() != lo || p.Maximum.String() != hi {
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
