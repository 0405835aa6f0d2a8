// Package docs generates the tool table and the error-code list of the README and docs/, and the
// fault-plan tables of docs/sandbox.md, from the code, so the documentation cannot drift from what
// the endpoint serves. Its tests keep the written docs honest too: cited docs and sections exist,
// nothing cites a file outside the repository, the layout in docs/architecture.md matches the tree,
// imports run downward, and every package doc is one short paragraph opening with its name.
package docs

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/internal/config"
	"github.com/mindvault/mcp-endpoint/internal/tools"
)

// Markers delimit generated sections in README.md.
const (
	ToolsBegin  = "<!-- BEGIN GENERATED TOOLS -->"
	ToolsEnd    = "<!-- END GENERATED TOOLS -->"
	ErrorsBegin = "<!-- BEGIN GENERATED ERROR CODES -->"
	ErrorsEnd   = "<!-- END GENERATED ERROR CODES -->"

	// The sandbox's fault-plan keys and kinds (docs/sandbox.md). Their bodies come from
	// package sandbox (FaultKeysMarkdown, FaultKindsMarkdown), which only local builds and
	// tests may import, so the test that checks and rewrites the docs supplies them
	// (RenderSection).
	FaultKeysBegin  = "<!-- BEGIN GENERATED FAULT KEYS -->"
	FaultKeysEnd    = "<!-- END GENERATED FAULT KEYS -->"
	FaultKindsBegin = "<!-- BEGIN GENERATED FAULT KINDS -->"
	FaultKindsEnd   = "<!-- END GENERATED FAULT KINDS -->"
)

// ToolTable is the Markdown table of every served tool.
func ToolTable() string {
	cfg, _ := config.Load(func(string) string { return "" }, false)
	var b strings.Builder
	b.WriteString("| tool | hints | arguments | what it does |\n|---|---|---|---|\n")
	for _, t := range tools.All(&tools.Deps{Config: cfg}).Tools() {
		d := t.Definition()
		var s struct {
			Properties map[string]json.RawMessage `json:"properties"`
			Required   []string                   `json:"required"`
		}
		_ = json.Unmarshal(d.InputSchema, &s)
		required := map[string]bool{}
		for _, r := range s.Required {
			required[r] = true
		}
		var args []string
		for _, n := range t.Model().Names() {
			if required[n] {
				args = append(args, "`"+n+"`*")
			} else {
				args = append(args, "`"+n+"`")
			}
		}
		argText := strings.Join(args, ", ")
		if argText == "" {
			argText = "none"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", d.Name, hints(d.Annotations), argText, strings.ReplaceAll(d.Description, "|", "\\|"))
	}
	b.WriteString("\n`*` required. Hints: R read-only, D destructive, I idempotent, O open-world (absent = false).\n")
	return b.String()
}

func hints(a tools.Hints) string {
	var h []string
	for _, x := range []struct {
		on bool
		l  string
	}{{a.ReadOnly, "R"}, {a.Destructive, "D"}, {a.Idempotent, "I"}, {a.OpenWorld, "O"}} {
		if x.on {
			h = append(h, x.l)
		}
	}
	if len(h) == 0 {
		return "-"
	}
	return strings.Join(h, " ")
}

// ErrorCodes is the Markdown table of every error code, with its default retry verdict and
// who must act, rendered from errmap's code table so the published list cannot drift from it.
func ErrorCodes() string {
	var b strings.Builder
	b.WriteString("| code | category | retry | needs | meaning |\n|---|---|---|---|---|\n")
	for _, c := range errmap.Codes() {
		needs := string(c.Needs)
		if needs != "" {
			needs = "`" + needs + "`"
		}
		b.WriteString("| `" + c.Code + "` | `" + string(c.Category) + "` | `" + string(errmap.CodeRetry(c.Code)) + "` | " + needs + " | " + c.Meaning + " |\n")
	}
	return b.String()
}

// Render replaces the generated sections of a README, which must have both.
func Render(readme string) (string, error) {
	out, err := replace(readme, ToolsBegin, ToolsEnd, ToolTable())
	if err != nil {
		return "", err
	}
	return replace(out, ErrorsBegin, ErrorsEnd, ErrorCodes())
}

// RenderDoc replaces whichever generated sections a document under docs/ has.
func RenderDoc(doc string) (string, error) {
	var err error
	for _, s := range []struct {
		begin, end string
		body       func() string
	}{{ToolsBegin, ToolsEnd, ToolTable}, {ErrorsBegin, ErrorsEnd, ErrorCodes}} {
		if strings.Contains(doc, s.begin) {
			if doc, err = replace(doc, s.begin, s.end, s.body()); err != nil {
				return "", err
			}
		}
	}
	return doc, nil
}

// RenderSection replaces the generated section between begin and end, which doc must have.
func RenderSection(doc, begin, end, body string) (string, error) {
	return replace(doc, begin, end, body)
}

func replace(s, begin, end, body string) (string, error) {
	i := strings.Index(s, begin)
	j := strings.Index(s, end)
	if i < 0 || j < i {
		return "", fmt.Errorf("the document lacks the markers %s ... %s", begin, end)
	}
	return s[:i+len(begin)] + "\n" + body + s[j:], nil
}
