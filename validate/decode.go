package validate

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/go-playground/validator/v10"

	"github.com/mindvault/mcp-endpoint/errmap"
)

// Issue is one argument problem; the type is errmap's so the taxonomy formats it directly.
type Issue = errmap.Issue

// Decode strictly decodes a tool's arguments into a new T and validates it. A nil result
// means the arguments were rejected and issues says why.
func Decode[T any](raw json.RawMessage) (*T, []Issue) {
	m := For[T]()
	v := reflect.New(m.typ)
	issues := m.decode(raw, v.Elem())
	if len(issues) > 0 {
		return nil, issues
	}
	return v.Interface().(*T), nil
}

// Check decodes and validates arguments against the model without keeping the value.
func (m *Model) Check(raw json.RawMessage) []Issue {
	return m.decode(raw, reflect.New(m.typ).Elem())
}

func (m *Model) decode(raw json.RawMessage, dst reflect.Value) []Issue {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		raw = []byte("{}")
	}
	var args map[string]json.RawMessage
	if raw[0] != '{' || json.Unmarshal(raw, &args) != nil {
		return []Issue{{Path: "", Rule: "type", Expected: "object", Message: "must be an object"}}
	}

	// A key given twice is rejected, never resolved (dupkeys.go says why).
	var issues []Issue
	for _, d := range DuplicateKeys(raw, "", "") {
		var p strings.Builder
		for _, st := range d.Path {
			if st.Index >= 0 {
				p.WriteString("/" + strconv.Itoa(st.Index))
			} else {
				p.WriteString("/" + pointerToken(st.Key))
			}
		}
		issues = append(issues, Issue{Path: p.String(), Rule: "duplicate", Expected: "each key once",
			Message: "is given more than once in the same object"})
	}
	var unknown []Issue
	for key := range args {
		if _, ok := m.byName[key]; !ok {
			unknown = append(unknown, Issue{Path: "/" + pointerToken(key), Rule: "unknown", Message: "is not an allowed argument"})
		}
	}
	sort.Slice(unknown, func(i, j int) bool { return unknown[i].Path < unknown[j].Path })

	bad := map[string]bool{} // fields with a presence or type issue; their rule errors would repeat it
	for _, f := range m.fields {
		val, present := args[f.Name]
		path := "/" + pointerToken(f.Name)
		fv := dst.FieldByIndex(f.path)
		if !present {
			switch {
			case f.Required:
				bad[f.Name] = true
				issues = append(issues, Issue{Path: path, Rule: "required", Expected: f.kind.expected(), Message: "is required"})
			case len(f.def) > 0:
				assign(fv, f, f.def, path) // compileField decoded it once already
			}
			continue
		}
		if iss := assign(fv, f, val, path); len(iss) > 0 {
			bad[f.Name] = true
			issues = append(issues, iss...)
		}
	}

	if err := validatorEngine().Struct(dst.Addr().Interface()); err != nil {
		var verrs validator.ValidationErrors
		if !errors.As(err, &verrs) {
			issues = append(issues, Issue{Path: "", Rule: "invalid", Message: "could not be validated"})
		}
		for _, fe := range verrs {
			path, top := namespacePath(fe.Namespace())
			if bad[top] {
				continue
			}
			issues = append(issues, ruleIssue(m.byName[top], fe, path))
		}
	}

	if cc, ok := dst.Addr().Interface().(CrossChecker); ok && len(issues) == 0 && len(unknown) == 0 {
		issues = append(issues, cc.CrossCheck()...)
	}
	// Deterministic: unknown arguments first, then the request model's field order.
	order := func(p string) int {
		top, _, _ := strings.Cut(strings.TrimPrefix(p, "/"), "/")
		if f, ok := m.byName[tokenUnescaper.Replace(top)]; ok {
			return f.order
		}
		return math.MaxInt
	}
	sort.SliceStable(issues, func(i, j int) bool { return order(issues[i].Path) < order(issues[j].Path) })
	return append(unknown, issues...)
}

// assign decodes one argument into its field and normalises it (normalise).
func assign(fv reflect.Value, f *field, val json.RawMessage, path string) []Issue {
	typeIssue := func(p string, k kind) []Issue {
		msg := "must be " + article(k.expected())
		if k == kAmount {
			msg = `must be a string or a number, a USDC amount like "1.5" or 1.5`
		}
		return []Issue{{Path: p, Rule: "type", Expected: k.expected(), Message: msg}}
	}
	target := fv
	if f.ptr {
		target = reflect.New(fv.Type().Elem())
		fv.Set(target)
		target = target.Elem()
	}
	switch f.kind {
	case kString:
		s, ok := jsonString(val)
		if !ok {
			return typeIssue(path, kString)
		}
		target.SetString(s)
	case kAmount:
		if s, ok := jsonString(val); ok {
			target.SetString(s) // checked by the shape, as every string is
			break
		}
		if len(val) == 0 || (val[0] != '-' && (val[0] < '0' || val[0] > '9')) {
			return typeIssue(path, kAmount)
		}
		s, ok := amountNumber(val)
		if !ok {
			// The shape's own issue: the same refusal a string of that value gets.
			sh := f.amountShape()
			return []Issue{{Path: path, Rule: sh.tag, Expected: sh.expected, Message: sh.message}}
		}
		target.SetString(s) // within an amount's reach; the shape checks its bounds
	case kBool:
		if string(val) != "true" && string(val) != "false" {
			return typeIssue(path, kBool)
		}
		target.SetBool(string(val) == "true")
	case kInt:
		// val is valid JSON, so only a number parses; 20.0 and 2e1 are integers in JSON Schema's sense.
		n, err := strconv.ParseInt(string(val), 10, 64)
		if err != nil {
			if x, ferr := strconv.ParseFloat(string(val), 64); ferr == nil && x == math.Trunc(x) && math.Abs(x) <= 1<<53 {
				n, err = int64(x), nil
			}
		}
		if err != nil || target.OverflowInt(n) {
			return typeIssue(path, kInt)
		}
		target.SetInt(n)
	case kStrings:
		var items []json.RawMessage
		if len(val) == 0 || val[0] != '[' || json.Unmarshal(val, &items) != nil {
			return typeIssue(path, kStrings)
		}
		out := reflect.MakeSlice(target.Type(), 0, len(items))
		var issues []Issue
		for i, it := range items {
			s, ok := jsonString(it)
			if !ok {
				issues = append(issues, typeIssue(path+"/"+strconv.Itoa(i), kString)...)
				continue
			}
			out = reflect.Append(out, reflect.ValueOf(s))
		}
		if len(issues) > 0 {
			return issues
		}
		target.Set(out)
	}
	normalise(f, target)
	return nil
}

func jsonString(val json.RawMessage) (string, bool) {
	if len(val) == 0 || val[0] != '"' {
		return "", false
	}
	var s string
	if json.Unmarshal(val, &s) != nil {
		return "", false
	}
	return strings.TrimSpace(s), true
}

// namespacePath turns validator's "Req.tags[2]" into "/tags/2" and returns the top field name.
func namespacePath(ns string) (string, string) {
	_, rest, _ := strings.Cut(ns, ".")
	var b strings.Builder
	top := ""
	for _, seg := range strings.Split(rest, ".") {
		name, idx, hasIdx := strings.Cut(seg, "[")
		if top == "" {
			top = name
		}
		b.WriteString("/" + pointerToken(name))
		if hasIdx {
			b.WriteString("/" + strings.TrimSuffix(idx, "]"))
		}
	}
	return b.String(), top
}

// ruleIssue phrases one validator failure without the rejected value.
func ruleIssue(f *field, fe validator.FieldError, path string) Issue {
	tag, p := fe.Tag(), fe.Param()
	k := kString // for a slice element too
	if f != nil && strings.Count(path, "/") <= 1 {
		k = f.kind
	}
	is := Issue{Path: path, Rule: tag}
	switch tag {
	case "required":
		is.Rule, is.Expected, is.Message = "nonempty", "non-empty "+k.expected(), "must not be empty"
	case "min", "gte", "max", "lte":
		bound := "at least " + p
		if tag == "max" || tag == "lte" {
			bound = "at most " + p
		}
		switch {
		case k == kString && bound == "at least 1":
			is.Expected, is.Message = "non-empty string", "must not be empty"
		case k == kString:
			is.Expected, is.Message = bound+" characters", "must be "+bound+" characters"
		case k == kStrings:
			is.Expected, is.Message = bound+" items", "must have "+bound+" items"
		default:
			is.Expected, is.Message = bound, "must be "+bound
		}
	case "oneof":
		vals := strings.Join(strings.Fields(p), ", ")
		is.Expected, is.Message = "one of: "+vals, "must be one of: "+vals
	case "email":
		is.Expected, is.Message = "email address", "must be an email address"
	default:
		if sh, ok := shapeByTag[tag]; ok {
			is.Expected, is.Message = sh.expected, sh.message
		} else {
			is.Message = "is invalid (" + tag + ")"
		}
	}
	return is
}

func article(s string) string {
	if strings.IndexByte("aeiou", s[0]) >= 0 {
		return "an " + s
	}
	return "a " + s
}

// pointerToken escapes and bounds a JSON-pointer token: argument names come from the caller.
func pointerToken(s string) string {
	const max = 64
	plain := len(s) <= max
	for i := 0; plain && i < len(s); i++ {
		c := s[i]
		plain = c >= 0x20 && c < 0x7f && c != '~' && c != '/'
	}
	if plain { // the usual case: an argument name that needs nothing done
		return s
	}
	if len(s) > max {
		cut := max
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r == utf8.RuneError {
			return -1
		}
		return r
	}, s)
	return tokenEscaper.Replace(s)
}

var (
	tokenEscaper   = strings.NewReplacer("~", "~0", "/", "~1")
	tokenUnescaper = strings.NewReplacer("~1", "/", "~0", "~")
)
