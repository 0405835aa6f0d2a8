package errmap

import (
	"errors"
	"maps"
)

// The constructors below add what a caller learned to a failure it passes on. Each returns a new
// *Error whose Facts are a copy of the first *Error in err with one change, wrapping err whole: a
// failure value may be shared, so it is never modified. An err without an *Error gets fresh Facts;
// a nil err stays nil.

// With returns err with its facts changed by edit. The specific constructors below are
// preferred; With is for a caller that changes several facts at once.
func With(err error, edit func(*Facts)) error {
	if err == nil {
		return nil
	}
	f, ok := FactsOf(err)
	if ok {
		f.Header = f.Header.Clone()
		f.Secrets = append([]string(nil), f.Secrets...)
		f.AllowedArgs = append([]string(nil), f.AllowedArgs...)
		f.Issues = append([]Issue(nil), f.Issues...)
		f.Upstream.ResultCodes = append([]string(nil), f.Upstream.ResultCodes...)
		if f.RetryAfter != nil {
			wait := *f.RetryAfter
			f.RetryAfter = &wait
		}
		if f.NextAction != nil {
			a := *f.NextAction
			a.Arguments = maps.Clone(a.Arguments)
			f.NextAction = &a
		}
	}
	edit(&f)
	return &Error{Facts: f, Err: err}
}

// MarkStateChanged records what the failed call changed: StateYes when something happened,
// StateUnknown when a write or payment was sent and its outcome could not be confirmed.
func MarkStateChanged(err error, state State) error {
	return With(err, func(f *Facts) { f.StateChanged = state })
}

// MarkStarted records that the tool's own operation reached the service (a write or the paid
// request was sent) without saying anything about its outcome.
func MarkStarted(err error) error {
	return With(err, func(f *Facts) { f.ExecutionStarted = true })
}

// MarkPending records a transaction that was sent and whose outcome is unknown: its hash, and
// looking the hash up (Guides.TxStatusAction) as the next step instead of sending it again.
// Sending it started the tool's operation, whatever later read failed.
func MarkPending(err error, hash string) error {
	return With(err, func(f *Facts) {
		f.StateChanged = StateUnknown
		f.ExecutionStarted = true
		f.TxHash = hash
		f.LookUpTx = true
	})
}

// MarkPaymentPending records a signed payment that may have been sent and whose outcome is
// unknown until it expires (an RFC 3339 time): paying again before then could pay twice.
func MarkPaymentPending(err error, expiresAt string) error {
	return With(err, func(f *Facts) {
		f.StateChanged = StateUnknown
		f.ExecutionStarted = true
		f.PaymentExpiresAt = expiresAt
	})
}

// WithNext replaces the Next line with the caller's own sentence, for a situation only the
// caller can describe (what exists now, which call resumes it).
func WithNext(err error, next string) error {
	return With(err, func(f *Facts) { f.Next = next })
}

// WithDetail replaces the detail with the caller's own sentence. What the downstream said (the
// client's reading and a raw body) is dropped with it: the caller builds its sentence from the
// shown detail (Map(...).Diagnostic.Detail) when it should keep it.
func WithDetail(err error, detail string) error {
	return With(err, func(f *Facts) {
		f.Detail = detail
		f.UpstreamDetail = ""
		f.Body = nil
	})
}

// WithNextAction sets the recovery step as a tool call an agent can make as is.
func WithNextAction(err error, a *NextAction) error {
	return With(err, func(f *Facts) { f.NextAction = a })
}

// FactsOf returns a copy of the facts of the first *Error in err, and whether there was one;
// callers read them to decide (a code, a status), never to change them in place.
func FactsOf(err error) (Facts, bool) {
	var e *Error
	if errors.As(err, &e) && e != nil {
		return e.Facts, true
	}
	return Facts{}, false
}
