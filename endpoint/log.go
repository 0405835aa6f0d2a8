package endpoint

import (
	"context"
	"io"
	"log/slog"

	"github.com/aws/aws-lambda-go/lambdacontext"

	"github.com/mindvault/mcp-endpoint/errmap"
)

// NewLogger returns the JSON logger, with Lambda's field names (timestamp, message) under
// Lambda so its JSON log format parses the level; the request id is on every request line. Every string passes through errmap.Redact first, so a
// secret that slips into a log attribute is still masked.
func NewLogger(lambda bool, level slog.Level, w io.Writer, secrets []string) *slog.Logger {
	opts := &slog.HandlerOptions{Level: level}
	if lambda {
		opts.ReplaceAttr = lambdacontext.ReplaceAttr
	}
	h := slog.NewJSONHandler(w, opts)
	return slog.New(&redacting{next: h, secrets: secrets, level: level})
}

// redacting masks secrets in the message and in every string attribute.
type redacting struct {
	next    slog.Handler
	secrets []string
	level   slog.Level
}

func (r *redacting) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= r.level && r.next.Enabled(ctx, l)
}

func (r *redacting) Handle(ctx context.Context, rec slog.Record) error {
	out := slog.NewRecord(rec.Time, rec.Level, errmap.Redact(rec.Message, r.secrets), rec.PC)
	rec.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(r.attr(a))
		return true
	})
	return r.next.Handle(ctx, out)
}

func (r *redacting) attr(a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		return slog.String(a.Key, errmap.Redact(v.String(), r.secrets))
	case slog.KindGroup:
		g := v.Group()
		out := make([]any, len(g))
		for i, ga := range g {
			out[i] = r.attr(ga)
		}
		return slog.Group(a.Key, out...)
	case slog.KindAny:
		if err, ok := v.Any().(error); ok {
			return slog.String(a.Key, errmap.Redact(err.Error(), r.secrets))
		}
	}
	return a
}

func (r *redacting) WithAttrs(as []slog.Attr) slog.Handler {
	red := make([]slog.Attr, len(as))
	for i, a := range as {
		red[i] = r.attr(a)
	}
	return &redacting{next: r.next.WithAttrs(red), secrets: r.secrets, level: r.level}
}

func (r *redacting) WithGroup(name string) slog.Handler {
	return &redacting{next: r.next.WithGroup(name), secrets: r.secrets, level: r.level}
}
