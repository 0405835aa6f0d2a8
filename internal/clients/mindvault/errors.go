package mindvault

import (
	"cmp"
	"encoding/json"
	"fmt"
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
		// The machine token is "error" or "code", lower-cased.
		token := strings.ToLower(v.String("error"))
		if !tokenRE.MatchString(token) {
			token = strings.ToLower(v.String("code"))
		}
		switch token {
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

// objectMessage is error (a string, or the first message of an object or array under it), else
// the first non-empty string of message, detail, reason, title, else an "errors" array's first one.
func objectMessage(o errmap.JSONObject) string {
	if s := o.String("error"); s != "" {
		if m := o.String("message"); m != "" && tokenRE.MatchString(s) && strings.Contains(s, "_") {
			s += ": " + m
		}
		// {error, detail}: the detail says why (a 500 of register/prepare names the SDK's
		// failure there), so it is kept after the message.
		if d := o.String("detail"); d != "" && d != s {
			s += ": " + d
		}
		return s
	}
	if s := firstMessage(o.Get("error"), "", 0); s != "" {
		return s
	}
	for _, k := range []string{"message", "detail", "reason", "title"} {
		if s := o.String(k); s != "" {
			return s
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
	switch t := v.(type) {
	case string:
		if s := strings.TrimSpace(t); s != "" {
			return under(field, ": ", s)
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
				return under(field, ": ", s)
			}
		}
		if issues, ok := t.Get("issues").([]any); ok {
			for _, is := range issues {
				if iss, ok := is.(errmap.JSONObject); ok && iss.String("message") != "" {
					return under(cmp.Or(issuePath(iss.Get("path")), field), ": ", iss.String("message"))
				}
			}
		}
		for _, k := range []string{"_errors", "formErrors"} {
			if s := firstMessage(t.Get(k), field, depth+1); s != "" {
				return s
			}
		}
		for _, m := range t {
			sub := under(field, ".", m.Key)
			switch _, text := m.Value.(string); {
			case m.Key == "fieldErrors":
				sub = field
			case m.Key == "issues" || m.Key == "_errors" || m.Key == "formErrors" || text:
				continue // a bare string beside structured errors is a value, not a message
			}
			if s := firstMessage(m.Value, sub, depth+1); s != "" {
				return s
			}
		}
	}
	return ""
}

// under joins s to the field it belongs to, if any, with sep.
func under(field, sep, s string) string {
	if field == "" {
		return s
	}
	return field + sep + s
}

// issuePath joins a zod issue's path (["price", 0] is "price.0").
func issuePath(v any) string {
	arr, _ := v.([]any)
	var parts []string
	for _, p := range arr {
		switch p.(type) {
		case string, json.Number:
			parts = append(parts, fmt.Sprint(p))
		}
	}
	return strings.Join(parts, ".")
}
