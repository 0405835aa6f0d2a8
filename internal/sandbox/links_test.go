package sandbox

import (
	"strings"
	"testing"
)

// The page a seeded link delivers opens on the sandbox's own address; nothing else is served
// there, so the route cannot hand out a file or a published link's content without paying.
func TestLinkTargets(t *testing.T) {
	sb, _ := start(t, "")
	created := createResource(t, sb, "Own Site", "1") // carries its publisher's externalUrl
	for _, tc := range []struct {
		id     string
		status int
		title  string
	}{
		{"zkprimer", 200, "<title>Zero-Knowledge Primer</title>"},
		{"llmprompts", 200, "<h1>LLM Prompt Patterns</h1>"},
		{"rustguide", 404, ""}, // a file: its bytes are behind the paywall only
		{created.ID, 404, ""},
		{"nosuchthing", 404, ""},
	} {
		r := get(t, sb.APIURL+"/sandbox/links/"+tc.id)
		if r.status != tc.status || !strings.Contains(string(r.body), tc.title) {
			t.Errorf("%s: %d %q, want %d with %q", tc.id, r.status, r.body, tc.status, tc.title)
		}
		if tc.status == 200 && r.header.Get("Content-Type") != "text/html; charset=utf-8" {
			t.Errorf("%s: content type %q", tc.id, r.header.Get("Content-Type"))
		}
	}
}
