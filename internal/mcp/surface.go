package mcp

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/internal/config"
)

// Surface is the tool surface an operator chose (MINDVAULT_TOOLSETS, MINDVAULT_READ_ONLY), which a
// request narrows, never widens, by URL path or headers (docs/operations.md "Toolsets and
// read-only"). A Server without a Surface serves every tool on its one path.
type Surface struct {
	// Tools returns the tools' toolsets and read-only hints. It is called only for a narrowed
	// surface, so a start and a full tools/list (a cold start's first answers) define no tool.
	Tools        func() ToolFacts
	PromptTools  map[string][]string // the tools each prompt names: it is offered only with all of them
	Enabled      []string            // the deployment's toolsets (config.Config.Toolsets); nil enables all
	OnlyReadOnly bool                // config.Config.ReadOnly
	// Instructions describes a narrowed surface: the toolsets that have a tool enabled, in
	// config.Toolsets order, and whether only read-only tools are. nil: Server.Instructions.
	Instructions func(toolsets []string, readOnly bool) string
}

// ToolFacts are what a surface needs to know of each tool.
type ToolFacts struct {
	ToolsetOf map[string]string // each tool's toolset (one of config.Toolsets)
	ReadOnly  map[string]bool   // the tools whose readOnlyHint is true
}

// The settings that narrow a surface, as a disabled tool's error names them.
const (
	settingToolsets = "MINDVAULT_TOOLSETS"
	settingReadOnly = "MINDVAULT_READ_ONLY"
	settingPath     = "URL path"
	headerToolsets  = "X-MindVault-Toolsets"
	headerReadOnly  = "X-MindVault-Read-Only"
	layerDeployment = 0
	layerPath       = 1
	numLayers       = 3 // deployment, URL path, headers
)

var allToolsets = func() uint64 {
	if len(config.Toolsets) > 64 {
		panic("mcp: more toolsets than a view's mask holds")
	}
	return 1<<len(config.Toolsets) - 1
}()

// layer is what one setting allows: a mask over config.Toolsets, and whether only read-only tools.
type layer struct {
	mask     uint64
	readOnly bool
}

var openLayer = layer{mask: allToolsets}

// view is the surface one request sees: each layer and their intersection.
type view struct {
	layers   [numLayers]layer
	path     string // the URL path, for the messages that name it
	mask     uint64
	readOnly bool
	// private: the headers narrowed what the deployment and the URL allow (cacheScope "private").
	private bool
}

// fullView is every tool: a Server without a Surface, or one nothing narrows (viewOf returns no
// other view that offers every tool).
var fullView = &view{layers: [numLayers]layer{openLayer, openLayer, openLayer}, mask: allToolsets}

// viewKey identifies the answers a view shares with every other view of the same surface.
type viewKey struct {
	mask              uint64
	readOnly, private bool
}

func maskOf(toolsets []string) uint64 {
	var m uint64
	for i, t := range config.Toolsets {
		if slices.Contains(toolsets, t) {
			m |= 1 << i
		}
	}
	return m
}

// pathLayer reads <base>, <base>/readonly or <base>/x/<toolsets>[/readonly]: ok is false for any
// other path; problem names a toolset list that does not parse.
func pathLayer(base, p string) (l layer, problem string, ok bool) {
	if p == base {
		return openLayer, "", true
	}
	rest, found := strings.CutPrefix(p, base+"/")
	if !found {
		return layer{}, "", false
	}
	if rest == "readonly" {
		return layer{mask: allToolsets, readOnly: true}, "", true
	}
	list, found := strings.CutPrefix(rest, "x/")
	list, readOnly := strings.CutSuffix(list, "/readonly")
	if !found || list == "" || strings.Contains(list, "/") {
		return layer{}, "", false
	}
	ts, err := config.ParseToolsets(list)
	if err != nil {
		return layer{}, "the URL path " + bounded(p) + ": " + err.Error(), true
	}
	return layer{mask: maskOf(ts), readOnly: readOnly}, "", true
}

// headerLayer reads X-MindVault-Toolsets (repeated headers join) and X-MindVault-Read-Only.
func headerLayer(r *http.Request) (layer, string) {
	l := openLayer
	if vals := r.Header.Values(headerToolsets); len(vals) > 0 {
		ts, err := config.ParseToolsets(strings.Join(vals, ","))
		if err != nil {
			return l, headerToolsets + ": " + err.Error()
		}
		l.mask = maskOf(ts)
	}
	if v := headerValue(r, headerReadOnly); v != "" {
		// false narrows nothing: a header never widens what the deployment or the URL allow
		readOnly, ok := config.ParseBool(v)
		if !ok {
			return l, headerReadOnly + ": must be true or false"
		}
		l.readOnly = readOnly
	}
	return l, ""
}

// viewOf is the surface r sees, or the problem with the settings it sent, answered instead.
func (s *Server) viewOf(r *http.Request) (*view, string) {
	if s.Surface == nil {
		return fullView, ""
	}
	dl := layer{mask: allToolsets, readOnly: s.Surface.OnlyReadOnly}
	if s.Surface.Enabled != nil {
		dl.mask = maskOf(s.Surface.Enabled)
	}
	// requirePath refused any other path, or a toolset list that does not parse, before
	// ServeHTTP; for Offers such a path is the zero layer, which offers nothing.
	pl, _, _ := pathLayer(endpointPath, r.URL.Path)
	hl, problem := headerLayer(r)
	if problem != "" {
		return nil, problem
	}
	before := layer{mask: dl.mask & pl.mask, readOnly: dl.readOnly || pl.readOnly}
	v := &view{layers: [numLayers]layer{dl, pl, hl}, path: r.URL.Path, mask: before.mask & hl.mask, readOnly: before.readOnly || hl.readOnly}
	if v.mask == allToolsets && !v.readOnly {
		return fullView, "" // the common case: nothing narrows
	}
	// What counts is the tools: a narrowing that leaves every tool narrows nothing, and the
	// headers make the lists private only when they take a tool away.
	all := true
	for _, n := range s.Tools.Names() {
		was, is := s.offered(before, n), s.offered(layer{v.mask, v.readOnly}, n)
		all = all && is
		v.private = v.private || (was && !is)
	}
	if all {
		return fullView, ""
	}
	return v, ""
}

func (s *Server) offered(l layer, name string) bool {
	if ts, ok := s.Surface.Tools().ToolsetOf[name]; ok && l.mask&maskOf([]string{ts}) == 0 {
		return false
	}
	return !l.readOnly || s.Surface.Tools().ReadOnly[name]
}

func (s *Server) enabled(v *view, name string) bool {
	return v == fullView || s.offered(layer{v.mask, v.readOnly}, name)
}

// Offers reports whether a request like r may call the tool name: it is registered and its
// surface (deployment, URL path, headers) enables it. The server card asks, to list only the
// tools the deployment serves.
func (s *Server) Offers(r *http.Request, name string) bool {
	if !slices.Contains(s.Tools.Names(), name) {
		return false
	}
	v, problem := s.viewOf(r)
	return problem == "" && s.enabled(v, name)
}

// disabledTool is the -32602 of a registered tool v does not offer, naming the first setting
// (deployment, URL path, headers) that leaves it out.
func (s *Server) disabledTool(v *view, name string) outcome {
	ts := s.Surface.Tools().ToolsetOf[name]
	bit := maskOf([]string{ts}) // 0 for a toolset not known
	data := map[string]any{"code": errmap.CodeForbidden, "disabled": true, "tool": name}
	if ts != "" {
		data["toolset"] = ts
	}
	var why, setting string
	for i, l := range v.layers {
		if bit != 0 && l.mask&bit == 0 {
			setting = [...]string{settingToolsets, settingPath, headerToolsets}[i]
			why = fmt.Sprintf("its toolset %s is not enabled by %s", ts, s.settingPhrase(v, i, setting))
			break
		}
		if l.readOnly && !s.Surface.Tools().ReadOnly[name] {
			setting = [...]string{settingReadOnly, settingPath, headerReadOnly}[i]
			why = fmt.Sprintf("it is not read-only, and %s serves only read-only tools", s.settingPhrase(v, i, setting))
			break
		}
	}
	data["setting"] = setting
	if setting == settingPath {
		data["path"] = bounded(v.path)
	}
	next := "Call a tool that tools/list names here"
	switch setting {
	case settingToolsets, settingReadOnly:
		next += "; only the endpoint's operator can enable more (" + setting + ")"
	case settingPath:
		next += ", or connect at " + endpointPath + ", which serves every tool the deployment enables"
	default:
		next += ", or send the request without the " + setting + " header"
	}
	data["next"] = next + "."
	return fail(http.StatusOK, CodeInvalidParams,
		fmt.Sprintf("Invalid params: params.name: tool %q is disabled here: %s (tools/list names the tools enabled here)", name, why), data)
}

func (s *Server) settingPhrase(v *view, layer int, setting string) string {
	switch layer {
	case layerDeployment:
		if setting == settingReadOnly {
			return settingReadOnly + "=true"
		}
		return setting + "=" + strings.Join(s.Surface.Enabled, ",")
	case layerPath:
		return "the URL path " + bounded(v.path)
	}
	return "the " + setting + " header"
}

// promptBlocked is the first tool the prompt names that v does not offer, "" when v offers them all.
func (s *Server) promptBlocked(v *view, name string) string {
	if v == fullView {
		return ""
	}
	for _, t := range s.Surface.PromptTools[name] {
		if !s.enabled(v, t) {
			return t
		}
	}
	return ""
}

func (s *Server) promptOffered(v *view, name string) bool { return s.promptBlocked(v, name) == "" }

// toolNames and toolDefs are the tools v offers, in the set's order.
func (s *Server) toolNames(v *view) []string {
	return offered(v, s.Tools.Names(), s.Tools.Names(), s.enabled)
}

func (s *Server) toolDefs(v *view) []json.RawMessage {
	return offered(v, s.Tools.Names(), s.Tools.Definitions(), s.enabled)
}

// offered keeps the items (in the order of names) whose name v enables; without a copy for all.
func offered[T any](v *view, names []string, items []T, enabled func(*view, string) bool) []T {
	if v == fullView {
		return items
	}
	out := []T{}
	for i, n := range names {
		if i < len(items) && enabled(v, n) {
			out = append(out, items[i])
		}
	}
	return out
}

func (s *Server) instructions(v *view) string {
	if v == fullView || s.Surface.Instructions == nil {
		return s.Instructions
	}
	var toolsets []string
	for _, ts := range config.Toolsets {
		if slices.ContainsFunc(s.toolNames(v), func(n string) bool { return s.Surface.Tools().ToolsetOf[n] == ts }) {
			toolsets = append(toolsets, ts)
		}
	}
	return s.Surface.Instructions(toolsets, v.readOnly)
}

// String is v for the log line, e.g. "catalog,ops;read-only"; "" for the full surface.
func (v *view) String() string {
	if v == fullView {
		return ""
	}
	var ts []string
	for i, t := range config.Toolsets {
		if v.mask&(1<<i) != 0 {
			ts = append(ts, t)
		}
	}
	out := strings.Join(ts, ",")
	if v.readOnly {
		out += ";read-only"
	}
	return out
}
