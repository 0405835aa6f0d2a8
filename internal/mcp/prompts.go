package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/mindvault/mcp-endpoint/errmap"
)

// getPrompt serves prompts/get; an unknown prompt or argument problem is -32602 (no isError result).
func (s *Server) getPrompt(ctx context.Context, c callParams, e *entry, v *view) outcome {
	return s.safely(ctx, e, func() outcome {
		args, bad := promptArguments(c.args)
		if bad != nil {
			return *bad
		}
		if tool := s.promptBlocked(v, c.name); tool != "" && slices.Contains(s.Prompts.Names(), c.name) {
			return fail(http.StatusOK, CodeInvalidParams,
				fmt.Sprintf("Invalid params: params.name: prompt %q is disabled here: it names %s, which is disabled here (prompts/list names the prompts enabled here)", c.name, tool),
				map[string]any{"code": errmap.CodeForbidden, "disabled": true, "prompt": c.name, "tool": tool})
		}
		res, ok, err := s.Prompts.Get(c.name, args)
		if !ok {
			return fail(http.StatusOK, CodeInvalidParams,
				fmt.Sprintf("Invalid params: params.name: unknown prompt %q (prompts/list names every prompt)", bounded(c.name)),
				map[string]any{"code": errmap.CodeUnknownName, "suggestions": suggest(bounded(c.name), offered(v, s.Prompts.Names(), s.Prompts.Names(), s.promptOffered))})
		}
		var pe *PromptArgumentError
		if errors.As(err, &pe) {
			msg := "Invalid params: params.arguments." + bounded(pe.Argument) + ": " + pe.Problem
			data := map[string]any{"code": errmap.CodeInvalidArguments, "argument": bounded(pe.Argument)}
			if len(pe.Allowed) > 0 {
				msg += fmt.Sprintf(" (prompt %q takes: %s)", c.name, strings.Join(pe.Allowed, ", "))
				data["allowed"] = pe.Allowed
			} else {
				msg += fmt.Sprintf(" (prompt %q takes no arguments)", c.name)
			}
			return fail(http.StatusOK, CodeInvalidParams, msg, data)
		}
		if err != nil {
			panic(err) // a prompt that cannot render is a bug: -32603 with the details in the log
		}
		result := map[string]any{"messages": res.Messages}
		if res.Description != "" {
			result["description"] = res.Description
		}
		return outcome{result: result}
	})
}

// promptArguments applies the GetPromptRequest schema: params.arguments is an object of strings.
func promptArguments(raw json.RawMessage) (map[string]string, *outcome) {
	args := map[string]string{}
	if len(raw) == 0 {
		return args, nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, invalidParams("Invalid params: params.arguments: must be an object of strings")
	}
	for _, k := range slices.Sorted(maps.Keys(m)) { // the first failing argument named is the same on every run
		v := bytes.TrimSpace(m[k])
		var str string
		if len(v) == 0 || v[0] != '"' || json.Unmarshal(v, &str) != nil {
			return nil, invalidParams("Invalid params: params.arguments." + bounded(k) + ": must be a string")
		}
		args[k] = str
	}
	return args, nil
}
