package errmap

import "cmp"

// Validation maps argument-validation issues of tool to the failure docs/protocol.md describes: source
// request, category validation, code INVALID_ARGUMENTS, jsonrpcCode -32602, the failing paths on
// line 1 and the accepted argument names on line 3. fix, when the tool could tell exactly
// which call was meant (a misspelt argument name), is that call as the next action.
func Validation(tool string, issues []Issue, allowed []string, fix *NextAction) Failure {
	return Map(Facts{
		Source:      SourceRequest,
		Tool:        tool,
		Code:        CodeInvalidArguments,
		Issues:      issues,
		AllowedArgs: allowed,
		NextAction:  fix,
	})
}

// issue sanitises one issue. Fields are redacted like any other text even though the validate
// package never puts a rejected value in them: a path can still carry a caller-chosen key name.
func (r *Redactor) issue(is Issue) Issue {
	out := Issue{
		Path:     r.text(is.Path, 200),
		Rule:     r.text(is.Rule, 64),
		Expected: r.text(is.Expected, 128),
	}
	out.Message = cmp.Or(r.text(is.Message, 160), issueMessage(out.Rule, out.Expected))
	return out
}

// issueMessage phrases an issue that came without a message, from its rule and expected shape.
func issueMessage(rule, expected string) string {
	with := func(prefix, fallback string) string {
		if expected == "" {
			return fallback
		}
		return prefix + expected
	}
	switch rule {
	case "required":
		return "is required"
	case "unknown":
		return "is not an accepted argument"
	case "type":
		return with("must be of type ", "has the wrong type")
	case "min", "max", "range", "len", "minLength", "maxLength", "minItems", "maxItems":
		return with("must be ", "is out of range")
	case "pattern", "format":
		return with("must have the format ", "does not have the expected format")
	case "oneof", "enum":
		return with("must be one of ", "is not an allowed value")
	}
	return with("is invalid: expected ", "is invalid")
}

// issuesLine joins "<path> <message>" items in the caller's order within budget runes, counting
// whatever does not fit (including issues never sanitised) as "and N more".
func issuesLine(issues []Issue, total, budget int) string {
	budget = max(budget, 40)
	item := func(is Issue) string { return cmp.Or(is.Path, "arguments") + " " + is.Message }
	more := func(n int) string {
		if n <= 0 {
			return ""
		}
		return "; and " + itoa(n) + " more"
	}
	line, shown := "", 0
	for i, is := range issues {
		candidate := item(is)
		if i > 0 {
			candidate = line + "; " + candidate
		}
		if runes(candidate)+runes(more(total-i-1)) > budget {
			break
		}
		line, shown = candidate, i+1
	}
	if shown == 0 && len(issues) > 0 {
		suffix := more(total - 1)
		return bound(item(issues[0]), budget-runes(suffix)) + suffix
	}
	return line + more(total-shown)
}
