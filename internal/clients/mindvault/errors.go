package mindvault

import (
	"encoding/json"
	"math"
	"strings"

	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/internal/redact/lazyre"
)

// ReadError reads an error answer of the MindVault API (and its paywall) for errmap:
// {error: "message"}, {error: "snake_code", message: "..."} (the detail keeps both), zod objects
// under "error" (the first message, prefixed with its schema field, never a submitted value) and a
// 429's retryAfterSeconds. chain_unavailable and price_mismatch refine the status; anything else
// is left to errmap's generic reading.
func ReadError(f errmap.Facts) errmap.Facts {
	b := errmap.ReadBody(f.Body)
	var msg string
	switch v := b.Value.(type) {
	case string, []any:
		msg = firstMessage(v, "", 0)
	case errmap.JSONObject:
		if n, ok := v.Get("retryAfterSeconds").(json.Number); ok {
			if s, err := n.Float64(); err == nil && s >= 0 && s < 1e9 {
				wait := int(math.Ceil(s))
				f.RetryAfter = &wait
			}
		}
		switch errorToken(v) {
		case "chain_unavailable":
			f.Code = errmap.CodeChainUnavailable
		case "price_mismatch":
			f.Code = errmap.CodePriceMismatch
			if f.RetryAfter == nil {
				// The catalog copies an on-chain price change within one poll of its listener.
				wait := errmap.DefaultPriceSyncSeconds
				f.RetryAfter = &wait
			}
		}
		msg = objectMessage(v)
		if f.Status == 409 && alreadyRegistered.MatchString(msg) {
			f.Code = errmap.CodeAlreadyRegistered
		}
	}
	if msg != "" {
		f.UpstreamDetail = msg
	}
	return f
}

var (
	tokenRE = lazyre.New(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)
	// alreadyRegistered is the API's 409 for a resource already on chain ("Resource is
	// already registered on-chain").
	alreadyRegistered = lazyre.New(`(?i)already registered on[- ]?chain`)
)

// errorToken is the machine token of a body ("error" or "code", lower-cased), or "".
func errorToken(o errmap.JSONObject) string {
	for _, k := range []string{"error", "code"} {
		if s := strings.ToLower(o.String(k)); tokenRE.MatchString(s) {
			return s
		}
	}
	return ""
}

// objectMessage is the first non-empty string of error, message, detail, reason, title; an
// object under "error" gives the first message inside it; an "errors" array its first one.
func objectMessage(o errmap.JSONObject) string {
	for _, k := range []string{"error", "message", "detail", "reason", "title"} {
		switch v := o.Get(k).(type) {
		case string:
			s := strings.TrimSpace(v)
			if s == "" {
				continue
			}
			if k == "error" {
				if m := o.String("message"); m != "" && tokenRE.MatchString(s) && strings.Contains(s, "_") {
					s += ": " + m
				}
				// {error, detail}: the detail says why (a 500 of register/prepare names the
				// SDK's failure there), so it is kept after the message.
				if d := strings.TrimSpace(o.String("detail")); d != "" && d != s {
					s += ": " + d
				}
			}
			return s
		case errmap.JSONObject, []any:
			if k == "error" {
				if s := firstMessage(v, "", 0); s != "" {
					return s
				}
			}
		}
	}
	if arr, ok := o.Get("errors").([]any); ok {
		return firstMessage(arr, "", 0)
	}
	return ""
}

// maxDepth bounds the walk; errmap's decoder already bounds what it decodes.
const maxDepth = 32

// firstMessage walks a zod error value in body order for its first human message: "message"
// strings, issues[] (prefixed with their path), and format() "_errors" / flatten()
// formErrors and fieldErrors (prefixed with the field name).
func firstMessage(v any, field string, depth int) string {
	if depth > maxDepth {
		return ""
	}
	prefix := func(s string) string {
		if field == "" {
			return s
		}
		return field + ": " + s
	}
	switch t := v.(type) {
	case string:
		if s := strings.TrimSpace(t); s != "" {
			return prefix(s)
		}
	case []any:
		for _, e := range t {
			if s := firstMessage(e, field, depth+1); s != "" {
				return s
			}
		}
	case errmap.JSONObject:
		for _, k := range []string{"message", "detail", "reason", "title"} {
			if s := t.String(k); s != "" {
				return prefix(s)
			}
		}
		if issues, ok := t.Get("issues").([]any); ok {
			for _, is := range issues {
				iss, ok := is.(errmap.JSONObject)
				if !ok {
					continue
				}
				if s := iss.String("message"); s != "" {
					if p := issuePath(iss.Get("path")); p != "" {
						return p + ": " + s
					}
					return prefix(s)
				}
			}
		}
		for _, k := range []string{"_errors", "formErrors"} {
			if s := firstMessage(t.Get(k), field, depth+1); s != "" {
				return s
			}
		}
		for _, m := range t {
			switch m.Key {
			case "issues", "_errors", "formErrors":
				continue
			case "fieldErrors":
				if s := firstMessage(m.Value, field, depth+1); s != "" {
					return s
				}
				continue
			}
			if _, ok := m.Value.(string); ok {
				continue // a bare string beside structured errors is a value, not a message
			}
			sub := m.Key
			if field != "" {
				sub = field + "." + m.Key
			}
			if s := firstMessage(m.Value, sub, depth+1); s != "" {
				return s
			}
		}
	}
	return ""
}

// issuePath joins a zod issue's path (["price", 0] is "price.0").
func issuePath(v any) string {
	arr, ok := v.([]any)
	if !ok {
		return ""
	}
	parts := make([]string, 0, len(arr))
	for _, p := range arr {
		switch t := p.(type) {
		case string:
			parts = append(parts, t)
		case json.Number:
			parts = append(parts, t.String())
		}
	}
	return strings.Join(parts, ".")
}
