package errmap

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// body is what Map learns from a response body. Nothing else of the body is ever used.
type body struct {
	empty       bool     // no bytes (or only whitespace)
	json        bool     // the first MaxBodyBytes parsed as one JSON value
	truncated   bool     // longer than MaxBodyBytes and not parseable in that prefix
	message     string   // the extracted detail, raw (cleaned and redacted later)
	token       string   // machine token from "error"/"code" (e.g. price_mismatch), lower case
	resultCodes []string // Horizon extras.result_codes, flattened
	retryAfter  *int     // top-level retryAfterSeconds (MindVault API 429)
}

// maxJSONDepth bounds the ordered decoder; deeper values are skipped, never recursed into.
const maxJSONDepth = 32

// member and object keep JSON objects in body order, so "the first message" is deterministic
// and means the first one the service wrote.
type member struct {
	key string
	val any
}

type object []member

func (o object) get(key string) any {
	for _, m := range o {
		if m.key == key {
			return m.val
		}
	}
	return nil
}

func (o object) str(key string) string {
	s, _ := o.get(key).(string)
	return strings.TrimSpace(s)
}

func parseBody(raw []byte) body {
	var b body
	cut := raw
	if len(cut) > MaxBodyBytes {
		cut = cut[:MaxBodyBytes]
	}
	trimmed := bytes.TrimSpace(bytes.TrimPrefix(bytes.TrimSpace(cut), []byte("\xef\xbb\xbf")))
	if len(trimmed) == 0 {
		b.empty = len(raw) <= MaxBodyBytes
		b.truncated = !b.empty
		return b
	}
	v, ok := decodeJSON(trimmed)
	if !ok {
		b.truncated = len(raw) > MaxBodyBytes
		return b
	}
	b.json = true
	switch t := v.(type) {
	case string:
		b.message = t
	case object:
		b.fromObject(t)
	case []any:
		b.message = findMessage(t, 0)
	}
	return b
}

// fromObject applies the detail rule (docs/errors.md "The three-line text"): the first non-empty
// string of error, message, detail, reason, title; a problem document gives its title plus result
// codes instead of its long detail; an object under "error" (zod, JSON-RPC) gives the first
// message found inside it.
func (b *body) fromObject(o object) {
	if n, ok := o.get("retryAfterSeconds").(json.Number); ok {
		if f, err := n.Float64(); err == nil && f >= 0 && f < 1e9 {
			s := int(math.Ceil(f))
			b.retryAfter = &s
		}
	}
	for _, k := range []string{"error", "code"} {
		if s := strings.ToLower(o.str(k)); machineTokenRE.MatchString(s) {
			b.token = s
			break
		}
	}
	if ex, ok := o.get("extras").(object); ok {
		if rc, ok := ex.get("result_codes").(object); ok {
			b.resultCodes = flattenResultCodes(rc)
		}
	}
	if o.str("error") == "" && o.str("message") == "" && o.str("type") != "" && o.str("title") != "" {
		b.message = o.str("title")
		if len(b.resultCodes) > 0 {
			b.message += " (" + strings.Join(b.resultCodes, ", ") + ")"
		}
		return
	}
	for _, k := range []string{"error", "message", "detail", "reason", "title"} {
		switch v := o.get(k).(type) {
		case string:
			s := strings.TrimSpace(v)
			if s == "" {
				continue
			}
			// {error: "price_mismatch", message: "..."}: the code alone tells an agent little.
			if k == "error" && machineTokenRE.MatchString(s) && strings.Contains(s, "_") {
				if m := o.str("message"); m != "" {
					s += ": " + m
				}
			}
			b.message = s
			return
		case object, []any:
			if k == "error" {
				if s := findMessage(v, 0); s != "" {
					b.message = s
					return
				}
			}
		}
	}
	if arr, ok := o.get("errors").([]any); ok {
		b.message = findMessage(arr, 0)
	}
}

var machineTokenRE = regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)

// findMessage searches a nested error value for its first human message: "message" strings,
// zod issues[] (prefixed with their path), and zod format() "_errors" arrays (prefixed with the
// field name, which is a schema name and never a submitted value).
func findMessage(v any, depth int) string {
	return findMessageAt(v, "", depth)
}

func findMessageAt(v any, field string, depth int) string {
	if depth > maxJSONDepth {
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
			if s := findMessageAt(e, field, depth+1); s != "" {
				return s
			}
		}
	case object:
		for _, k := range []string{"message", "detail", "reason", "title"} {
			if s := t.str(k); s != "" {
				return prefix(s)
			}
		}
		if issues, ok := t.get("issues").([]any); ok {
			for _, is := range issues {
				iss, ok := is.(object)
				if !ok {
					continue
				}
				if s := iss.str("message"); s != "" {
					if p := issuePath(iss.get("path")); p != "" {
						return p + ": " + s
					}
					return prefix(s)
				}
			}
		}
		for _, k := range []string{"_errors", "formErrors"} {
			if s := findMessageAt(t.get(k), field, depth+1); s != "" {
				return s
			}
		}
		for _, m := range t {
			switch m.key {
			case "issues", "_errors", "formErrors":
				continue
			case "fieldErrors":
				if s := findMessageAt(m.val, field, depth+1); s != "" {
					return s
				}
				continue
			}
			if _, ok := m.val.(string); ok {
				continue // a bare string beside structured errors is a value, not a message
			}
			sub := m.key
			if field != "" {
				sub = field + "." + m.key
			}
			if s := findMessageAt(m.val, sub, depth+1); s != "" {
				return s
			}
		}
	}
	return ""
}

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

func flattenResultCodes(rc object) []string {
	var out []string
	add := func(v any) {
		if s, ok := v.(string); ok {
			out = append(out, s)
		}
	}
	add(rc.get("transaction"))
	add(rc.get("inner_transaction"))
	if ops, ok := rc.get("operations").([]any); ok {
		for _, op := range ops {
			add(op)
		}
	}
	return sanitizeCodes(out)
}

var resultCodeRE = regexp.MustCompile(`^[a-z][a-z0-9_]{0,63}$`)

// sanitizeCodes keeps only value-free code tokens: they go to upstream verbatim.
func sanitizeCodes(in []string) []string {
	var out []string
	for _, c := range in {
		if len(out) == 16 {
			break
		}
		c = strings.TrimSpace(c)
		if len(c) <= 64 && resultCodeRE.MatchString(c) {
			out = append(out, c)
		}
	}
	return out
}

// decodeJSON decodes exactly one JSON value, keeping object order and bounding depth.
func decodeJSON(data []byte) (v any, ok bool) {
	if !json.Valid(data) {
		return nil, false
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decodeValue(dec, 0)
	if err != nil {
		return nil, false
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, false
	}
	return v, true
}

func decodeValue(dec *json.Decoder, depth int) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return tok, nil
	}
	if depth >= maxJSONDepth {
		return nil, skipValue(dec)
	}
	switch d {
	case '{':
		var o object
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return nil, err
			}
			k, _ := kt.(string)
			v, err := decodeValue(dec, depth+1)
			if err != nil {
				return nil, err
			}
			o = append(o, member{k, v})
		}
		_, err = dec.Token()
		return o, err
	case '[':
		var a []any
		for dec.More() {
			v, err := decodeValue(dec, depth+1)
			if err != nil {
				return nil, err
			}
			a = append(a, v)
		}
		_, err = dec.Token()
		return a, err
	}
	return nil, nil
}

// skipValue consumes the rest of a container whose opening delimiter was already read.
func skipValue(dec *json.Decoder) error {
	level := 1
	for level > 0 {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		if d, ok := tok.(json.Delim); ok {
			if d == '{' || d == '[' {
				level++
			} else {
				level--
			}
		}
	}
	return nil
}

// clean makes s one line: invalid UTF-8 becomes U+FFFD, line breaks and tabs become spaces,
// other control and format characters (including bidi overrides that could disguise text) go,
// and runs of spaces collapse.
func clean(s string) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range s {
		switch {
		case r == '\n' || r == '\r' || r == '\t' || r == '\v' || r == '\f' || r == 0x85 ||
			r == '\u2028' || r == '\u2029' || unicode.IsSpace(r):
			space = true
			continue
		case unicode.IsControl(r) || unicode.Is(unicode.Cf, r):
			continue
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		b.WriteRune(r)
	}
	return b.String()
}

// bound cuts s to at most n runes, marking the cut with an ellipsis.
func bound(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i, count := 0, 0
	for i < len(s) && count < n-1 {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
		count++
	}
	return strings.TrimRight(s[:i], " ") + "…"
}

func runes(s string) int { return utf8.RuneCountInString(s) }

func itoa(n int) string { return strconv.Itoa(n) }
