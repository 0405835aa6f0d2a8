package mcp

import (
	"bytes"
	"encoding/json"
	"net/http"
	"sync"

	"github.com/mindvault/mcp-endpoint/internal/redact"
)

// constKind names an answer that only the request's id changes for the life of a Server; each
// has a form per era (server/discover only the modern one).
type constKind int

const (
	toolsList constKind = iota
	promptsList
	discover
	numConstKinds
)

// constSet holds each kind's answer on the legacy era ([k][0]) and on the modern one ([k][1]).
type constSet [numConstKinds][2]lazyConstant

// lazyConstant is one constant answer, encoded once, on first use, not at start.
type lazyConstant struct {
	once sync.Once
	c    *redact.Constant
}

// constResult is the result object of a constant answer, as the generic path encodes it.
func (s *Server) constResult(v *view, k constKind, modern bool) map[string]any {
	var r map[string]any
	switch k {
	case toolsList:
		r = map[string]any{"tools": s.toolDefs(v)}
	case promptsList:
		r = map[string]any{"prompts": offered(v, s.Prompts.Names(), s.Prompts.Definitions(), s.promptOffered)}
	default:
		r = map[string]any{"supportedVersions": SupportedVersions, "capabilities": s.capabilities(), "instructions": s.instructions(v)}
	}
	if !modern {
		return r
	}
	scope := "public" // "private" for lists the request's headers narrowed
	if v.private {
		scope = "private"
	}
	r["ttlMs"], r["cacheScope"] = s.ListTTL.Milliseconds(), scope
	return s.modernResult(r)
}

// constantOutcome answers with the pre-encoded result of k on the request's era for v (each
// narrowed surface has its own).
func (s *Server) constantOutcome(v *view, k constKind, modern bool) outcome {
	set := &s.consts
	if v != fullView {
		got, _ := s.narrowed.LoadOrStore(viewKey{v.mask, v.readOnly, v.private}, new(constSet))
		set = got.(*constSet)
	}
	lc := &set[k][0]
	if modern {
		lc = &set[k][1]
	}
	lc.once.Do(func() {
		if doc, ok := s.encodeConstant(v, k, modern); ok {
			lc.c = redact.NewConstant(doc)
		}
	})
	if lc.c == nil {
		return outcome{result: s.constResult(v, k, modern)}
	}
	return outcome{constant: lc.c}
}

// toolsPlaceholder stands in for the tool list, which no other JSON the server writes contains.
const toolsPlaceholder = `"\u0000tools\u0000"`

// encodeConstant encodes the result of k as writeJSON would. The tools, compact JSON as
// ToolSet.Definitions says, are joined around the result encoded with a placeholder:
// encoding/json checks every json.RawMessage it writes (0.7 ms of a process's first answer).
func (s *Server) encodeConstant(v *view, k constKind, modern bool) ([]byte, bool) {
	result := s.constResult(v, k, modern)
	var tools json.RawMessage
	if k == toolsList {
		tools = joinDefinitions(s.toolDefs(v))
		result["tools"] = json.RawMessage(toolsPlaceholder)
	}
	doc, err := encodeJSON(result)
	if err != nil {
		return nil, false
	}
	doc = bytes.TrimSuffix(doc, []byte("\n"))
	if tools == nil {
		return doc, true
	}
	if bytes.Count(doc, []byte(toolsPlaceholder)) != 1 {
		return nil, false
	}
	return bytes.Replace(doc, []byte(toolsPlaceholder), tools, 1), true
}

// joinDefinitions is defs as one JSON array, as encoding/json writes compact ones.
func joinDefinitions(defs []json.RawMessage) json.RawMessage {
	out := json.RawMessage{'['}
	for i, d := range defs {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, d...)
	}
	return append(out, ']')
}

// writeConstant writes a constant answer under the request's id, byte for byte and redacted as
// writeJSON would (redact.Constant.Within: a secret across the id and the result withholds it).
func writeConstant(w http.ResponseWriter, e *entry, id json.RawMessage, c *redact.Constant) {
	prefix := make([]byte, 0, 40+len(id))
	prefix = append(prefix, `{"jsonrpc":"2.0",`...)
	if len(id) > 0 {
		buf := bytes.NewBuffer(append(prefix, `"id":`...))
		_ = json.Compact(buf, id) // the envelope's id is valid JSON: it cannot fail
		prefix = append(buf.Bytes(), ',')
	}
	prefix = append(prefix, `"result":`...)
	head, result, tail, ok := c.Within(prefix, []byte("}\n"))
	if !ok {
		withhold(w, e, http.StatusOK)
		return
	}
	writeBody(w, http.StatusOK, head, result, tail)
}
