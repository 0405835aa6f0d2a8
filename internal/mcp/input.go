package mcp

import (
	"bytes"
	"context"
	"encoding/json"
)

// Multi-round-trip requests (SEP-2322; docs/protocol.md "Asking the user"): the protocol layer
// only carries inputRequests, requestState and inputResponses in and out; the tool layer signs
// and verifies requestState, so nothing is kept between the two requests.

// RoundTrip is what a modern tools/call carries for a multi-round-trip request.
type RoundTrip struct {
	// FormElicitation: the request's client capabilities declare elicitation with form
	// mode. An empty elicitation object counts as form (clients older than the modes).
	FormElicitation bool
	// URLElicitation: they declare elicitation with url mode (SEP-1036), which only sends the
	// user to a page; the endpoint uses it to ask for a wallet to be funded.
	URLElicitation  bool
	RequestState    string // params.requestState as sent; HasRequestState says whether it was
	HasRequestState bool
	// InputResponses are params.inputResponses by key (each one a JSON object); nil when absent.
	InputResponses map[string]json.RawMessage
}

// RoundTripOf returns the round-trip fields of the modern tools/call being served; ok is false
// on the legacy era (and outside a request), where no input may ever be requested.
func RoundTripOf(ctx context.Context) (rt RoundTrip, ok bool) {
	if p := stateOf(ctx).rt; p != nil {
		return *p, true
	}
	return RoundTrip{}, false
}

// InputRequest is one embedded request of inputRequests, e.g. {"method": "elicitation/create", ...}.
type InputRequest struct {
	Method string `json:"method"`
	Params any    `json:"params"`
}

// ResultInputRequired is the resultType of a ToolResult that asks for input.
const ResultInputRequired = "input_required"

// inputRequiredResult is the wire form of an InputRequiredResult: no content, no isError.
type inputRequiredResult struct {
	ResultType    string                  `json:"resultType"`
	InputRequests map[string]InputRequest `json:"inputRequests,omitempty"`
	RequestState  string                  `json:"requestState,omitempty"`
	Meta          map[string]any          `json:"_meta,omitempty"`
}

// roundTripOf reads the round-trip fields of a modern tools/call; a malformed one is -32602.
func roundTripOf(meta map[string]json.RawMessage, p map[string]json.RawMessage) (RoundTrip, *outcome) {
	var rt RoundTrip
	var caps struct {
		Elicitation map[string]json.RawMessage `json:"elicitation"`
	}
	if json.Unmarshal(meta[metaClientCapabilities], &caps) == nil && caps.Elicitation != nil {
		_, form := caps.Elicitation["form"]
		_, url := caps.Elicitation["url"]
		rt.FormElicitation = form || !url
		rt.URLElicitation = url
	}
	if raw, ok := p["requestState"]; ok {
		if json.Unmarshal(raw, &rt.RequestState) != nil || !bytes.HasPrefix(bytes.TrimSpace(raw), []byte(`"`)) {
			return rt, invalidParams("Invalid params: params.requestState: must be a string")
		}
		rt.HasRequestState = true
	}
	if raw, ok := p["inputResponses"]; ok {
		var responses map[string]json.RawMessage
		if t := bytes.TrimSpace(raw); len(t) == 0 || t[0] != '{' || json.Unmarshal(t, &responses) != nil {
			return rt, invalidParams("Invalid params: params.inputResponses: must be an object")
		}
		for key, v := range responses {
			if t := bytes.TrimSpace(v); len(t) == 0 || t[0] != '{' {
				return rt, invalidParams("Invalid params: params.inputResponses." + bounded(key) + ": must be an object (an elicitation result)")
			}
		}
		rt.InputResponses = responses
	}
	return rt, nil
}
