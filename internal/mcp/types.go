package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// Revisions served (docs/protocol.md "Revisions served").
const (
	Version20260728 = "2026-07-28"
	Version20251125 = "2025-11-25"
	Version20250618 = "2025-06-18"
)

// SupportedVersions lists every served revision, newest first.
var SupportedVersions = []string{Version20260728, Version20251125, Version20250618}

// ServerInfo identifies the implementation to clients.
type ServerInfo struct {
	Name    string `json:"name"`
	Title   string `json:"title,omitempty"`
	Version string `json:"version"`
}

// Content is one content block of a tool result: text, or (Type "resource") an embedded
// resource, which is how a bought file travels as bytes.
type Content struct {
	Type     string            `json:"type"`
	Text     string            `json:"text"`
	Resource *ResourceContents `json:"resource,omitempty"`
}

// ResourceContents is an embedded resource: its bytes as base64 in Blob, or Text.
type ResourceContents struct {
	URI      string `json:"uri"`
	MimeType string `json:"mimeType,omitempty"`
	Blob     string `json:"blob,omitempty"`
	Text     string `json:"text,omitempty"`
}

// MarshalJSON sends exactly the fields of the block's type: clients validate content blocks
// by type, and a resource block with a stray "text" would not be one. HTML characters stay
// unescaped, as in the rest of the response.
func (c Content) MarshalJSON() ([]byte, error) {
	if c.Type != "resource" {
		// Every result has a text block: written directly, as encoding/json would write it.
		b := make([]byte, 0, len(c.Type)+len(c.Text)+24)
		b = append(b, `{"type":`...)
		b = appendJSONString(b, c.Type)
		b = append(b, `,"text":`...)
		b = appendJSONString(b, c.Text)
		return append(b, '}'), nil
	}
	b, err := encodeJSON(struct {
		Type     string            `json:"type"`
		Resource *ResourceContents `json:"resource"`
	}{c.Type, c.Resource})
	return bytes.TrimRight(b, "\n"), err
}

// appendJSONString appends s as a JSON string exactly as encoding/json writes it with HTML
// escaping off: quote and backslash escaped, \b \f \n \r \t for those, \u00XX for the other
// control characters, invalid UTF-8 as \ufffd, and U+2028 and U+2029 escaped.
func appendJSONString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			if e := strings.IndexByte("\"\\\b\f\n\r\t", b); e >= 0 {
				dst = append(dst, '\\', "\"\\bfnrt"[e])
			} else {
				dst = append(dst, '\\', 'u', '0', '0', hex[b>>4], hex[b&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// ToolResult is a tools/call result. Outcome is for logs and metrics only ("ok" or the
// failure category) and never goes on the wire. On the modern era a tool may instead ask for
// input (ResultType ResultInputRequired with InputRequests and RequestState, input.go) or
// answer with a JSON-RPC error (Reject).
type ToolResult struct {
	Content           []Content               `json:"content"`
	StructuredContent any                     `json:"structuredContent,omitempty"`
	IsError           bool                    `json:"isError,omitempty"`
	Meta              map[string]any          `json:"_meta,omitempty"`
	ResultType        string                  `json:"resultType,omitempty"`
	InputRequests     map[string]InputRequest `json:"-"`
	RequestState      string                  `json:"-"`
	Reject            *CallError              `json:"-"`
	Outcome           string                  `json:"-"`
	Code              string                  `json:"-"` // the diagnostic's code (e.g. CANCELLED), for the log line
}

// ToolSet is what the protocol layer needs from the tool registry.
type ToolSet interface {
	// Definitions returns every tool definition in a stable order, each compact JSON as
	// encoding/json writes it.
	Definitions() []json.RawMessage
	// Names lists the tool names in the same order.
	Names() []string
	// Call runs a tool; ok is false when no tool has that name. args is nil when the request
	// carried no arguments, and otherwise a JSON object.
	Call(ctx context.Context, name string, args json.RawMessage) (result ToolResult, ok bool)
}

// reqState is the request being served, in one context value that each change copies.
type reqState struct {
	id    string
	entry *entry
	rt    *RoundTrip
}

type stateKey struct{}

func stateOf(ctx context.Context) reqState {
	if st, ok := ctx.Value(stateKey{}).(*reqState); ok {
		return *st
	}
	return reqState{}
}

func withState(ctx context.Context, st reqState) context.Context {
	return context.WithValue(ctx, stateKey{}, &st)
}

// WithRequestID attaches the invocation's correlation id; without one the server makes one up.
func WithRequestID(ctx context.Context, id string) context.Context {
	st := stateOf(ctx)
	st.id = id
	return withState(ctx, st)
}

// RequestID returns the correlation id of the current request, or "".
func RequestID(ctx context.Context) string {
	return stateOf(ctx).id
}

// PromptMessage is one message of a prompts/get result; the endpoint's prompts send text.
type PromptMessage struct {
	Role    string  `json:"role"`
	Content Content `json:"content"`
}

// PromptResult is a prompts/get result.
type PromptResult struct {
	Description string          `json:"description,omitempty"`
	Messages    []PromptMessage `json:"messages"`
}

// PromptArgumentError is a prompts/get argument problem: a required argument that is absent
// or empty, one the prompt does not take, or a value outside the argument's shape. The
// protocol layer answers it with -32602 naming the argument.
type PromptArgumentError struct {
	Argument string   // the argument's name
	Problem  string   // phrase after the path, e.g. "is required"
	Allowed  []string // the arguments the prompt takes
}

func (e *PromptArgumentError) Error() string {
	return "params.arguments." + e.Argument + ": " + e.Problem
}

// PromptSet is what the protocol layer needs from the prompts, as ToolSet is for tools.
type PromptSet interface {
	// Definitions returns every prompt definition in a stable order, ready to marshal.
	Definitions() []json.RawMessage
	// Names lists the prompt names in the same order.
	Names() []string
	// Get renders a prompt; ok is false when no prompt has that name. args holds the string
	// arguments as sent. An argument problem is a *PromptArgumentError.
	Get(name string, args map[string]string) (result PromptResult, ok bool, err error)
}
