package sandbox

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"
)

// exchange is one line of testdata/realapi/exchanges.jsonl: a request the endpoint sent to the
// real MindVault server (mind-vault-1/mindvault, server/ at 6c433d96, with the official x402
// facilitator) and the answer it got. docs/sandbox.md "Held to the real server" explains it.
type exchange struct {
	Route   string `json:"route"`
	Status  int    `json:"status"`
	Request struct {
		Method  string            `json:"method"`
		URL     string            `json:"url"`
		Headers map[string]string `json:"headers"`
		Body    string            `json:"body"`
	} `json:"request"`
	Response struct {
		Headers map[string]string `json:"headers"`
		Body    string            `json:"body"`
	} `json:"response"`
}

// realIDs maps the recording's resource ids to seeded sandbox resources in the same state.
var realIDs = map[string]string{
	"cmrlinkguide000000000001": "zkprimer",      // a link, verified, listed, registered
	"cmrfilepdf00000000000002": "rustguide",     // a PDF, verified, listed, registered
	"cmrdoesnotexist000000009": "doesnotexist",  // no such resource
	"cmrmismatch0000000000004": "vectordbbench", // the API and the chain disagree on its price
	"cmragentpend000000000007": "draftnotes",    // the publisher's own, pending, fee unpaid, unlisted
	"cmragentres0000000000006": "llmprompts",    // any id: the API key is refused first
	"cmrnotchain0000000000005": "rustguide",     // not the publisher's (403)
	"cmragentreg0000000000009": "vectordbbench", // the publisher's own, already on chain (409)
	"usu79b1wgsi3ixa92mofersx": "copiedessay",   // a resource with a verification verdict
	"cmrverifyfail00000000010": "diagramset",    // bought with a payment the facilitator's simulation refuses
}

// notReplayed are the recorded answers the fixture test cannot ask the sandbox for, and why;
// each is held to its recording elsewhere.
func notReplayed(x exchange) string {
	switch {
	case x.Request.Headers["payment-signature"] != "" && x.Route == "GET /resources/{id}" && (x.Status == 200 || x.Response.Headers["payment-response"] == ""):
		return "" // replayed with a fresh payment signed like the product's (see paidReplay)
	case x.Request.Headers["payment-signature"] != "":
		return "a paid verification or a settlement that fails needs a state the recording does not give (a fee owed, a facilitator losing a sequence race); replayed as faults in test/e2e (realapi_test.go)"
	case x.Status == 503:
		return "every seeded resource the sandbox sells is on chain or sold without a chain check (the mechanical agent buys them); the real 503 chain_unavailable is replayed as a fault in test/e2e TestRealNotOnchain"
	case x.Status == 429:
		return "the limiter's state; replayed as a fault in test/e2e TestRealVerifyRateLimited"
	case x.Route == "POST /publishers" && x.Status == 500:
		return "a server defect (a duplicate email should be 409): the sandbox answers 409, which the endpoint reads as the conflict it is"
	case x.Route == "GET /resources/{id}/register/prepare" && x.Status == 500:
		return "a server defect at 6c433d96 (every prepare failed); the sandbox prepares the transaction; the 500's {error, detail} is replayed as a fault in test/e2e TestRealRegisterOnchainAdvice"
	}
	return ""
}

// sandboxExtras are fields the sandbox sends beyond the recording, each one the endpoint reads
// only when present (a deployment that announces a file's size lets a purchase be refused
// before paying), never relying on it.
var sandboxExtras = map[string][]string{
	"GET /resources/{id}/meta": {"size", "thumbnailUrl"},
}

// TestSandboxAnswersAsTheRealServer replays the recorded requests against the sandbox and
// compares what the endpoint reads: the status, the headers that matter (paging, x402,
// Retry-After, the X-Payment-* receipt), the body's field names and JSON types (null matches
// any type: the real server sends null for what it does not have), inside PAYMENT-REQUIRED
// too. A field the real server sends that the sandbox lacks, or sends with another type,
// fails; a field only the sandbox sends fails unless sandboxExtras names it.
func TestSandboxAnswersAsTheRealServer(t *testing.T) {
	sb, _ := start(t, "")
	f, err := os.Open("testdata/realapi/exchanges.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	zero, _ := sb.Account("zero")
	// The recording's stale-price resource: the chain says another price than the API.
	sb.world.reg.byID["vectordbbench"].Price = 11 * stroops
	n, replayed := 0, 0
	for sc.Scan() {
		n++
		var x exchange
		if err := json.Unmarshal(sc.Bytes(), &x); err != nil {
			t.Fatalf("line %d: %v", n, err)
		}
		name := fmt.Sprintf("%d %s %d", n, x.Route, x.Status)
		if why := notReplayed(x); why != "" {
			t.Logf("%s: not replayed: %s", name, why)
			continue
		}
		replayed++
		t.Run(name, func(t *testing.T) {
			path, body := x.Request.URL, x.Request.Body
			for real, local := range realIDs {
				path, body = strings.ReplaceAll(path, real, local), strings.ReplaceAll(body, real, local)
			}
			if strings.HasPrefix(path, "/buyers/") {
				path = "/buyers/" + zero.Address + "/payments" // a wallet whose x402 v2 payments the API never attributes
			}
			h := map[string]string{}
			if ct := x.Request.Headers["content-type"]; ct != "" {
				h["Content-Type"] = ct
			}
			if k := x.Request.Headers["x-api-key"]; k != "" {
				h["x-api-key"] = sb.DemoAPIKey
				if strings.HasPrefix(k, "mv_000") {
					h["x-api-key"] = "mv_" + strings.Repeat("0", 64)
				}
			}
			if k := x.Request.Headers["idempotency-key"]; k != "" {
				h["Idempotency-Key"] = k
			}
			if x.Route == "POST /publishers" && x.Status == 201 {
				body = strings.Replace(body, "@rig.example", fmt.Sprintf("+%d@rig.example", n), 1)
			}
			var raw []byte
			if body != "" {
				raw = []byte(body)
			}
			var got reply
			if x.Request.Headers["payment-signature"] != "" {
				got = paidReplay(t, sb, path, x.Status)
			} else {
				got = do(t, x.Request.Method, sb.APIURL+path, raw, h)
			}
			if got.status != x.Status {
				t.Fatalf("status %d, the real server %d: %s", got.status, x.Status, got.body)
			}
			for _, k := range []string{"x-total-count", "x-limit", "x-offset", "x-next-offset", "payment-required", "payment-response",
				"retry-after", "x-payment-id", "x-payment-amount", "x-payment-recipient"} {
				if _, real := x.Response.Headers[k]; real && got.header.Get(k) == "" {
					t.Errorf("header %s missing (the real server sends %q)", k, x.Response.Headers[k])
				}
			}
			if v := x.Response.Headers["payment-response"]; v != "" {
				for _, p := range sameShape("PAYMENT-RESPONSE", decode64(t, v), decode64(t, got.header.Get("payment-response")), nil) {
					t.Error(p)
				}
			} else if got.header.Get("payment-response") != "" {
				t.Errorf("PAYMENT-RESPONSE sent where the real server sends none")
			}
			if strings.HasPrefix(x.Response.Headers["content-type"], "application/json") {
				var want, have any
				if err := json.Unmarshal([]byte(x.Response.Body), &want); err != nil {
					t.Logf("the recorded body is truncated: its first row is compared")
					want = firstRow(t, x.Response.Body)
				}
				if err := json.Unmarshal(got.body, &have); err != nil {
					t.Fatalf("the sandbox's body is not JSON: %s", got.body)
				}
				for _, p := range sameShape("body", want, have, sandboxExtras[x.Route]) {
					t.Error(p)
				}
			}
			if v := x.Response.Headers["payment-required"]; v != "" {
				for _, p := range sameShape("PAYMENT-REQUIRED", decode64(t, v), decode64(t, got.header.Get("payment-required")), nil) {
					t.Error(p)
				}
			}
		})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n == 0 || replayed < n/2 {
		t.Fatalf("%d of %d recorded exchanges replayed", replayed, n)
	}
}

// firstRow reads the first element of a recorded array whose end was cut off.
func firstRow(t *testing.T, body string) any {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(body))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		t.Fatalf("recorded body: not an array")
	}
	var row any
	if err := dec.Decode(&row); err != nil {
		t.Fatalf("recorded body: %v", err)
	}
	return []any{row}
}

// paidReplay buys path with a payment signed as the product signs it (the recording's
// signatures are truncated). For a recorded 402 (the facilitator's simulation refused the
// payment) it sends a payment whose nonce an earlier settlement already consumed: the
// sandbox's simulation refuses that one as the real facilitator's did.
func paidReplay(t *testing.T, sb *Sandbox, path string, status int) reply {
	t.Helper()
	header, _ := signPayment(t, sb, sb.Demo, "GET", path, nil)
	if status == 402 {
		if r := paid(t, sb, "GET", path, nil, header); r.status != 200 {
			t.Fatalf("the first payment: %d %s", r.status, r.body)
		}
	}
	return paid(t, sb, "GET", path, nil, header)
}

func decode64(t *testing.T, v string) any {
	t.Helper()
	b, err := base64.StdEncoding.DecodeString(v)
	if err != nil {
		t.Fatalf("not base64: %q", v)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("not JSON: %s", b)
	}
	return out
}

// jsonType names a decoded JSON value's type.
func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case float64:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	}
	return "object"
}

// sameShape lists where have does not have want's shape: a missing field, another JSON type
// (null matches anything), a field only have sends (unless extras names it); arrays compare
// their first elements.
func sameShape(at string, want, have any, extras []string) []string {
	wt, ht := jsonType(want), jsonType(have)
	if wt == "null" || ht == "null" {
		return nil
	}
	if wt != ht {
		return []string{fmt.Sprintf("%s: %s, the real server sends %s", at, ht, wt)}
	}
	var out []string
	switch w := want.(type) {
	case []any:
		h := have.([]any)
		if len(w) > 0 && len(h) > 0 {
			out = append(out, sameShape(at+"[0]", w[0], h[0], extras)...)
		}
	case map[string]any:
		h := have.(map[string]any)
		keys := make([]string, 0, len(w))
		for k := range w {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			hv, ok := h[k]
			if !ok {
				out = append(out, fmt.Sprintf("%s.%s: missing (the real server sends %s)", at, k, jsonType(w[k])))
				continue
			}
			out = append(out, sameShape(at+"."+k, w[k], hv, nil)...)
		}
		for k := range h {
			if _, ok := w[k]; !ok && !slices.Contains(extras, k) {
				out = append(out, fmt.Sprintf("%s.%s: sent by the sandbox only", at, k))
			}
		}
	}
	return out
}
