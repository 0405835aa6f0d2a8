package mcp

import (
	"strconv"
	"strings"

	"github.com/mindvault/mcp-endpoint/internal/redact/lazyre"
	"github.com/mindvault/mcp-endpoint/validate"
)

// Duplicate keys (validate.DuplicateKeys says why they are refused): -32600 in the envelope,
// -32602 in params, compared ignoring case too, as encoding/json matches struct fields (the Go
// MCP SDK decodes into structs). tools/call's arguments are left to the tool's request model.

// dupMessage is the error message of d, after its prefix.
func dupMessage(d *validate.Dup) string {
	if d.Folded {
		return renderPath(d.Path) + ": is given more than once in the same object, in another case (the keys of the envelope and of params are compared ignoring case)"
	}
	return renderPath(d.Path) + ": is given more than once in the same object (duplicate keys are refused, never resolved)"
}

// scanDuplicateKeys finds the first duplicate key outside params and the first inside it in
// body, a JSON object that encoding/json accepted, and whether the envelope names id twice (no
// id can be echoed then).
func scanDuplicateKeys(body []byte, skipArguments bool) (outside, inside *validate.Dup, idTwice bool) {
	skip := ""
	if skipArguments {
		skip = "arguments"
	}
	for _, d := range validate.DuplicateKeys(body, "params", skip) {
		side := &outside
		if len(d.Path) > 1 && d.Path[0].Index < 0 && d.Path[0].Key == "params" {
			side = &inside
		} else if len(d.Path) == 1 && strings.EqualFold(d.Path[0].Key, "id") {
			idTwice = true
		}
		if *side == nil {
			*side = &d
		}
	}
	return outside, inside, idTwice
}

// plainKey is a key a path shows after a dot; any other is shown quoted in brackets.
var plainKey = lazyre.New(`^[A-Za-z_$][A-Za-z0-9_$-]*$`)

var keyQuoter = strings.NewReplacer(`\`, `\\`, `"`, `\"`)

const maxPath = 256

// renderPath renders a path for a message (.key, ["key"], [n]), bounded like every echoed value.
func renderPath(steps []validate.Step) string {
	var b strings.Builder
	for i, st := range steps {
		if st.Index >= 0 {
			b.WriteString("[" + strconv.Itoa(st.Index) + "]")
		} else if k := bounded(st.Key); plainKey.MatchString(k) {
			if i > 0 {
				b.WriteByte('.')
			}
			b.WriteString(k)
		} else {
			b.WriteString(`["` + keyQuoter.Replace(k) + `"]`)
		}
		if b.Len() > maxPath {
			break
		}
	}
	return cutAt(b.String(), maxPath)
}
