package errmap

import (
	"cmp"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"os"
	"strings"
	"syscall"
)

// Error carries Facts through ordinary Go error returns: clients return *Error, handlers call FromError.
type Error struct {
	Facts Facts // what the client knew about the failure
	Err   error // the underlying cause, if any (kept for errors.Is/As and logs)
}

// Wrap returns an *Error carrying f with err as its cause.
func Wrap(err error, f Facts) *Error {
	return &Error{Facts: f, Err: err}
}

// Error returns line 1 of the mapped text plus source and category: short, redacted, never a body.
func (e *Error) Error() string {
	if e == nil {
		return "<nil>"
	}
	d := FromError(e, Call{}).Diagnostic
	return d.Operation + ": " + d.Detail + " (" + d.Source + ", " + d.Category + ")"
}

// Unwrap returns the underlying cause.
func (e *Error) Unwrap() error {
	if e == nil {
		return nil
	}
	return e.Err
}

// Call is what a handler knows about the call that failed; it fills gaps in the error's Facts.
type Call struct {
	Operation string   // line-1 label of the tool
	Tool      string   // tool name
	Source    Source   // source to attribute an error that names none
	Secrets   []string // secrets of this call (added to the error's own)
	Guides    *Guides  // every tool's Guide, for the Next line and next action
	// Cancelled reports that the request's own context was cancelled (the caller went away),
	// as opposed to reaching its deadline. A failure that no downstream answer explains is
	// then CANCELLED, whatever timeout or broken connection the cut-short call looked like.
	Cancelled bool
}

// FromError maps any error. An *Error anywhere in the chain supplies its Facts (gaps filled from
// call); otherwise deadlines become timeout, transport errors network, and anything else unknown
// with the error's own text (redacted, one line, bounded) as detail.
func FromError(err error, call Call) Failure {
	var e *Error
	if err != nil && errors.As(err, &e) && e != nil {
		return Map(factsOf(e, call))
	}
	f := Facts{Source: call.Source, Operation: call.Operation, Tool: call.Tool, Secrets: call.Secrets, Guides: call.Guides}
	if err == nil {
		f.Detail = "no error was reported"
		return Map(f)
	}
	// A cancelled call's phrase says what happened better than "context canceled".
	if f.Transport = transportOf(err); f.Transport != TransportCancelled {
		f.UpstreamDetail = errText(err)
	}
	if call.Cancelled {
		f.Transport = TransportCancelled
	}
	return Map(f)
}

func factsOf(e *Error, call Call) Facts {
	f := e.Facts
	f.Operation = cmp.Or(f.Operation, call.Operation)
	f.Tool = cmp.Or(f.Tool, call.Tool)
	f.Source = cmp.Or(f.Source, call.Source)
	f.Guides = cmp.Or(f.Guides, call.Guides)
	if len(call.Secrets) > 0 {
		f.Secrets = append(append([]string(nil), f.Secrets...), call.Secrets...)
	}
	// bare: no downstream answer and no classification, only (at most) a thrown error.
	u := f.Upstream
	bare := f.Status == 0 && f.Code == "" && f.Category == "" && len(f.Body) == 0 && len(f.Issues) == 0 &&
		len(u.ResultCodes) == 0 && u.ContractError == 0 && u.ContractErrorName == "" && u.X402Reason == "" && u.RPCCode == 0
	if bare && (call.Cancelled || cancelled(e.Err)) {
		// A transport classifier that saw the cut-short call reported a timeout or a broken
		// connection; the caller going away is what really happened.
		if cancelled(e.Err) && f.Transport != TransportNone {
			f.Detail = ""
		}
		f.Transport = TransportCancelled
		return f
	}
	if e.Err == nil {
		return f
	}
	// A client that only wrapped a thrown error still gets it classified.
	if bare && f.Transport == TransportNone {
		f.Transport = transportOf(e.Err)
	}
	if bare && f.Detail == "" && f.UpstreamDetail == "" {
		f.UpstreamDetail = errText(e.Err)
	}
	return f
}

// cancelled reports a chain that holds context.Canceled and no deadline: the caller's
// context was cancelled, not timed out.
func cancelled(err error) bool {
	return err != nil && errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded)
}

// transportOf classifies a thrown error as a timeout, a network failure, or neither.
func transportOf(err error) Transport {
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, os.ErrDeadlineExceeded) ||
		errors.Is(err, syscall.ETIMEDOUT) {
		return TransportTimeout
	}
	// The caller went away: neither a timeout nor a broken link to the downstream.
	if errors.Is(err, context.Canceled) {
		return TransportCancelled
	}
	var ne net.Error
	if errors.As(err, &ne) {
		if ne.Timeout() {
			return TransportTimeout
		}
		return TransportNetwork
	}
	for _, target := range []error{
		io.ErrUnexpectedEOF, syscall.ECONNREFUSED, syscall.ECONNRESET, syscall.ECONNABORTED,
		syscall.EPIPE, syscall.EHOSTUNREACH, syscall.ENETUNREACH,
	} {
		if errors.Is(err, target) {
			return TransportNetwork
		}
	}
	for _, target := range []any{new(*tls.RecordHeaderError), new(*tls.CertificateVerificationError),
		new(x509.UnknownAuthorityError), new(x509.HostnameError), new(x509.CertificateInvalidError)} {
		if errors.As(err, target) {
			return TransportNetwork
		}
	}
	return TransportNone
}

// errText is the error's message, or "" for the bare context sentinels whose wording
// ("context deadline exceeded") says less than the category phrase.
func errText(err error) (s string) {
	defer func() {
		if recover() != nil {
			s = "" // an Error method that panics (nil receiver) must not take Map down
		}
	}()
	s = err.Error()
	if t := strings.TrimSpace(s); t == context.DeadlineExceeded.Error() || t == context.Canceled.Error() {
		return ""
	}
	return s
}
