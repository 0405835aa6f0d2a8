package server

import (
	"context"
	"io"
	"log/slog"
	"sync"

	"github.com/aws/aws-lambda-go/lambdacontext"

	"github.com/mindvault/mcp-endpoint/internal/redact"
)

// NewLogger returns the JSON logger, with Lambda's field names (timestamp, message) under Lambda.
// Secrets are removed twice: the handler redacts every attribute, error and message, then every
// finished line passes the same exact-value redaction as a response (package redact, plus
// secrets); a line that cannot be cleaned is replaced by a notice.
func NewLogger(lambda bool, level slog.Level, w io.Writer, secrets []string) *slog.Logger {
	opts := &slog.HandlerOptions{Level: level}
	if lambda {
		opts.ReplaceAttr = lambdacontext.ReplaceAttr
	}
	extra := redact.NewValues(secrets)
	h := slog.NewJSONHandler(&redactingWriter{w: w, extra: extra}, opts)
	return slog.New(&redacting{next: h, extra: extra})
}

// redactingWriter is the logger's output boundary: slog's JSON handler writes each record
// with one Write call, so each call is one JSON line.
type redactingWriter struct {
	mu    sync.Mutex
	w     io.Writer
	extra *redact.Values
}

// withheldLine replaces a log line that held a secret in a form that could not be removed.
const withheldLine = `{"level":"ERROR","msg":"log line withheld: it contained a secret that could not be removed safely"}` + "\n"

func (r *redactingWriter) Write(p []byte) (int, error) {
	out, ok := redact.JSON(p, r.extra)
	if !ok {
		out = []byte(withheldLine)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, err := r.w.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// redacting masks secrets in the message and in every string attribute.
type redacting struct {
	next  slog.Handler
	extra *redact.Values
}

func (r *redacting) Enabled(ctx context.Context, l slog.Level) bool { return r.next.Enabled(ctx, l) }

func (r *redacting) Handle(ctx context.Context, rec slog.Record) error {
	out := slog.NewRecord(rec.Time, rec.Level, redact.Own(r.extra.Replace(rec.Message)), rec.PC)
	rec.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(r.attr(a))
		return true
	})
	return r.next.Handle(ctx, out)
}

// attr redacts an attribute's strings and errors, which may hold text from outside.
func (r *redacting) attr(a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		return slog.String(a.Key, redact.External(r.extra.Replace(v.String())))
	case slog.KindGroup:
		g := v.Group()
		out := make([]any, len(g))
		for i, ga := range g {
			out[i] = r.attr(ga)
		}
		return slog.Group(a.Key, out...)
	case slog.KindAny:
		if err, ok := v.Any().(error); ok {
			return slog.String(a.Key, redact.External(r.extra.Replace(err.Error())))
		}
	}
	return a
}

func (r *redacting) WithAttrs(as []slog.Attr) slog.Handler {
	red := make([]slog.Attr, len(as))
	for i, a := range as {
		red[i] = r.attr(a)
	}
	return &redacting{next: r.next.WithAttrs(red), extra: r.extra}
}

func (r *redacting) WithGroup(name string) slog.Handler {
	return &redacting{next: r.next.WithGroup(name), extra: r.extra}
}
