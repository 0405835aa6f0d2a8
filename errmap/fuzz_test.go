package errmap

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

const fuzzSeed = "SBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB"
const fuzzKnown = "known-secret-value-42"

// FuzzMap feeds arbitrary bodies, statuses and header values through Map, with a seed-shaped
// secret and a known secret planted inside, and checks the shape and that neither leaves.
func FuzzMap(f *testing.F) {
	f.Add([]byte(`{"error":"PLANT"}`), 500, "5")
	f.Add([]byte(`{"error":{"_errors":["PLANT"],"x":{"_errors":["y"]}}}`), 400, "Wed, 21 Oct 2015 07:28:00 GMT")
	f.Add([]byte(`{"type":"t","title":"PLANT","extras":{"result_codes":{"transaction":"tx_bad_seq"}}}`), 400, "1.5")
	f.Add([]byte("<html>PLANT</html>"), 429, "12")
	f.Add([]byte(""), 504, "")
	f.Add([]byte("\xff\xfe{\"message\":\"a\x00PLANT\u202e\"}"), 0, "x-api-key: PLANT")
	f.Add([]byte(`["PLANT",{"message":"m"}]`), 402, "-1")
	f.Fuzz(func(t *testing.T, body []byte, status int, hv string) {
		planted := []byte(strings.ReplaceAll(string(body), "PLANT", fuzzSeed+" "+fuzzKnown))
		if !strings.Contains(string(body), "PLANT") {
			mid := len(body) / 2
			planted = append(append(append([]byte{}, body[:mid]...), fuzzSeed+fuzzKnown...), body[mid:]...)
		}
		text := string(planted)
		facts := Facts{Guides: testGuides,
			Source:         Sources()[uint(status)%uint(len(Sources()))],
			Operation:      "Fuzz " + text,
			Tool:           hv,
			Status:         status,
			Header:         http.Header{"Retry-After": {hv}, "x-ratelimit-reset": {hv + fuzzSeed}},
			Body:           planted,
			Detail:         text,
			UpstreamDetail: text,
			Upstream:       Upstream{X402Reason: hv, ContractErrorName: text, ContractError: status, ResultCodes: []string{hv, text}},
			Issues:         []Issue{{Path: text, Rule: hv, Expected: text}},
			TxHash:         hv + fuzzSeed,
			Secrets:        []string{fuzzKnown},
		}
		if status%3 == 0 {
			facts.Transport = Transport(status % 3)
		}
		for _, ff := range []Facts{facts, {Source: SourceAPI, Status: status, Body: planted, Header: facts.Header, Secrets: facts.Secrets}} {
			got := mapFacts(&ff) // not Map: a panic must fail the fuzzer, not become a generic failure
			if n := strings.Count(got.Text, "\n"); n != 2 {
				t.Fatalf("%d newlines in %q", n, got.Text)
			}
			j, err := json.Marshal(got.Diagnostic)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range []string{fuzzSeed, fuzzKnown} {
				if strings.Contains(got.Text, s) || strings.Contains(string(j), s) {
					t.Fatalf("%s survived:\n%s\n%s", s, got.Text, j)
				}
			}
			if !IsCode(got.Diagnostic.Code) {
				t.Fatalf("undocumented code %s", got.Diagnostic.Code)
			}
		}
	})
}
