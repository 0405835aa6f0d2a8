package mcp

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/internal/obs"
	"github.com/mindvault/mcp-endpoint/internal/redact"
)

// _meta keys of the 2026-07-28 revision.
const (
	metaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	metaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	metaServerInfo         = "io.modelcontextprotocol/serverInfo"
)

// legacyVersions are the initialize-based revisions served.
var legacyVersions = []string{Version20251125, Version20250618}

// dispatch serves a request on its era: the 2026-07-28 checks come first, in the order of
// docs/protocol.md "Modern requests"; the initialize-based revisions have no session, so a
// request without the version header is served as 2025-11-25 rather than rejected.
func (s *Server) dispatch(ctx context.Context, r *http.Request, req request, e *entry, v *view) outcome {
	header := headerValue(r, "Mcp-Protocol-Version")
	_, metaVersion := req.Meta[metaProtocolVersion]
	modern := metaVersion || (isRevision(header) && header >= Version20260728)
	notFound := http.StatusOK
	e.era = "legacy"
	if modern {
		e.era, notFound = "modern", http.StatusNotFound
		if bad := modernChecks(r, req, header); bad != nil {
			return *bad
		}
	} else if req.Method != "initialize" && header != "" && !slices.Contains(legacyVersions, header) {
		return fail(http.StatusBadRequest, CodeInvalidRequest,
			"Bad Request: unsupported MCP-Protocol-Version header",
			map[string]any{"supported": SupportedVersions, "requested": bounded(header)})
	}
	var call callParams
	if req.Method == "tools/call" || (req.Method == "prompts/get" && s.Prompts != nil) {
		var bad *outcome
		call, bad = parseCallParams(req)
		// Both methods name their target in params.name, which the modern Mcp-Name header repeats.
		if n := headerValue(r, "Mcp-Name"); modern && (n == "" || n != call.name) {
			return fail(http.StatusBadRequest, CodeHeaderMismatch, "Header mismatch: the Mcp-Name header must equal params.name", nil)
		}
		if bad != nil {
			return *bad
		}
		if modern {
			rt, bad := roundTripOf(req.Meta, req.Fields)
			if bad != nil {
				return *bad
			}
			st := stateOf(ctx)
			st.rt = &rt
			ctx = withState(ctx, st)
		}
	}
	switch m := req.Method; {
	case m == "initialize" && !modern:
		var p struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		_ = json.Unmarshal(req.Params, &p)
		version := Version20251125
		if slices.Contains(legacyVersions, p.ProtocolVersion) {
			version = p.ProtocolVersion
		}
		return outcome{result: map[string]any{
			"protocolVersion": version,
			"capabilities":    s.capabilities(),
			"serverInfo":      s.Info,
			"instructions":    s.instructions(v),
		}}
	case m == "ping" && !modern:
		return outcome{result: map[string]any{}}
	case m == "server/discover" && modern:
		return s.constantOutcome(v, discover, true)
	case m == "tools/list":
		return s.constantOutcome(v, toolsList, modern)
	case m == "tools/call":
		return s.callTool(ctx, call, e, v, modern)
	case s.Prompts == nil:
	case m == "prompts/list":
		return s.constantOutcome(v, promptsList, modern)
	case m == "prompts/get":
		out := s.getPrompt(ctx, call, e, v)
		if modern && out.err == nil {
			out.result = s.modernResult(out.result.(map[string]any))
		}
		return out
	}
	return fail(notFound, CodeMethodNotFound, "Method not found: "+bounded(req.Method), nil)
}

func modernChecks(r *http.Request, req request, header string) *outcome {
	bad := func(code int, msg string, data map[string]any) *outcome {
		o := fail(http.StatusBadRequest, code, msg, data)
		return &o
	}
	var version string
	pv, hasPV := req.Meta[metaProtocolVersion]
	if !hasPV || json.Unmarshal(pv, &version) != nil || version == "" {
		return bad(CodeInvalidParams, "Invalid params: params._meta[\""+metaProtocolVersion+"\"] is required and must be a string", nil)
	}
	caps := bytes.TrimSpace(req.Meta[metaClientCapabilities])
	if len(caps) == 0 || caps[0] != '{' {
		return bad(CodeInvalidParams, "Invalid params: params._meta[\""+metaClientCapabilities+"\"] is required and must be an object", nil)
	}
	if header == "" {
		return bad(CodeHeaderMismatch, "Header mismatch: the MCP-Protocol-Version header is required", nil)
	}
	if header != version {
		return bad(CodeHeaderMismatch, "Header mismatch: MCP-Protocol-Version does not match params._meta protocolVersion", nil)
	}
	if version != Version20260728 {
		return bad(CodeUnsupportedProtocol, "Unsupported protocol version (2025 revisions start with initialize)",
			map[string]any{"supported": SupportedVersions, "requested": bounded(version)})
	}
	if m := headerValue(r, "Mcp-Method"); m != req.Method {
		return bad(CodeHeaderMismatch, "Header mismatch: the Mcp-Method header must equal the request method", nil)
	}
	return nil
}

// capabilities declares exactly the method families served, so none a client calls is -32601.
func (s *Server) capabilities() map[string]any {
	c := map[string]any{"tools": map[string]any{}}
	if s.Prompts != nil {
		c["prompts"] = map[string]any{}
	}
	return c
}

func (s *Server) modernResult(fields map[string]any) map[string]any {
	fields["resultType"] = "complete"
	fields["_meta"] = map[string]any{metaServerInfo: s.Info}
	return fields
}

// callParams is a tools/call params object that passed the CallToolRequest schema.
type callParams struct {
	name string // params.name ("" when absent or not a string)
	args json.RawMessage
}

// parseCallParams applies the CallToolRequest schema (-32602 naming the path); what is inside
// arguments is the tool's business.
func parseCallParams(req request) (c callParams, bad *outcome) {
	if len(req.Params) == 0 || req.Params[0] != '{' {
		return c, invalidParams("Invalid params: params: must be an object with name and arguments")
	}
	rawName, ok := req.Fields["name"] // the envelope decoded an object params for this method
	if !ok {
		return c, invalidParams("Invalid params: params.name: is required")
	}
	_ = json.Unmarshal(rawName, &c.name) // stays "" unless a string
	if len(rawName) == 0 || rawName[0] != '"' {
		return c, invalidParams("Invalid params: params.name: must be a string")
	}
	if a, ok := req.Fields["arguments"]; ok {
		a = bytes.TrimSpace(a)
		if len(a) == 0 || a[0] != '{' {
			return c, invalidParams("Invalid params: params.arguments: must be an object")
		}
		c.args = a
	}
	return c, nil
}

func (s *Server) callTool(ctx context.Context, c callParams, e *entry, v *view, modern bool) outcome {
	e.tool = c.name
	// The metric dimension is closed: a registered name, or "unknown" for anything else the
	// caller sent, so a caller cannot mint metrics.
	e.metric = obs.Unknown
	if slices.Contains(s.Tools.Names(), c.name) {
		e.metric = c.name
		if !s.enabled(v, c.name) {
			return s.disabledTool(v, c.name) // never "unknown tool": it exists, elsewhere
		}
		if s.Admit != nil {
			if refusal := s.Admit(ctx, c.name); refusal != nil {
				return outcome{refusal: refusal}
			}
		}
	}
	return s.safely(ctx, e, func() outcome {
		if _, has := ctx.Deadline(); s.CallTimeout > 0 && !has {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, s.CallTimeout)
			defer cancel()
		}
		res, ok := s.Tools.Call(ctx, c.name, c.args)
		if !ok {
			// The message names the suggestions too: some clients show only the message.
			sug := suggest(bounded(c.name), s.toolNames(v))
			hint := "tools/list names every tool"
			if len(sug) > 0 {
				hint = "did you mean " + strings.Join(sug, " or ") + "?"
			}
			return fail(http.StatusOK, CodeInvalidParams,
				fmt.Sprintf("Invalid params: params.name: unknown tool %q (%s)", bounded(c.name), hint),
				map[string]any{"code": errmap.CodeUnknownName, "suggestions": sug})
		}
		e.outcome, e.code = res.Outcome, res.Code
		if res.Reject != nil {
			return fail(http.StatusOK, res.Reject.Code, res.Reject.Message, res.Reject.Data)
		}
		if res.ResultType == ResultInputRequired {
			if !modern {
				// The initialize-based revisions have no InputRequiredResult: a tool that asks
				// there is a bug, answered as one rather than sent to a client that cannot read it.
				panic("tool " + c.name + " asked for input on the legacy era")
			}
			return outcome{result: inputRequiredResult{ResultType: ResultInputRequired, InputRequests: res.InputRequests,
				RequestState: res.RequestState, Meta: map[string]any{metaServerInfo: s.Info}}}
		}
		if modern {
			res.ResultType = "complete"
			meta := make(map[string]any, len(res.Meta)+1)
			maps.Copy(meta, res.Meta)
			meta[metaServerInfo] = s.Info
			res.Meta = meta
		}
		return outcome{result: res}
	})
}

// headerValue reads a header, trimmed, decoding the =?base64?...?= form of non-ASCII values.
func headerValue(r *http.Request, name string) string {
	v := strings.TrimSpace(r.Header.Get(name))
	if inner, ok := strings.CutPrefix(v, "=?base64?"); ok {
		if enc, ok := strings.CutSuffix(inner, "?="); ok {
			if dec, err := base64.StdEncoding.DecodeString(enc); err == nil && utf8.Valid(dec) {
				return string(dec)
			}
		}
	}
	return v
}

// isRevision reports a YYYY-MM-DD revision, so a stray header is never compared as a date.
func isRevision(v string) bool {
	if len(v) != 10 {
		return false
	}
	_, err := time.Parse(time.DateOnly, v)
	return err == nil
}

// bounded keeps caller-supplied strings short and printable before they are echoed; known
// secrets go first, so the cut cannot leave half of one for the output boundary to miss.
func bounded(s string) string {
	const max = 128
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return -1
		}
		return r
	}, strings.ToValidUTF8(redact.Exact(s), ""))
	return cutAt(s, max)
}

// cutAt cuts s to at most max bytes on a rune boundary, marking the cut with "…".
func cutAt(s string, max int) string {
	if len(s) <= max {
		return s
	}
	for max > 0 && !utf8.RuneStart(s[max]) {
		max--
	}
	return s[:max] + "…"
}
