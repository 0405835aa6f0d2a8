package errmap

import (
	"errors"
	"net/http"
	"reflect"
	"testing"
)

// TestConstructorsCopy: every constructor changes a copy, keeps the original in the chain
// untouched, and leaves nil alone.
func TestConstructorsCopy(t *testing.T) {
	base := func() *Error {
		return &Error{Err: errors.New("cause"), Facts: Facts{Guides: testGuides,
			Source: SourceAPI, Status: 503, Header: http.Header{"Retry-After": {"3"}}, Body: []byte(`{"error":"down"}`),
			UpstreamDetail: "down", Secrets: []string{"secret-value-1"}, Upstream: Upstream{ResultCodes: []string{"tx_failed"}},
			NextAction: &NextAction{Tool: "mindvault_tx_status", Arguments: map[string]any{"txHash": testTxHash}},
		}}
	}
	cases := []struct {
		name  string
		apply func(error) error
		check func(Facts) bool
	}{
		{"MarkStateChanged", func(e error) error { return MarkStateChanged(e, StateYes) }, func(f Facts) bool { return f.StateChanged == StateYes }},
		{"MarkStarted", MarkStarted, func(f Facts) bool { return f.ExecutionStarted }},
		{"With undoes MarkStarted", func(e error) error { return With(MarkStarted(e), func(f *Facts) { f.ExecutionStarted = false }) }, func(f Facts) bool { return !f.ExecutionStarted }},
		{"MarkPending", func(e error) error { return MarkPending(e, testTxHash) }, func(f Facts) bool {
			return f.StateChanged == StateUnknown && f.ExecutionStarted && f.TxHash == testTxHash && f.NextAction.Arguments["txHash"] == testTxHash
		}},
		{"MarkPaymentPending", func(e error) error { return MarkPaymentPending(e, "2026-01-01T00:00:00Z") }, func(f Facts) bool {
			return f.StateChanged == StateUnknown && f.ExecutionStarted && f.PaymentExpiresAt == "2026-01-01T00:00:00Z"
		}},
		{"WithNext", func(e error) error { return WithNext(e, "Do this.") }, func(f Facts) bool { return f.Next == "Do this." }},
		{"WithDetail drops what the service said", func(e error) error { return WithDetail(e, "own words") }, func(f Facts) bool {
			return f.Detail == "own words" && f.UpstreamDetail == "" && f.Body == nil && Map(f).Diagnostic.Detail == "own words"
		}},
		{"WithNextAction", func(e error) error { return WithNextAction(e, &NextAction{Tool: "mindvault_preview"}) }, func(f Facts) bool {
			return f.NextAction.Tool == "mindvault_preview"
		}},
		{"With edits the copy's slices", func(e error) error {
			return With(e, func(f *Facts) {
				f.Secrets[0] = "changed"
				f.Upstream.ResultCodes[0] = "changed"
				f.Header.Set("Retry-After", "9")
				f.NextAction.Arguments["txHash"] = "changed"
			})
		}, func(f Facts) bool { return f.Secrets[0] == "changed" }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			orig := base()
			want := base().Facts
			got := c.apply(orig)
			f, ok := FactsOf(got)
			if !ok || !c.check(f) {
				t.Errorf("change not applied: %+v", f)
			}
			if !reflect.DeepEqual(orig.Facts, want) {
				t.Errorf("the original was changed in place:\n%+v\nwant\n%+v", orig.Facts, want)
			}
			found := false
			for e := errors.Unwrap(got); e != nil; e = errors.Unwrap(e) {
				found = found || e == error(orig)
			}
			if !found || !errors.Is(got, orig.Err) {
				t.Error("the original must stay in the chain")
			}
			if c.apply(nil) != nil {
				t.Error("nil must stay nil")
			}
		})
	}
	// An error without facts gets fresh ones, and still classifies its cause.
	f, ok := FactsOf(MarkStateChanged(errors.New("plain"), StateYes))
	if !ok || f.StateChanged != StateYes {
		t.Errorf("plain error: %+v", f)
	}
	if d := FromError(WithNext(errors.New("boom"), "Do this."), Call{Guides: testGuides, Source: SourceAPI}).Diagnostic; d.Next != "Do this." || d.Detail != "boom" {
		t.Errorf("plain error through FromError: %+v", d)
	}
}
