package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mindvault/mcp-endpoint/validate"
)

// decodeEnvelopeReference is decodeEnvelope as it was before it saved a pass over the body and
// the decoding of params._meta when there can be none (the key in any case, or an escape),
// with the duplicate keys found and sorted by its own walk of encoding/json's tokens
// (referenceDuplicates), not by the scanner and the classification under test.
func decodeEnvelopeReference(body []byte) (req request, isResponse bool, bad *CallError) {
	body = bytes.TrimSpace(body)
	if !utf8.Valid(body) || !json.Valid(body) {
		return req, false, &CallError{Code: CodeParseError, Message: "Parse error: the body is not valid JSON"}
	}
	if body[0] != '{' {
		return req, false, &CallError{Code: CodeInvalidRequest, Message: "Invalid Request: the body must be one JSON-RPC request object (batches are not supported)"}
	}
	var env map[string]json.RawMessage
	if err := json.Unmarshal(body, &env); err != nil {
		return req, false, &CallError{Code: CodeInvalidRequest, Message: "Invalid Request: the body must be a JSON object"}
	}
	var method string
	_ = json.Unmarshal(env["method"], &method)
	outside, inside, idTwice := referenceDuplicates(body, method == "tools/call" && bytes.HasPrefix(env["method"], []byte(`"`)))
	id, hasID := env["id"]
	if outside != nil {
		if hasID && !idTwice && validID(id) {
			req.ID = id
		}
		return req, false, &CallError{Code: CodeInvalidRequest, Message: "Invalid Request: " + dupMessage(outside)}
	}
	if hasID && !validID(id) {
		return req, false, &CallError{Code: CodeInvalidRequest, Message: "Invalid Request: id must be a string or a number"}
	}
	if hasID {
		req.ID = id
	}
	if v, ok := env["jsonrpc"]; !ok || string(bytes.TrimSpace(v)) != `"2.0"` {
		return req, false, &CallError{Code: CodeInvalidRequest, Message: `Invalid Request: jsonrpc must be "2.0"`}
	}
	m, hasMethod := env["method"]
	if !hasMethod {
		_, hasResult := env["result"]
		_, hasErr := env["error"]
		if hasID && (hasResult || hasErr) {
			return req, true, nil
		}
		return req, false, &CallError{Code: CodeInvalidRequest, Message: "Invalid Request: method is required"}
	}
	if err := json.Unmarshal(m, &req.Method); err != nil || len(m) == 0 || m[0] != '"' {
		return req, false, &CallError{Code: CodeInvalidRequest, Message: "Invalid Request: method must be a string"}
	}
	if p, ok := env["params"]; ok {
		p = bytes.TrimSpace(p)
		if len(p) == 0 || (p[0] != '{' && p[0] != '[') {
			return req, false, &CallError{Code: CodeInvalidRequest, Message: "Invalid Request: params must be an object"}
		}
		if inside != nil {
			return req, false, &CallError{Code: CodeInvalidParams, Message: "Invalid params: " + dupMessage(inside)}
		}
		req.Params = p
		if p[0] == '{' {
			var params struct {
				Meta map[string]json.RawMessage `json:"_meta"`
			}
			if json.Unmarshal(p, &params) == nil {
				req.Meta = params.Meta
			}
		}
	}
	return req, false, nil
}

// referenceDuplicates walks body's tokens: the first key repeating an earlier key of its
// object outside params and inside it (the envelope's and params' own keys compared ignoring
// case too, params.arguments skipped when skipArguments), and whether the envelope names id twice.
func referenceDuplicates(body []byte, skipArguments bool) (outside, inside *validate.Dup, idTwice bool) {
	dec := json.NewDecoder(bytes.NewReader(body))
	var path []validate.Step
	// walk reads one value; underParams: it is params or within it; folds: its keys compare
	// ignoring case too (the envelope and params themselves).
	var walk func(underParams, folds, top bool)
	walk = func(underParams, folds, top bool) {
		tok, err := dec.Token()
		if d, ok := tok.(json.Delim); err != nil || !ok {
			return
		} else if d == '[' {
			for i := 0; dec.More(); i++ {
				path = append(path, validate.Step{Index: i})
				walk(underParams, false, false)
				path = path[:len(path)-1]
			}
			_, _ = dec.Token()
			return
		}
		var keys []string
		reported := map[int]bool{}
		for dec.More() {
			kt, _ := dec.Token()
			k := kt.(string)
			path = append(path, validate.Step{Key: k, Index: -1})
			for j, o := range keys {
				if (o == k || folds && strings.EqualFold(o, k)) && !reported[j] {
					reported[j] = true
					dup := &validate.Dup{Path: slices.Clone(path), Folded: o != k}
					switch {
					case underParams && inside == nil:
						inside = dup
					case !underParams && outside == nil:
						outside = dup
					}
					idTwice = idTwice || top && strings.EqualFold(k, "id")
					break
				}
			}
			keys = append(keys, k)
			switch {
			case top && k == "params":
				walk(true, true, false)
			case underParams && folds && skipArguments && k == "arguments":
				var skipped json.RawMessage
				_ = dec.Decode(&skipped)
			default:
				walk(underParams, false, false)
			}
			path = path[:len(path)-1]
		}
		_, _ = dec.Token()
	}
	walk(false, true, true)
	return outside, inside, idTwice
}

var envelopeSeeds = []string{
	``, ` `, `{`, `}`, `[]`, `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, `"x"`, `1`, `null`, `{}`, `{"jsonrpc":"2.0"}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, `{"jsonrpc":"2.0","id":1,"method":"tools/list"} x`,
	`{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"x","arguments":{}}}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"\u005fmeta":{"io.modelcontextprotocol\/protocolVersion":"2026-07-28"}}}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":5}}`,
	// A member named params in another case is not params: its duplicates are the envelope's.
	`{"jsonrpc":"2.0","id":1,"method":"x","Params":{"a":1,"a":2}}`,
	`{"jsonrpc":"2.0","id":1,"ID":2,"method":"x"}`,
	`{"jsonrpc":"2.0","id":1,"method":"x","params":{"_META":{"a":1}}}`, `{"jsonrpc":"2.0","id":1,"method":"x","params":{"_mEtA":{"a":1}}}`,
	`{"jsonrpc":"2.0","id":1,"method":"x","params":{"_met@":{"a":1}}}`,
	`{"jsonrpc":"2.0","id":1,"method":"x","params":{"_meta":{"a":1},"_meta":{"b":2}}}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"a":1},"_meta":{"b":2}}}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_MEta":{"a":1},"name":"t"}}`,
	`{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"_meta":5,"name":"_meta"}}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"a":1},"name":"x","arguments":{}}}`,
	`{"jsonrpc":"2.0","id":1,"method":"x","params":{"_meta":{"a":1},"_Meta":{"b":2}}}`,
	`{"jsonrpc":"2.0","id":1,"method":"x","params":{"name":"_meta"}}`, `{"jsonrpc":"2.0","id":1,"method":"x","params":{"name":"_META","_meta":{"a":1}}}`,
	`{"jsonrpc":"2.0","id":1,"method":"x","params":{"_meta":null}}`, `{"jsonrpc":"2.0","id":1,"method":"x","params":{"_meta":{"a":1,"a":2}}}`, `{"jsonrpc":"2.0","id":1,"method":"x","params":[1]}`,
	`{"jsonrpc":"2.0","id":1,"method":"x","params":"s"}`, `{"jsonrpc":"2.0","id":null,"method":"x"}`, `{"jsonrpc":"2.0","id":1,"result":{}}`,
	`{"jsonrpc":"2.0","method":"notifications/initialized"}`, `{"jsonrpc":"1.0","id":1,"method":"x"}`, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\"}",
	`{"jsonrpc":"2.0","id":1,"method":7}`, `{"a":` + "[" + `}`,
	// Keys given twice: in the envelope, in params, inside tools/call's arguments (the tool's),
	// escaped, in another case, in arrays, in a large object, the id.
	`{"jsonrpc":"2.0","id":1,"method":"x","method":"y"}`, `{"jsonrpc":"2.0","id":1,"id":1,"method":"x"}`, `{"jsonrpc":"2.0","ID":1,"id":1,"method":"x"}`,
	`{"jsonrpc":"2.0","id":1,"Method":"x","method":"y"}`, `{"jsonrpc":"2.0","id":1,"method":"x","extra":{"a":[{"b":1,"b":2}]}}`,
	`{"jsonrpc":"2.0","id":1,"result":{"a":1,"a":2}}`, `{"jsonrpc":"2.0","id":{"a":1,"a":2},"method":"x"}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","name":"b"}}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","n\u0061me":"b"}}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","NAME":"b"}}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","\u212Aey":1,"key":2}}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","arguments":{"x":1,"x":2}}}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools\/call","params":{"name":"a","arguments":{"x":1,"x":2}}}`,
	`{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"a","arguments":{"x":1,"x":2}}}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","arguments":{"x":1},"arguments":{}}}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","x":{"arguments":{"k":1,"k":2}}}}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","p\u0061rams":{"name":"a","arguments":{"x":1,"x":2}}}`,
	`{"jsonrpc":"2.0","id":1,"method":"x","params":[{"a":1},{"a":1,"a":2}]}`,
	`{"jsonrpc":"2.0","id":1,"method":"x","params":{"a\"b":1,"a\"b":2}}`, `{"jsonrpc":"2.0","id":1,"method":"x","params":{"a\\":{"k":1,"k":2}}}`,
	`{"jsonrpc":"2.0","id":1,"method":"x","params":{"\ud800":1,"\udc00":2}}`,
	`{"jsonrpc":"2.0","id":1,"method":"x","params":{"_meta":{"a":{"a":1}},"x":{"a":1,"b":1,"a":1}}}`,
	`{"jsonrpc":"2.0","id":1,"method":"x","params":` + manyKeys(40, "k7") + `}`,
	`{"jsonrpc":"2.0","id":1,"method":"x","params":` + manyKeys(40, "K39") + `}`,
	`{"jsonrpc":"2.0","id":1,"method":"x","params":{"o":` + manyKeys(40, "k7") + `}}`,
	`{"jsonrpc":"2.0","id":1,"method":"x","params":{"o":` + manyKeys(40, "") + `}}`,
	`{"jsonrpc":"2.0","id":1,"method":"x","params":{"name":"a","name":"b"},"method":"y"}`,
}

// manyKeys is an object of n keys k0..k(n-1), then extra once more (unless empty).
func manyKeys(n int, extra string) string {
	var b strings.Builder
	b.WriteString("{")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, `"k%d":%d,`, i, i)
	}
	if extra != "" {
		fmt.Fprintf(&b, `%q:0,`, extra)
	}
	b.WriteString(`"last":0}`)
	return b.String()
}

func checkEnvelopeAsReference(t *testing.T, body []byte) {
	req, isResp, bad := decodeEnvelope(body)
	wreq, wisResp, wbad := decodeEnvelopeReference(body)
	// Fields is what decoding the params as an object gives, for the readers of named params.
	var fields map[string]json.RawMessage
	if len(wreq.Params) > 0 && wreq.Params[0] == '{' && wbad == nil && (wreq.Method == "tools/call" || wreq.Method == "prompts/get") {
		_ = json.Unmarshal(wreq.Params, &fields)
	}
	if fmt.Sprintf("%q", req.Fields) != fmt.Sprintf("%q", fields) {
		t.Fatalf("%q: fields %q, want %q", body, req.Fields, fields)
	}
	if fmt.Sprintf("%q %q %q %v %v", req.ID, req.Method, req.Params, req.Meta, isResp) != fmt.Sprintf("%q %q %q %v %v", wreq.ID, wreq.Method, wreq.Params, wreq.Meta, wisResp) ||
		fmt.Sprint(bad) != fmt.Sprint(wbad) {
		t.Fatalf("%q:\n got  %+v %v %+v\n want %+v %v %+v", body, req, isResp, bad, wreq, wisResp, wbad)
	}
}

// TestEnvelopeAsReference: the envelope decoder classifies and decodes every body as it did
// when it checked the JSON in a pass of its own and always decoded params._meta.
func TestEnvelopeAsReference(t *testing.T) {
	for _, s := range envelopeSeeds {
		checkEnvelopeAsReference(t, []byte(s))
	}
}

func FuzzEnvelopeAsReference(f *testing.F) {
	for _, s := range envelopeSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) { checkEnvelopeAsReference(t, body) })
}
