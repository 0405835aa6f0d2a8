package tools

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/internal/auth"
	"github.com/mindvault/mcp-endpoint/internal/config"
	"github.com/mindvault/mcp-endpoint/internal/confirm"
	"github.com/mindvault/mcp-endpoint/internal/mcp"
	"github.com/mindvault/mcp-endpoint/internal/obs"
	"github.com/mindvault/mcp-endpoint/requests"
)

// The human confirmation (package confirm) is part of the declared mainnet policy: every tool
// that declares ConfirmRequired is under it, and Define applies it around Run, so no tool
// decides by itself whether to ask. What a tool does is name, at its seam, what it is about to
// pay or send (confirm.Approve, right before signing or sending); the Gate in the call's
// context decides. In order, for a state-changing call on the modern era:
//
//  1. a requestState is verified first (-32602 CONFIRMATION_INVALID when it fails, nothing
//     runs); with the user's answer, a decline is CONFIRMATION_DECLINED and an acceptance
//     puts an approving Gate in the context (it also stands in for confirmMainnet);
//  2. otherwise, when the endpoint may ask (policy, key, the client's form elicitation, no
//     dry run), an asking Gate: the mainnet confirmation waits for it instead of refusing;
//  3. Run; a seam that must ask stops it with confirm.Needed, and the call is answered with
//     an InputRequiredResult whose requestState binds this call.

// humanCall is a call that may ask: what its requestState will bind.
type humanCall struct {
	keeper  *confirm.Keeper
	binding confirm.Binding
}

// beginHuman applies steps 1 and 2 to a validated request under k, the Deps' keeper (nil:
// never ask). stop, when set, is the call's answer and Run must not start.
func beginHuman(ctx context.Context, k *confirm.Keeper, tool, operation string, cfg *config.Config, req any) (_ context.Context, h *humanCall, stop *mcp.ToolResult) {
	rt, modern := mcp.RoundTripOf(ctx)
	if !modern {
		return ctx, nil, nil // the legacy era has no way to ask: the argument guards decide
	}
	canonical, err := json.Marshal(req)
	if err != nil {
		panic("request does not marshal: " + err.Error()) // a bug: becomes -32603
	}
	b := confirm.Binding{Tool: tool, ArgsHash: confirm.ArgsHash(tool, canonical), Caller: auth.Caller(ctx),
		Profile: profileOf(req, cfg), Network: string(cfg.Network)}
	if rt.HasRequestState {
		approved, err := k.Open(rt.RequestState, b)
		if err != nil {
			reason := confirm.ReasonMalformed
			if inv, ok := err.(*confirm.InvalidState); ok {
				reason = inv.Reason
			}
			return ctx, nil, invalidConfirmation("params.requestState", string(reason))
		}
		if answer, ok := rt.InputResponses["confirm"]; ok {
			accepted, action, ok := readAnswer(answer)
			switch {
			case !ok:
				return ctx, nil, invalidConfirmation("params.inputResponses.confirm", "it is not an elicitation result (action accept, decline or cancel)")
			case !accepted:
				res := ErrorResult(errmap.FromError(confirm.Declined(approved, action), errmap.Call{Guides: Guides(), Operation: operation, Tool: tool}))
				return ctx, nil, &res
			}
			setGate(ctx, confirm.Approved(approved))
			return ctx, nil, nil
		}
		// A state without an answer: the client did not ask the user; ask again (round 1).
	}
	if d, ok := req.(requests.DryRunner); (ok && d.DryRunRequested()) || !k.CanAsk() || !rt.FormElicitation {
		return ctx, nil, nil
	}
	setGate(ctx, confirm.Asking(k.Mode(), cfg.Network == config.Mainnet))
	return ctx, &humanCall{keeper: k, binding: b}, nil
}

// asked turns a seam's confirm.Needed into the InputRequiredResult of round 1.
func (h *humanCall) asked(err error, operation, tool string) (mcp.ToolResult, bool) {
	n, ok := confirm.AsNeeded(err)
	if h == nil || !ok {
		return mcp.ToolResult{}, false
	}
	state, err := h.keeper.Seal(h.binding, n.Request.Approval)
	if err != nil {
		return ErrorResult(errmap.FromError(errors.New("the confirmation could not be signed"), errmap.Call{Guides: Guides(), Operation: operation, Tool: tool})), true
	}
	return mcp.ToolResult{
		ResultType: mcp.ResultInputRequired,
		InputRequests: map[string]mcp.InputRequest{"confirm": {Method: "elicitation/create", Params: map[string]any{
			"mode":    "form",
			"message": n.Request.Message,
			"requestedSchema": map[string]any{
				"type": "object",
				"properties": map[string]any{
					"confirm": map[string]any{"type": "boolean", "title": n.Request.Title, "default": false},
				},
				"required": []string{"confirm"},
			},
		}}},
		RequestState: state,
		Outcome:      obs.InputRequired,
	}, true
}

// readAnswer reads an elicitation result: accepted only for action accept with confirm true.
// Unknown members are ignored; ok is false for something that is not an elicitation result.
func readAnswer(raw json.RawMessage) (accepted bool, action string, ok bool) {
	var r struct {
		Action  string                     `json:"action"`
		Content map[string]json.RawMessage `json:"content"`
	}
	if json.Unmarshal(raw, &r) != nil {
		return false, "", false
	}
	switch r.Action {
	case "accept":
		var yes bool
		if json.Unmarshal(r.Content["confirm"], &yes) == nil && yes {
			return true, r.Action, true
		}
		return false, "did not confirm", true
	case "decline":
		return false, "declined", true
	case "cancel":
		return false, "cancelled", true
	}
	return false, "", false
}

// profileOf is the profile a call acts for: its profile argument, or the default one.
func profileOf(req any, cfg *config.Config) string {
	if a, ok := req.(requests.Acting); ok && a.ActingProfile() != nil {
		return *a.ActingProfile()
	}
	return cfg.DefaultProfile
}

// invalidConfirmation is the JSON-RPC -32602 of a round 2 that cannot be acted on; path names
// the param at fault.
func invalidConfirmation(path, reason string) *mcp.ToolResult {
	return &mcp.ToolResult{
		Reject: &mcp.CallError{Code: mcp.CodeInvalidParams, Message: "Invalid params: " + path + ": " + reason + "; nothing was done",
			Data: map[string]any{"code": errmap.CodeConfirmationInvalid, "category": errmap.CategoryValidation, "retry": errmap.RetryAfterCorrection,
				"next": "Call the tool again without requestState and inputResponses; the user will be asked again."}},
		Outcome: string(errmap.CategoryValidation),
	}
}
