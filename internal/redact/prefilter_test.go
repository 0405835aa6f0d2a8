package redact

import "testing"

// slowShapes is Shapes without the word checks: every pattern on every text.
func slowShapes(s string) string {
	if s == "" {
		return s
	}
	s = mvKeyRE.ReplaceAllString(Seeds(s), Marker)
	for _, p := range shapes {
		s = p.re.ReplaceAllString(s, p.repl)
	}
	return s
}

var prefilterSeeds = []string{
	"", "plain text", "GET /resources/{id}/meta", "mcp request", "tools/list", "http://127.0.0.1:8080/mcp",
	"api_key=abc123", "x-api-key: zzz", "Authorization: Basic dXNlcjpwYXNz", "BEARER abc.def", "bearer\tabc",
	"https://user:pw@host/x", "ftp://a:b@c", "HTTPS://U:P@H", "client_secret=s3cr3t", "access_token=t0k", "password: hunter2",
	"passwd=x", "PassWord=x", "private key=abc", "credential=c", "signature=sig", "mv_0123456789abcdef0123", "MV_0123456789abcdef0123",
	"\u017fecret=abc", // long s folds to s under (?i)
	"to\u212aen=abc",  // Kelvin sign folds to k
	"api\u212aey: v",  // ditto inside a key word
	"héllo token=1",   // non-ASCII elsewhere
	"SB5QFV3HFDTDXPH3NAOXKQNLNV3DI5KUBB2HJYQAN7WKLRXNXPBSUQ6S and secret=1",
	`{"authorization":"Digest abc","x":"bearer q","url":"s3://k:v@b"}`,
}

// TestShapesWordChecksChangeNothing: skipping a pattern when its word is absent gives the same
// text as running every pattern, case folding included.
func TestShapesWordChecksChangeNothing(t *testing.T) {
	for _, s := range prefilterSeeds {
		if got, want := Shapes(s), slowShapes(s); got != want {
			t.Errorf("Shapes(%q) = %q, the patterns give %q", s, got, want)
		}
	}
}

func FuzzShapesWordChecks(f *testing.F) {
	for _, s := range prefilterSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := Shapes(s), slowShapes(s); got != want {
			t.Fatalf("Shapes(%q) = %q, the patterns give %q", s, got, want)
		}
	})
}
