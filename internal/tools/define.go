package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/internal/auth"
	"github.com/mindvault/mcp-endpoint/internal/config"
	"github.com/mindvault/mcp-endpoint/internal/mcp"
	"github.com/mindvault/mcp-endpoint/internal/redact"
	"github.com/mindvault/mcp-endpoint/requests"
	"github.com/mindvault/mcp-endpoint/validate"
)

// Hints are the MCP tool annotations: the display title (set by Define) and the four hints, always sent.
type Hints struct {
	Title       string `json:"title,omitempty"`
	ReadOnly    bool   `json:"readOnlyHint"`
	Destructive bool   `json:"destructiveHint"`
	Idempotent  bool   `json:"idempotentHint"`
	OpenWorld   bool   `json:"openWorldHint"`
}

// Definition is a tool's public definition as sent in tools/list.
type Definition struct {
	Name         string          `json:"name"`
	Title        string          `json:"title"`
	Description  string          `json:"description"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema"`
	Annotations  Hints           `json:"annotations"`
}

// Spec declares one tool: Req is its request model, Out its output; Define binds it to Deps.
type Spec[Req, Out any] struct {
	Name  string
	Title string
	// Operation is line 1's label of every failure, e.g. "Browse failed".
	Operation string
	// Description is what agents read to choose the tool; Define folds its white space.
	Description string
	// Toolset is the one toolset (config.Toolsets) the tool belongs to.
	Toolset string
	Kind
	// Guide is what the Next line of the tool's failures needs (errmap.Guide).
	Guide errmap.Guide
	// DryRun is what a dry run does to the mainnet policy (policy.go).
	DryRun DryRun
	Run    func(ctx context.Context, c *Call, req *Req) (*Out, error)
}

// NoInput is the request of a tool that takes no arguments.
type NoInput struct{}

// Kind is what a tool reads and what it may change (lookup, introspection, action, paying).
type Kind struct {
	// Source is the default failure source when a handler error carries none.
	Source errmap.Source
	Hints  Hints
	// Mainnet is the mainnet confirmation Define enforces (policy.go).
	Mainnet Mainnet
	// Scope is the OAuth scope a call needs, declared with the kind so the two cannot drift.
	Scope string
}

// lookup reads source (and maybe other services) and changes nothing.
func lookup(source errmap.Source) Kind {
	return Kind{Source: source, Hints: Hints{ReadOnly: true, Idempotent: true, OpenWorld: true}, Scope: auth.ScopeRead}
}

// introspection reads only the endpoint's own configuration or credential store.
func introspection(source errmap.Source) Kind {
	return Kind{Source: source, Hints: Hints{ReadOnly: true, Idempotent: true}, Scope: auth.ScopeRead}
}

// action changes state through source; on mainnet it needs the confirmation.
func action(source errmap.Source) Kind {
	return Kind{Source: source, Hints: Hints{OpenWorld: true}, Mainnet: ConfirmRequired, Scope: auth.ScopeWrite}
}

// paying is an action that pays USDC (annotations cannot say so): it needs the spend scope.
func paying(source errmap.Source) Kind {
	k := action(source)
	k.Scope = auth.ScopeSpend
	return k
}

// Tool is one registered tool.
type Tool struct {
	def       Definition      // without the schemas, which only encoded carries
	encoded   json.RawMessage // the tools/list entry, generated at build time
	args      []string
	model     *validate.Model
	kind      Kind   // its source, mainnet policy and scope
	dryRun    DryRun // what a dry run does to the mainnet policy
	toolset   string
	operation string
	config    *config.Config
	call      func(ctx context.Context, args json.RawMessage) mcp.ToolResult
}

// Scope is the OAuth scope a call of the tool needs.
func (t *Tool) Scope() string { return t.kind.Scope }

// Toolset is the toolset the tool belongs to.
func (t *Tool) Toolset() string { return t.toolset }

// Definition returns the public definition, decoded from its tools/list entry on each call (docs and tests).
func (t *Tool) Definition() (d Definition) {
	_ = json.Unmarshal(t.encoded, &d)
	return d
}

// Name is the tool's name.
func (t *Tool) Name() string { return t.def.Name }

// Hints returns the tool's annotations.
func (t *Tool) Hints() Hints { return t.def.Annotations }

// Model returns the tool's validation model.
func (t *Tool) Model() *validate.Model { return t.model }

// Define builds the Tool of a Spec whose Run is given a Call of d; it panics on a Spec the
// registry cannot list, which the registry tests catch. tools/list sends the definition
// generated at build time (definitions_gen.go, `go generate ./internal/tools/`), so a cold
// start reflects no schemas; the request model is compiled here, so a rule validate cannot
// check fails when the tools are defined rather than on a call.
func (s Spec[Req, Out]) Define(d *Deps) *Tool { return defineAs(d, s, generatedDefinition(s.Name)) }

// defineAs is Define with the tools/list entry given: tests define tools that are not generated.
func defineAs[Req, Out any](d *Deps, s Spec[Req, Out], encoded string) *Tool {
	defines.Add(1)
	model := validate.For[Req]()
	t := define(&Tool{
		def: Definition{Name: s.Name, Title: s.Title, Description: strings.Join(strings.Fields(s.Description), " "),
			Annotations: s.Hints},
		encoded: json.RawMessage(encoded), model: model, args: model.Names(),
		operation: s.Operation, kind: s.Kind, dryRun: s.DryRun, toolset: s.Toolset, config: d.Config,
	}, new(Req))
	run := s.Run
	t.call = func(ctx context.Context, raw json.RawMessage) mcp.ToolResult {
		req, issues := validate.Decode[Req](raw)
		if issues != nil {
			return errorResult(errmap.Validation(t.def.Name, issues, t.args, corrected(t.def.Name, raw, issues, t.args, validates[Req])))
		}
		return t.invoke(ctx, d, req, func(call *Call) (any, error) {
			if t.kind.Mainnet == ConfirmRequired {
				if err := mainnetConfirmation(call.confirmation, t.config, t.dryRun, req); err != nil {
					return nil, err
				}
			}
			return run(ctx, call, req)
		})
	}
	return t
}

// define completes the part of a Tool that does not depend on its types; req is a new request.
func define(t *Tool, req any) *Tool {
	name := t.def.Name
	t.def.Annotations.Title = t.def.Title
	_, confirmer := req.(requests.MainnetConfirmer)
	_, dryRunner := req.(requests.DryRunner)
	if _, acting := req.(requests.Acting); !acting && t.kind.Mainnet == ConfirmRequired && slices.Contains(t.args, "profile") {
		// A confirmation would bind the default profile while the call acts for another.
		panic("tool " + name + ": its request takes a profile but does not implement requests.Acting")
	}
	if len(t.encoded) == 0 {
		panic(fmt.Sprintf("tool %s has no generated definition: run go generate ./internal/tools/", name))
	}
	if err := checkPolicy(t.kind.Mainnet, t.dryRun, t.config, t.args, confirmer, dryRunner); err != nil {
		panic(fmt.Sprintf("tool %s: %v", name, err))
	}
	if !slices.Contains(config.Toolsets, t.toolset) {
		panic(fmt.Sprintf("tool %s: toolset %q is not one of %v", name, t.toolset, config.Toolsets))
	}
	return t
}

// invoke runs a validated request as one Call of d, the user's confirmation around run.
func (t *Tool) invoke(ctx context.Context, d *Deps, req any, run func(*Call) (any, error)) mcp.ToolResult {
	call := &Call{Deps: d, caller: auth.Caller(ctx)}
	name := t.def.Name
	if t.kind.Mainnet == ConfirmRequired {
		if stop := beginConfirmation(ctx, call, name, t.operation, req); stop != nil {
			return *stop
		}
	}
	res, err := run(call)
	if ask, ok := call.asked(t.operation, name); ok {
		return ask
	}
	if err != nil {
		if t.def.Annotations.ReadOnly {
			err = readStarted(err)
		}
		return errorResult(errmap.FromError(err, errmap.Call{Guides: Guides(),
			Operation: t.operation, Tool: name, Source: t.kind.Source, Secrets: call.secretValues(),
			// The caller went away (not a deadline): CANCELLED, never a TIMEOUT.
			Cancelled: errors.Is(ctx.Err(), context.Canceled),
		}))
	}
	out := successResult(res, redact.Unregistered(call.secretValues()), t.operation, name)
	if x, ok := res.(extraContent); ok && !out.IsError {
		out.Content = append(out.Content, x.extraContent()...)
	}
	return out
}

// extraContent is an output with content blocks after its JSON (a bought file or text).
type extraContent interface{ extraContent() []mcp.Content }

// readStarted marks a read-only tool's downstream failure as started: its operation is its
// downstream requests (writes and payments are marked by their clients).
func readStarted(err error) error {
	f, _ := errmap.FactsOf(err)
	switch f.Source {
	case errmap.SourceAPI, errmap.SourceX402, errmap.SourceHorizon, errmap.SourceRPC,
		errmap.SourceRegistry, errmap.SourceSponsor:
		return errmap.MarkStarted(err)
	}
	return err
}

// successResult encodes out once for both blocks. The protocol layer removes registered
// secrets from the whole answer; only the call's own secrets the bounded registry refused
// (extra) are removed here. A result that cannot be cleaned is withheld: the tool ran, so its
// effect is unknown.
func successResult(out any, extra *redact.Values, operation, tool string) mcp.ToolResult {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		panic(fmt.Sprintf("tool output does not marshal: %v", err)) // a bug: becomes -32603
	}
	text, ok := bytes.TrimRight(buf.Bytes(), "\n"), true
	if extra != nil {
		text, ok = redact.JSON(text, extra)
	}
	if !ok {
		return errorResult(errmap.Map(errmap.Facts{
			Source: errmap.SourceRequest, Operation: operation, Tool: tool, Code: errmap.CodeUnknown,
			Detail:           "the result was withheld because it held a secret that could not be removed from it",
			ExecutionStarted: true, StateChanged: errmap.StateUnknown,
		}))
	}
	return mcp.ToolResult{
		Content:           []mcp.Content{{Type: "text", Text: string(text)}},
		StructuredContent: json.RawMessage(text),
		Outcome:           "ok",
	}
}

// errorResult is the isError result of a mapped failure, without structuredContent (clients
// would validate it against the output schema).
func errorResult(f errmap.Failure) mcp.ToolResult {
	return mcp.ToolResult{
		Content: []mcp.Content{{Type: "text", Text: f.Text}},
		IsError: true,
		Meta:    map[string]any{errmap.MetaKey: f.Diagnostic},
		Outcome: string(f.Diagnostic.Category),
		Code:    f.Diagnostic.Code,
	}
}

var defines atomic.Int64

// Defines counts the tools defined so far in this process, for tests of a cold start.
func Defines() int { return int(defines.Load()) }

// Registry is the ordered set of tools; it implements mcp.ToolSet.
type Registry struct {
	names []string
	list  func() []json.RawMessage // the definitions tools/list sends
	built func() definedTools      // the tools a call runs
}

// definedTools is the defined tools, in order and by name.
type definedTools struct {
	tools  []*Tool
	byName map[string]*Tool
}

// newGeneratedRegistry lists the generated definitions alone, so a cold start that only lists
// tools defines none; define runs once, on the first call, and must give exactly the
// generated tools (TestAllRefusesToolsNotGenerated).
func newGeneratedRegistry(define func() []*Tool) *Registry {
	names := generatedNames
	r := &Registry{names: names}
	r.list = sync.OnceValue(func() []json.RawMessage {
		defs := make([]string, len(names))
		for i, n := range names {
			defs[i] = generatedDefinition(n)
		}
		return rawDefinitions(defs)
	})
	r.built = sync.OnceValue(func() definedTools {
		b := definedTools{byName: map[string]*Tool{}}
		var defined []string
		for _, t := range define() {
			b.byName[t.def.Name] = t
			defined = append(defined, t.def.Name)
		}
		slices.Sort(defined) // a duplicate or a tool not generated is then a difference
		if !slices.Equal(defined, names) {
			panic(fmt.Sprintf("the tools defined (%v) are not the generated ones (%v): run go generate ./internal/tools/", defined, names))
		}
		for _, n := range names {
			b.tools = append(b.tools, b.byName[n])
		}
		return b
	})
	return r
}

// rawDefinitions copies defs into one buffer and returns its slices: one allocation.
func rawDefinitions[S ~string | ~[]byte](defs []S) []json.RawMessage {
	size := 0
	for _, d := range defs {
		size += len(d)
	}
	buf := make(json.RawMessage, 0, size)
	out := make([]json.RawMessage, len(defs))
	for i, d := range defs {
		start := len(buf)
		buf = append(buf, d...)
		out[i] = buf[start:len(buf):len(buf)]
	}
	return out
}

// Tools returns the registered tools in order.
func (r *Registry) Tools() []*Tool { return r.built().tools }

// Lookup finds a tool by name.
func (r *Registry) Lookup(name string) (*Tool, bool) {
	if !slices.Contains(r.names, name) {
		return nil, false
	}
	return r.built().byName[name], true // built panics unless it defined every name
}

// Definitions implements mcp.ToolSet.
func (r *Registry) Definitions() []json.RawMessage { return r.list() }

// Names implements mcp.ToolSet.
func (r *Registry) Names() []string { return r.names }

// Call implements mcp.ToolSet.
func (r *Registry) Call(ctx context.Context, name string, args json.RawMessage) (mcp.ToolResult, bool) {
	t, ok := r.Lookup(name)
	if !ok {
		return mcp.ToolResult{}, false
	}
	return t.call(ctx, args), true
}
