package tools

import (
	"encoding/json"
	"strings"

	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/internal/mcp"
	"github.com/mindvault/mcp-endpoint/validate"
)

// maxCorrection is the largest edit distance at which an unknown argument is taken for an
// allowed one the call left out ("resourceID" for "resourceId", "resouceId" too).
const maxCorrection = 2

// corrected is the call an agent meant when every problem is an unknown name that stands for
// exactly one allowed argument it left out (case or a few edits), offered only when that call
// passes validation; otherwise nil.
func corrected(tool string, raw json.RawMessage, issues []errmap.Issue, allowed []string, check func(json.RawMessage) bool) *errmap.NextAction {
	var args map[string]json.RawMessage
	if json.Unmarshal(raw, &args) != nil || len(args) == 0 {
		return nil
	}
	renamed := false
	for _, is := range issues {
		name, top := strings.CutPrefix(is.Path, "/")
		switch {
		case !top || strings.Contains(name, "/"):
			return nil
		case is.Rule == "required":
			continue // a missing argument the renaming may supply; check decides
		case is.Rule != "unknown":
			return nil
		}
		to := ""
		for _, a := range allowed {
			if _, given := args[a]; given {
				continue
			}
			if strings.EqualFold(a, name) || mcp.DistanceAtMost(strings.ToLower(a), strings.ToLower(name), maxCorrection) <= maxCorrection {
				if to != "" {
					return nil // two candidates: a guess
				}
				to = a
			}
		}
		if to == "" {
			return nil
		}
		args[to] = args[name]
		delete(args, name)
		renamed = true
	}
	fixed, err := json.Marshal(args)
	if !renamed || err != nil || !check(fixed) {
		return nil
	}
	var out map[string]any
	_ = json.Unmarshal(fixed, &out) // fixed was just encoded from a map
	return &errmap.NextAction{Tool: tool, Arguments: out}
}

// validates is a check for corrected: whether raw passes the request model of Req.
func validates[Req any](raw json.RawMessage) bool {
	_, issues := validate.Decode[Req](raw)
	return issues == nil
}
