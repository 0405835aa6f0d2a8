package errmap

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/mindvault/mcp-endpoint/internal/redact"
)

// seenCodes collects every code a test produced, so TestMain can check that the documented list
// and the produced codes agree in both directions.
var (
	seenMu      sync.Mutex
	seenCodes   = map[string]bool{}
	seenDerived = map[string]bool{} // produced without an explicit Facts.Code
)

func TestMain(m *testing.M) {
	code := m.Run()
	if code == 0 && fullRun() {
		var missing []string
		derivable := derivableCodes()
		for _, c := range Codes() {
			if !seenCodes[c.Code] || (derivable[c.Code] && !seenDerived[c.Code]) {
				missing = append(missing, c.Code)
			}
		}
		if len(missing) > 0 {
			fmt.Fprintf(os.Stderr, "documented codes no test produced (derivable ones must be derived, not set): %v\n", missing)
			code = 1
		}
	}
	os.Exit(code)
}

// derivableCodes are the codes Map derives itself (from issues, a transport failure, the HTTP
// status table, or an explicit category's generic code); every other code is classified by a
// client (tested there) or set by its caller.
func derivableCodes() map[string]bool {
	out := map[string]bool{CodeInvalidArguments: true, CodeTimeout: true, CodeNetworkError: true, CodeCancelled: true}
	for s := 0; s <= 999; s++ {
		out[statusCode(s)] = true
	}
	for _, c := range categories {
		out[c.generic] = true
	}
	return out
}

// fullRun is true when every test ran: no -run or -skip filter narrowed the set, and -list
// did not replace running with listing.
func fullRun() bool {
	for _, name := range []string{"test.run", "test.skip", "test.list"} {
		if f := flag.Lookup(name); f != nil && f.Value.String() != "" {
			return false
		}
	}
	return true
}

// mapT maps f, records the code, and checks every invariant that holds for any failure.
func mapT(t *testing.T, f Facts) Failure {
	t.Helper()
	got := Map(f)
	checkFailure(t, got)
	if f.Code == "" {
		seenMu.Lock()
		seenDerived[got.Diagnostic.Code] = true
		seenMu.Unlock()
	}
	if f.Category == "" && f.Code == "" && CodeCategory(got.Diagnostic.Code) != Category(got.Diagnostic.Category) {
		t.Errorf("code %s documented as %s but mapped as %s", got.Diagnostic.Code, CodeCategory(got.Diagnostic.Code), got.Diagnostic.Category)
	}
	again := Map(f)
	if !reflect.DeepEqual(got, again) {
		t.Errorf("Map is not deterministic:\n%#v\n%#v", got, again)
	}
	for _, s := range f.Secrets {
		if utf8.RuneCountInString(s) >= redact.MinLength {
			assertAbsent(t, got, s)
		}
	}
	return got
}

func checkFailure(t *testing.T, got Failure) {
	t.Helper()
	d := got.Diagnostic
	seenMu.Lock()
	seenCodes[d.Code] = true
	seenMu.Unlock()

	lines := strings.Split(got.Text, "\n")
	if len(lines) != 3 {
		t.Fatalf("want exactly 3 lines, got %d:\n%s", len(lines), got.Text)
	}
	for i, l := range lines {
		if strings.TrimSpace(l) == "" {
			t.Errorf("line %d empty:\n%s", i+1, got.Text)
		}
		if strings.ContainsAny(l, "\r\t\x00") {
			t.Errorf("line %d has control characters: %q", i+1, l)
		}
	}
	if want := d.Operation + ": " + d.Detail; lines[0] != want {
		t.Errorf("line 1 = %q, want %q", lines[0], want)
	}
	want2 := "Source: " + Source(d.Source).Label() + " · Category: " + d.Category + " · Code: " + d.Code
	if d.Status > 0 {
		want2 += fmt.Sprintf(" · HTTP %d", d.Status)
	}
	if lines[1] != want2 {
		t.Errorf("line 2 = %q, want %q", lines[1], want2)
	}
	if lines[2] != "Next: "+d.Next {
		t.Errorf("line 3 = %q, want Next: %q", lines[2], d.Next)
	}
	if !IsCode(d.Code) {
		t.Errorf("code %q is not documented in Codes()", d.Code)
	}
	if !Category(d.Category).Valid() {
		t.Errorf("category %q invalid", d.Category)
	}
	if !Source(d.Source).Valid() {
		t.Errorf("source %q invalid", d.Source)
	}
	switch Retry(d.Retry) {
	case RetrySafe, RetryAfterWait, RetryAfterCorrection, RetryAfterAction, RetryNo:
	default:
		t.Errorf("retry %q invalid", d.Retry)
	}
	switch State(d.StateChanged) {
	case StateNo, StateYes, StateUnknown:
	default:
		t.Errorf("stateChanged %q invalid", d.StateChanged)
	}
	if d.Version != 1 {
		t.Errorf("version %d", d.Version)
	}
	if n := utf8.RuneCountInString(d.Detail); n > MaxDetail || n == 0 {
		t.Errorf("detail has %d runes: %q", n, d.Detail)
	}
	if !utf8.ValidString(got.Text) {
		t.Errorf("text is not valid UTF-8: %q", got.Text)
	}
	if (d.Issues == nil) != (d.OmittedIssues == nil) {
		t.Errorf("issues and omittedIssues must come together: %v %v", d.Issues, d.OmittedIssues)
	}
	if len(d.Issues) > MaxIssues {
		t.Errorf("%d issues kept", len(d.Issues))
	}
	for k := range d.Upstream {
		if !allowedUpstream[k] {
			t.Errorf("upstream key %q is not allow-listed", k)
		}
	}
	if (d.JSONRPCCode != 0) != (d.Code == CodeInvalidArguments) {
		t.Errorf("jsonrpcCode %d with code %s", d.JSONRPCCode, d.Code)
	}
	if _, err := json.Marshal(d); err != nil {
		t.Errorf("marshal: %v", err)
	}
}

var allowedUpstream = map[string]bool{
	"resultCodes": true, "contractError": true, "contractErrorName": true, "x402Reason": true,
	"rpcCode": true, "limit": true, "remaining": true, "resetSeconds": true,
}

// assertAbsent checks that s appears neither in the text nor anywhere in the marshalled diagnostic.
func assertAbsent(t *testing.T, f Failure, s string) {
	t.Helper()
	if strings.Contains(f.Text, s) {
		t.Errorf("%q leaked into text:\n%s", s, f.Text)
	}
	j, _ := json.Marshal(f.Diagnostic)
	if strings.Contains(string(j), s) {
		t.Errorf("%q leaked into diagnostic: %s", s, j)
	}
	// Go's encoder escapes <, > and &; check the unescaped form too.
	var back Diagnostic
	if err := json.Unmarshal(j, &back); err == nil {
		again := fmt.Sprintf("%+v", back)
		if strings.Contains(again, s) {
			t.Errorf("%q leaked into diagnostic fields: %s", s, again)
		}
	}
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	j, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(j)
}

func sortedKeys(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Public test vectors (go-stellar-sdk strkey tests and docs/operations.md "Network presets").
const (
	testSeed     = "SBU2RRGLXH3E5CQHTD3ODLDF2BWDCYUSSBLLZ5GNW7JXHDIYKXZWHOKR"
	testAccount  = "GBBD47IF6LWK7P7MDEVSCWR7DPUWV3NY3DTQEVFL4NAT4AQH3ZLLFLA5"
	testContract = "CDQKUIADLO5S5WEHEUTTXX2M45WAHVRU2PBEBD6ZGDKMOP5A72FJ3OD4"
	testMuxed    = "MA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJVAAAAAAAAAAAAAJLK"
	testTxHash   = "3389e9f0f1a65f19736cacf544c2e825313e8447f569233bb8db39aa607c8889"
	testAPIKey   = "mv_4f9a1c2e8b7d6a5f4e3d2c1b0a9f8e7d"
)

func mustObject(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// Categories returns every category in the order of docs/errors.md "Categories".
func Categories() []Category {
	out := make([]Category, len(categories))
	for i, c := range categories {
		out[i] = c.cat
	}
	return out
}
