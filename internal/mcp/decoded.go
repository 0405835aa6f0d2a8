package mcp

import (
	"bytes"
	"context"
)

// Decoded is a request body read as JSON-RPC by the server's own envelope rules. A layer in
// front of the server that must know what a body asks (inbound auth choosing the scope a call
// needs) decodes it with Decode and passes it on with WithDecoded, so the server answers from
// the same decoding instead of decoding the bytes a second time.
type Decoded struct {
	body       []byte
	req        request
	isResponse bool
	bad        *envelopeError
}

// decodeHook, when set, is called on every envelope decoding; tests count them.
var decodeHook func()

// Decode decodes body as the server will.
func Decode(body []byte) *Decoded {
	if decodeHook != nil {
		decodeHook()
	}
	req, isResponse, bad := decodeEnvelope(body)
	return &Decoded{body: body, req: req, isResponse: isResponse, bad: bad}
}

// CalledTool returns params.name of a tools/call, decoded by the same envelope and params
// rules the server applies, so a layer in front of the server and the server cannot disagree
// about which tool runs. ok is false for any other body: another method, a notification
// (accepted, never run) or a body the server would refuse.
func (d *Decoded) CalledTool() (name string, ok bool) {
	if d.bad != nil || d.isResponse || d.req.ID == nil || d.req.Method != "tools/call" {
		return "", false
	}
	call, failed := parseCallParams(d.req.Params, d.req.Fields)
	if failed != nil {
		return "", false
	}
	return call.name, true
}

// CalledTool is Decode(body).CalledTool().
func CalledTool(body []byte) (name string, ok bool) {
	return Decode(body).CalledTool()
}

type decodedKey struct{}

// WithDecoded returns ctx carrying d for the server to reuse.
func WithDecoded(ctx context.Context, d *Decoded) context.Context {
	return context.WithValue(ctx, decodedKey{}, d)
}

// decodedFor is the decoding of body: the one ctx carries when it was made from these very
// bytes (the server read them again through its body limit, and a decoding of other bytes
// must never answer for them), else a new one.
func decodedFor(ctx context.Context, body []byte) *Decoded {
	if d, ok := ctx.Value(decodedKey{}).(*Decoded); ok && d != nil && bytes.Equal(d.body, body) {
		return d
	}
	return Decode(body)
}
