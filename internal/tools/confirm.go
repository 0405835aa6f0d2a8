package tools

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/internal/config"
	"github.com/mindvault/mcp-endpoint/internal/confirm"
	"github.com/mindvault/mcp-endpoint/internal/mcp"
	"github.com/mindvault/mcp-endpoint/internal/obs"
	"github.com/mindvault/mcp-endpoint/requests"
)

// The human confirmation (package confirm) is part of the declared mainnet policy: Define
// applies it around Run, and a tool only names, at its confirmation point (Call.approve),
// what it is about to pay or send; the Call's Confirmation decides (docs/tools.md "The
// user's confirmation"). A wallet short of USDC is the other question: a url elicitation to
// MINDVAULT_FUNDING_URL, sealed the same way.

// elicitation is what a call may ask the user: what its requestState will bind, and how.
type elicitation struct {
	settings *confirm.Settings
	binding  confirm.Binding
	url      bool // the client opens URLs and a funding page is configured: a wallet short of USDC becomes a question
}

// beginConfirmation opens a round 2's requestState or readies round 1's question; stop, when
// set, is the call's answer and Run must not start.
func beginConfirmation(ctx context.Context, call *Call, tool, operation string, req any) (stop *mcp.ToolResult) {
	k, cfg := call.Confirm, call.Config
	rt, modern := mcp.RoundTripOf(ctx)
	if !modern {
		return nil // the legacy era has no way to ask: the argument guards decide
	}
	canonical, err := json.Marshal(req)
	if err != nil {
		panic("request does not marshal: " + err.Error()) // a bug: becomes -32603
	}
	// The profile the call acts for: its profile argument, or the default one.
	b := confirm.Binding{Tool: tool, ArgsHash: confirm.ArgsHash(tool, canonical), Caller: call.caller,
		Profile: cfg.DefaultProfile, Network: string(cfg.Network)}
	if a, ok := req.(requests.Acting); ok && a.ActingProfile() != nil {
		b.Profile = *a.ActingProfile()
	}
	funded := false
	if rt.HasRequestState {
		approved, err := k.Open(rt.RequestState, b)
		if err != nil {
			reason := confirm.ReasonMalformed
			if inv, ok := err.(*confirm.InvalidState); ok {
				reason = inv.Reason
			}
			return invalidConfirmation("params.requestState", string(reason))
		}
		if answer, ok := rt.InputResponses[inputKey(approved.Kind)]; ok {
			accepted, action, ok := readAnswer(answer, approved.Kind != confirm.Funding)
			switch {
			case !ok:
				return invalidConfirmation("params.inputResponses."+inputKey(approved.Kind), "it is not an elicitation result (action accept, decline or cancel)")
			case !accepted && approved.Kind == confirm.Funding:
				return refused(notFunded(cfg, approved.Payer, action), operation, tool)
			case !accepted:
				return refused(confirm.Declined(approved, action), operation, tool)
			case approved.Kind != confirm.Funding:
				call.confirmation = confirm.Approved(approved)
				return nil
			}
			// The user went to fund the wallet: a wallet still short is answered, not asked again.
			funded = true
		}
		// A state without an answer: the client did not ask the user; ask again (round 1).
	}
	if d, ok := req.(requests.DryRunner); (ok && d.DryRunRequested()) || !k.CanAsk() {
		return nil
	}
	call.elicit = &elicitation{settings: k, binding: b, url: rt.URLElicitation && cfg.FundingURL != "" && !funded}
	if rt.FormElicitation { // the client renders forms: a confirmation point's question is asked
		call.confirmation = confirm.Asking(k.Mode(), cfg.Network == config.Mainnet)
	}
	return nil
}

// inputKey is the inputRequests key of a question of kind k.
func inputKey(k confirm.Kind) string {
	if k == confirm.Funding {
		return "fund"
	}
	return "confirm"
}

// asked turns the call's question into the InputRequiredResult of round 1.
func (c *Call) asked(operation, tool string) (mcp.ToolResult, bool) {
	q, e := c.question, c.elicit
	if q == nil || e == nil {
		return mcp.ToolResult{}, false
	}
	params := map[string]any{
		"mode":    "form",
		"message": q.Message,
		"requestedSchema": map[string]any{
			"type": "object",
			"properties": map[string]any{
				"confirm": map[string]any{"type": "boolean", "title": q.Title, "default": false},
			},
			"required": []string{"confirm"},
		},
	}
	state, err := e.settings.Seal(e.binding, q.Approval)
	if err != nil {
		return *refused(errors.New("the confirmation could not be signed"), operation, tool), true
	}
	if q.Approval.Kind == confirm.Funding {
		// A URL, never a form: the elicitation spec forbids collecting payment details in a form.
		// One id per question, derived from its state: the client may tie a completion to it.
		sum := sha256.Sum256([]byte(state))
		params = map[string]any{"mode": "url", "url": q.URL, "message": q.Message, "elicitationId": hex.EncodeToString(sum[:16])}
	}
	return mcp.ToolResult{
		ResultType:    mcp.ResultInputRequired,
		InputRequests: map[string]mcp.InputRequest{inputKey(q.Approval.Kind): {Method: "elicitation/create", Params: params}},
		RequestState:  state,
		Outcome:       obs.InputRequired,
	}, true
}

// askToFund makes err, a wallet short of USDC, the call's question when the client opens URLs
// and a funding page is configured (round 1).
func (c *Call) askToFund(err error) bool {
	var short *unfunded
	if c.elicit == nil || !c.elicit.url || !errors.As(err, &short) || short.link == "" {
		return false
	}
	f, _ := errmap.FactsOf(err)
	network := c.elicit.binding.Network
	c.question = &confirm.Request{Approval: confirm.Approval{Kind: confirm.Funding, Network: network, Payer: short.address}, URL: short.link,
		Message: fmt.Sprintf("Wallet %s cannot pay on %s: %s. Open the page to add USDC to it, then continue; nothing is paid before it holds enough.",
			short.address, network, f.Detail)}
	return true
}

// refused is the isError result of err, a call's confirmation that ends it.
func refused(err error, operation, tool string) *mcp.ToolResult {
	res := errorResult(errmap.FromError(err, errmap.Call{Guides: Guides(), Operation: operation, Tool: tool}))
	return &res
}

// notFunded is the failure of a call whose user declined or cancelled funding the wallet.
func notFunded(cfg *config.Config, address, action string) error {
	err := refusal(errmap.CodeInsufficientUSDC, fmt.Sprintf("the user %s funding wallet %s; nothing was paid", action, address), "")
	return errmap.With(err, func(f *errmap.Facts) {
		f.StateChanged = errmap.StateNo
		f.Advice.FundingURL = cfg.FundingLink(address)
	})
}

// readAnswer reads an elicitation result: accepted only for action accept, with confirm true
// when checked; ok is false for something that is not one.
func readAnswer(raw json.RawMessage, checked bool) (accepted bool, action string, ok bool) {
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
		if !checked || json.Unmarshal(r.Content["confirm"], &yes) == nil && yes {
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

// invalidConfirmation is the -32602 of a round 2 that cannot be acted on; path names the param.
func invalidConfirmation(path, reason string) *mcp.ToolResult {
	return &mcp.ToolResult{
		Reject: &mcp.CallError{Code: mcp.CodeInvalidParams, Message: "Invalid params: " + path + ": " + reason + "; nothing was done",
			Data: map[string]any{"code": errmap.CodeConfirmationInvalid, "category": errmap.CategoryValidation, "retry": errmap.RetryAfterCorrection,
				"next": "Call the tool again without requestState and inputResponses; the user will be asked again."}},
		Outcome: string(errmap.CategoryValidation),
	}
}
