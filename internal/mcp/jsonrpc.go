package mcp

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// JSON-RPC and MCP error codes used on the wire.
const (
	CodeParseError          = -32700
	CodeInvalidRequest      = -32600
	CodeMethodNotFound      = -32601
	CodeInvalidParams       = -32602
	CodeInternalError       = -32603
	CodeHeaderMismatch      = -32020
	CodeUnsupportedProtocol = -32022
)

// CallError is a JSON-RPC error object, as every error answer carries it; a tool answers a
// tools/call with one (ToolResult.Reject) instead of a result.
type CallError struct {
	Code    int            `json:"code"`
	Message string         `json:"message"`
	Data    map[string]any `json:"data,omitempty"`
}

// response is one JSON-RPC response; ID is omitted when the request's could not be read.
type response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Result  any             `json:"result,omitempty"`
	Error   *CallError      `json:"error,omitempty"`
}

// request is the decoded envelope. Params stays raw until the method is known.
type request struct {
	ID     json.RawMessage // nil for a notification
	Method string
	Params json.RawMessage
	// Meta is params._meta when params is an object.
	Meta map[string]json.RawMessage
	// Fields is params decoded as an object, for tools/call and prompts/get to read.
	Fields map[string]json.RawMessage
}

// decodeEnvelope parses a body into a request, or says which envelope rule it breaks (answered
// with HTTP 400 under req.ID, set when the id could be read). isResponse reports a JSON-RPC
// response object (a client must not POST those, but they are accepted and dropped like
// notifications).
func decodeEnvelope(body []byte) (req request, isResponse bool, bad *CallError) {
	body = bytes.TrimSpace(body)
	invalid := func(msg string) *CallError {
		return &CallError{Code: CodeInvalidRequest, Message: "Invalid Request: " + msg}
	}
	notJSON := &CallError{Code: CodeParseError, Message: "Parse error: the body is not valid JSON"}
	if !utf8.Valid(body) {
		return req, false, notJSON
	}
	if len(body) == 0 || body[0] != '{' {
		if !json.Valid(body) {
			return req, false, notJSON
		}
		return req, false, invalid("the body must be one JSON-RPC request object (batches are not supported)")
	}
	// Unmarshal checks the whole body before decoding it, so invalid JSON is its only error (the
	// body is an object): one pass over the body instead of a separate json.Valid.
	var env map[string]json.RawMessage
	if json.Unmarshal(body, &env) != nil {
		return req, false, notJSON
	}
	// One walk over the body for keys given twice; tools/call's arguments are the tool's to check.
	outside, inside, idTwice := scanDuplicateKeys(body, isString(env["method"], "tools/call"))
	id, hasID := env["id"]
	if outside != nil {
		if hasID && !idTwice && validID(id) {
			req.ID = id
		}
		return req, false, invalid(dupMessage(outside))
	}
	if hasID && !validID(id) {
		return req, false, invalid("id must be a string or a number")
	}
	if hasID {
		req.ID = id
	}
	if v, ok := env["jsonrpc"]; !ok || string(bytes.TrimSpace(v)) != `"2.0"` {
		return req, false, invalid(`jsonrpc must be "2.0"`)
	}
	m, hasMethod := env["method"]
	if !hasMethod {
		_, hasResult := env["result"]
		_, hasErr := env["error"]
		if hasID && (hasResult || hasErr) {
			return req, true, nil
		}
		return req, false, invalid("method is required")
	}
	if err := json.Unmarshal(m, &req.Method); err != nil || len(m) == 0 || m[0] != '"' {
		return req, false, invalid("method must be a string")
	}
	if p, ok := env["params"]; ok {
		p = bytes.TrimSpace(p)
		if len(p) == 0 || (p[0] != '{' && p[0] != '[') {
			return req, false, invalid("params must be an object")
		}
		if inside != nil {
			return req, false, &CallError{Code: CodeInvalidParams, Message: "Invalid params: " + dupMessage(inside)}
		}
		req.Params = p
		if p[0] == '{' {
			// Only these methods read named params; the others need _meta at most.
			named := req.Method == "tools/call" || req.Method == "prompts/get"
			req.Fields, req.Meta = decodeParams(p, named)
		}
	}
	return req, false, nil
}

// isString reports whether raw is the JSON string want, however it is escaped.
func isString(raw json.RawMessage, want string) bool {
	if string(raw) == `"`+want+`"` {
		return true
	}
	var s string
	return bytes.IndexByte(raw, '\\') >= 0 && json.Unmarshal(raw, &s) == nil && s == want
}

func validID(id json.RawMessage) bool {
	id = bytes.TrimSpace(id)
	return len(id) > 0 && (id[0] == '"' || id[0] == '-' || (id[0] >= '0' && id[0] <= '9'))
}

// decodeParams decodes an object params once: its fields when named, and _meta as encoding/json
// would into a field tagged "_meta" (any case). Without escapes, no "_meta" key in any case
// means no _meta, and one that is the field "_meta" is its value; otherwise a struct decodes it.
func decodeParams(p []byte, named bool) (fields, meta map[string]json.RawMessage) {
	plain := bytes.IndexByte(p, '\\') < 0
	keys := countMetaKeys(p)
	if named {
		_ = json.Unmarshal(p, &fields)
		if raw, ok := fields["_meta"]; ok && plain && keys == 1 {
			if json.Unmarshal(raw, &meta) != nil {
				return fields, nil
			}
			return fields, meta
		}
	}
	if plain && keys == 0 {
		return fields, nil
	}
	var params struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if json.Unmarshal(p, &params) == nil {
		meta = params.Meta
	}
	return fields, meta
}

// countMetaKeys counts the occurrences of "_meta" (quotes included) in any ASCII case. No
// other spelling decodes to that key without an escape: Unicode's special case folds are for
// k and s.
func countMetaKeys(p []byte) int {
	n := 0
	for i := 0; i+7 <= len(p); i++ {
		if p[i] == '"' && p[i+1] == '_' && p[i+6] == '"' &&
			p[i+2]|0x20 == 'm' && p[i+3]|0x20 == 'e' && p[i+4]|0x20 == 't' && p[i+5]|0x20 == 'a' {
			n++
		}
	}
	return n
}
