package sandbox

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Fault kinds.
const (
	KindStatus    = "status"
	KindHTML      = "html"
	KindEmpty     = "empty"
	KindMalformed = "malformed"
	KindRPCError  = "rpcerror"
	KindDelay     = "delay"
	KindDrop      = "drop"

	// Chain kinds (service=rpc): they change what the simulated chain answers, not the transport.
	KindTryAgain      = "tryagain"
	KindNoCommit      = "nocommit"
	KindArchived      = "archived"
	KindNoContract    = "nocontract"
	KindContractError = "contracterror"

	// Custody kinds (service=sponsor, POST /create): the service creates the account, but not
	// one whose key only the caller holds.
	KindOwnKey   = "ownkey"
	KindCosigner = "cosigner"
)

// FaultKey is one key of a fault rule and the values it takes, in one line of Markdown.
type FaultKey struct{ Name, Values string }

// FaultKeys lists every key a rule may have, in the order the documentation shows them: the
// parser knows exactly these, and docs/sandbox.md's table of keys is generated from it
// (FaultKeysMarkdown). Which kind needs or accepts which key is in FaultKinds.
var FaultKeys = []FaultKey{
	{"service", "`api`, `horizon`, `rpc`, `sponsor` (required)"},
	{"target", "HTTP: `METHOD /path`, where `*` matches one path segment (or any method); RPC: a JSON-RPC method; `*` (the default) matches everything"},
	{"kind", "what happens (required, below)"},
	{"count", "affect this many matching requests, then the rule is spent (default: all)"},
	{"status", "the HTTP status"},
	{"body", "a body sent as is instead of the usual one"},
	{"retry-after", "a `Retry-After` header (seconds or an HTTP date)"},
	{"header", "one extra response header, `Name:Value`; may repeat"},
	{"delay", "a Go duration, for `kind=delay`"},
	{"code", "the JSON-RPC error code (`rpcerror`), or the contract error number (`contracterror`)"},
	{"message", "the JSON-RPC error message (`rpcerror`; default: the usual one for the code)"},
	{"paid", "api only: `true` matches only requests carrying a payment, `false` only unpaid ones"},
	{"after", "`true` (with `status` or `drop`): the real handler runs first, so what it does (a settlement, a creation) happens, then the fault answers instead, keeping a settlement's `PAYMENT-RESPONSE` on a status answer: a server that acted and failed to answer"},
	{"proof", "`drop` (with `after=true` and `status`): the settlement's `PAYMENT-RESPONSE` is not kept either, as a seller that settled and then refused without saying so; `keep` (the default) keeps it"},
}

// commonKeys are the keys any kind takes besides service, target and kind (within the limits
// of each key: paid is for the api, after for status and drop), unless the kind forbids them.
var commonKeys = []string{"count", "retry-after", "header", "paid", "after", "proof"}

// FaultKeysMarkdown is the Markdown table of FaultKeys that docs/sandbox.md carries.
func FaultKeysMarkdown() string {
	var b strings.Builder
	b.WriteString("| key | values |\n|---|---|\n")
	for _, k := range FaultKeys {
		fmt.Fprintf(&b, "| `%s` | %s |\n", k.Name, strings.ReplaceAll(k.Values, "|", "\\|"))
	}
	return b.String()
}

// FaultKind describes one kind of fault: where it applies, which keys it takes and what it
// does.
type FaultKind struct {
	Name string
	// Services are the services it applies to; nil means every service.
	Services []string
	// Targets are the only targets it applies to, the first being the default; nil means any.
	Targets []string
	// Needs are the keys it requires; Allows the further keys it accepts besides service,
	// target, kind and commonKeys; Forbids the common keys it refuses because no response is
	// written for them to shape.
	Needs, Allows, Forbids []string
	// Effect is what happens, in one line of Markdown (the docs/sandbox.md table).
	Effect string
}

// FaultKinds lists every fault kind, in the order the documentation shows them. It is the one
// source of the kinds: the parser accepts exactly these, with these services, targets and
// keys, and docs/sandbox.md's table of kinds is generated from it (FaultKindsMarkdown).
var FaultKinds = []FaultKind{
	{Name: KindStatus, Needs: []string{"status"}, Allows: []string{"body"},
		Effect: "answer `status=N` with the service's usual error body for it (a problem document from Horizon, `{\"error\": ...}` from the API), or `body`"},
	{Name: KindHTML, Needs: []string{"status"}, Allows: []string{"body"},
		Effect: "an nginx-style HTML error page with `status=N`"},
	{Name: KindEmpty, Needs: []string{"status"},
		Effect: "`status=N` and no body"},
	{Name: KindMalformed, Allows: []string{"body"},
		Effect: "HTTP 200 with JSON of the wrong shape for that route (or method), or `body`"},
	{Name: KindRPCError, Services: []string{ServiceRPC}, Needs: []string{"code"}, Allows: []string{"message"},
		Effect: "a JSON-RPC error object with HTTP 200"},
	{Name: KindDelay, Needs: []string{"delay"},
		Effect: "stall, then answer normally; the stall ends early when the client gives up, which the server notices only once it has read the request body: a POST stalled before its body is read waits out its delay, then does its work, as a write that lands after its caller timed out"},
	{Name: KindDrop, Forbids: []string{"retry-after", "header"},
		Effect: "close the connection without an answer"},
	{Name: KindTryAgain, Services: []string{ServiceRPC}, Targets: []string{"sendTransaction"},
		Effect: "`sendTransaction` answers `TRY_AGAIN_LATER` without accepting"},
	{Name: KindNoCommit, Services: []string{ServiceRPC}, Targets: []string{"sendTransaction"},
		Effect: "`sendTransaction` says `PENDING` but the transaction never lands"},
	{Name: KindArchived, Services: []string{ServiceRPC}, Targets: []string{"simulateTransaction"},
		Effect: "`simulateTransaction` answers with a `restorePreamble`"},
	{Name: KindNoContract, Services: []string{ServiceRPC}, Targets: []string{"simulateTransaction", "sendTransaction"},
		Effect: "the contract instance is missing (`Error(Storage, MissingValue)`)"},
	{Name: KindContractError, Services: []string{ServiceRPC}, Targets: []string{"simulateTransaction", "sendTransaction"}, Needs: []string{"code"},
		Effect: "`Error(Contract, #code)` in simulation, or as the applied transaction's failure"},
	{Name: KindOwnKey, Services: []string{ServiceSponsor}, Targets: []string{"POST /create"},
		Effect: "the service ignores the requested `publicKey`, generates the key pair itself and answers `{publicKey, secretKey}`: it knows the new wallet's key"},
	{Name: KindCosigner, Services: []string{ServiceSponsor}, Targets: []string{"POST /create"},
		Effect: "the service creates the account with a second signer of weight 1 that it keeps (Horizon lists it, with its sponsored reserve): the caller's key does not control the account alone"},
}

// faultKind looks a kind up by name.
func faultKind(name string) (FaultKind, bool) {
	i := slices.IndexFunc(FaultKinds, func(k FaultKind) bool { return k.Name == name })
	if i < 0 {
		return FaultKind{}, false
	}
	return FaultKinds[i], true
}

// isChainKind reports a kind that changes what the simulated chain answers (an rpc kind
// bound to transaction methods) rather than the transport.
func isChainKind(name string) bool {
	k, ok := faultKind(name)
	return ok && slices.Equal(k.Services, []string{ServiceRPC}) && k.Targets != nil
}

// orList joins names as "a, b or c".
func orList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// kindList is every kind's name, for error messages.
func kindList() string {
	names := make([]string, len(FaultKinds))
	for i, k := range FaultKinds {
		names[i] = k.Name
	}
	return orList(names)
}

// FaultKindsMarkdown is the Markdown table of FaultKinds that docs/sandbox.md carries.
func FaultKindsMarkdown() string {
	code := func(list []string) []string {
		out := make([]string, len(list))
		for i, s := range list {
			out[i] = "`" + s + "`"
		}
		return out
	}
	var b strings.Builder
	b.WriteString("| kind | services (targets) | keys | effect |\n|---|---|---|---|\n")
	for _, k := range FaultKinds {
		where := "any"
		if k.Services != nil {
			where = strings.Join(code(k.Services), ", ")
		}
		if k.Targets != nil {
			where += " (" + strings.Join(code(k.Targets), ", ") + ")"
		}
		var keys []string
		if k.Needs != nil {
			keys = append(keys, strings.Join(code(k.Needs), ", "))
		}
		if k.Allows != nil {
			keys = append(keys, "optional "+strings.Join(code(k.Allows), ", "))
		}
		if k.Forbids != nil {
			keys = append(keys, "no "+strings.Join(code(k.Forbids), ", "))
		}
		if keys == nil {
			keys = []string{"-"}
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", k.Name, where, strings.Join(keys, "; "), strings.ReplaceAll(k.Effect, "|", "\\|"))
	}
	fmt.Fprintf(&b, "\nA kind with targets applies to those only; a rule without a target takes the first.\n"+
		"Besides its own keys, any kind takes %s, except those it says no to.\n", orList(code(commonKeys)))
	return b.String()
}

// Service names, as used in fault plans and Count.
const (
	ServiceAPI     = "api"
	ServiceHorizon = "horizon"
	ServiceRPC     = "rpc"
	ServiceSponsor = "sponsor"
)

// Fault is one parsed rule of a fault plan.
type Fault struct {
	Service    string        // api | horizon | rpc | sponsor
	Target     string        // "METHOD /path" with * segments, an RPC method, or "*"
	Kind       string        // one of the Kind constants
	Status     int           // HTTP status (status, html, empty)
	Body       string        // replaces the default body (status, html, malformed); "" = default
	Code       int           // JSON-RPC error code (rpcerror) or contract error number (contracterror)
	Message    string        // JSON-RPC error message (rpcerror); "" = the usual one for Code
	Delay      time.Duration // how long to stall (delay)
	Count      int           // requests to affect before the rule is spent; 0 = all
	RetryAfter string        // Retry-After value, seconds or an HTTP date
	Headers    []Header      // extra response headers
	// Paid restricts an api rule to requests that carry PAYMENT-SIGNATURE (true) or that
	// do not (false); nil matches both.
	Paid *bool
	// After runs the real handler first, so whatever it does (a settlement, a creation)
	// happens, and then answers with the fault instead; a settlement's PAYMENT-RESPONSE is
	// kept on a status answer. It models a server that acted and then failed to answer.
	After bool
	// DropProof, with After on a status answer, drops the settlement's PAYMENT-RESPONSE too.
	DropProof bool
}

// Header is one extra response header of a fault.
type Header struct{ Name, Value string }

// ParseFaults parses a fault plan (syntax in the package doc) so config can validate it at start.
func ParseFaults(plan string) ([]Fault, error) {
	plan = strings.TrimSpace(plan)
	if plan == "" {
		return nil, nil
	}
	if strings.HasPrefix(plan, "[") {
		return parseJSONPlan(plan)
	}
	var out []Fault
	for i, text := range strings.Split(plan, ";") {
		text = strings.TrimSpace(text)
		if text == "" {
			continue // tolerate a trailing ';'
		}
		kv := map[string]string{}
		var headers []string
		for _, tok := range strings.Split(text, ",") {
			tok = strings.TrimSpace(tok)
			if tok == "" {
				continue
			}
			k, v, ok := strings.Cut(tok, "=")
			k, v = strings.ToLower(strings.TrimSpace(k)), strings.TrimSpace(v)
			if !ok {
				return nil, ruleErr(i, text, k, "want key=value")
			}
			if k == "header" {
				headers = append(headers, v)
				continue
			}
			if _, dup := kv[k]; dup {
				return nil, ruleErr(i, text, k, "given twice")
			}
			kv[k] = v
		}
		f, key, err := buildFault(kv, headers)
		if err != nil {
			return nil, ruleErr(i, text, key, err.Error())
		}
		out = append(out, f)
	}
	return out, nil
}

func ruleErr(i int, text, key, msg string) error {
	return fmt.Errorf("sandbox fault plan: rule %d (%q): %s: %s", i+1, text, key, msg)
}

// parseJSONPlan accepts numbers or strings for numeric keys and a string or an array of
// strings for header, then validates exactly like the compact form.
func parseJSONPlan(plan string) ([]Fault, error) {
	var rules []map[string]json.RawMessage
	dec := json.NewDecoder(strings.NewReader(plan))
	dec.UseNumber()
	if err := dec.Decode(&rules); err != nil {
		return nil, fmt.Errorf("sandbox fault plan: JSON form: %v", err)
	}
	var out []Fault
	for i, r := range rules {
		text := fmt.Sprintf("JSON object %d", i+1)
		kv := map[string]string{}
		var headers []string
		for k, raw := range r {
			lk := strings.ToLower(k)
			if lk == "header" || lk == "headers" {
				var list []string
				if err := json.Unmarshal(raw, &list); err != nil {
					var one string
					if err := json.Unmarshal(raw, &one); err != nil {
						return nil, ruleErr(i, text, k, "want a string or an array of strings")
					}
					list = []string{one}
				}
				headers = append(headers, list...)
				continue
			}
			var s string
			if err := json.Unmarshal(raw, &s); err != nil {
				var n json.Number
				if err := json.Unmarshal(raw, &n); err != nil {
					return nil, ruleErr(i, text, k, "want a string or a number")
				}
				s = n.String()
			}
			kv[lk] = s
		}
		f, key, err := buildFault(kv, headers)
		if err != nil {
			return nil, ruleErr(i, text, key, err.Error())
		}
		out = append(out, f)
	}
	return out, nil
}

// buildFault validates one rule; it returns the offending key with any error.
func buildFault(kv map[string]string, headers []string) (Fault, string, error) {
	var f Fault
	f.Service = kv["service"]
	switch f.Service {
	case ServiceAPI, ServiceHorizon, ServiceRPC, ServiceSponsor:
	case "":
		return f, "service", fmt.Errorf("required (api, horizon, rpc or sponsor)")
	default:
		return f, "service", fmt.Errorf("unknown service %q (want api, horizon, rpc or sponsor)", f.Service)
	}
	target, err := normalizeTarget(f.Service, kv["target"])
	if err != nil {
		return f, "target", err
	}
	f.Target = target
	f.Kind = strings.ToLower(kv["kind"])
	kind, known := faultKind(f.Kind)
	switch {
	case f.Kind == "":
		return f, "kind", fmt.Errorf("required (%s)", kindList())
	case !known:
		return f, "kind", fmt.Errorf("unknown kind %q (want %s)", f.Kind, kindList())
	case kind.Services != nil && !slices.Contains(kind.Services, f.Service):
		return f, "kind", fmt.Errorf("%s is only for service=%s", f.Kind, orList(kind.Services))
	}
	if kind.Targets != nil {
		if f.Target == "*" {
			f.Target = kind.Targets[0]
		} else if !slices.Contains(kind.Targets, f.Target) {
			return f, "target", fmt.Errorf("kind=%s applies to %s, got %q", f.Kind, orList(kind.Targets), f.Target)
		}
	}
	needs := map[string]bool{} // keys the kind requires
	// header is checked apart, since it may repeat and so is not in kv.
	allowed := map[string]bool{"service": true, "target": true, "kind": true}
	for _, k := range commonKeys {
		allowed[k] = true
	}
	for _, k := range kind.Needs {
		needs[k] = true
	}
	for _, k := range kind.Allows {
		allowed[k] = true
	}
	for _, k := range kind.Forbids {
		delete(allowed, k)
		if k == "header" && len(headers) > 0 { // header may repeat, so it is not in kv
			return f, "header", fmt.Errorf("has no effect with kind=%s (no response is written)", f.Kind)
		}
	}
	for k := range needs {
		allowed[k] = true
		if kv[k] == "" {
			return f, k, fmt.Errorf("required with kind=%s", f.Kind)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(kv)) { // sorted: the same plan always names the same key
		if !allowed[k] {
			if isKnownKey(k) {
				return f, k, fmt.Errorf("not allowed with kind=%s", f.Kind)
			}
			return f, k, fmt.Errorf("unknown key")
		}
	}
	if v, ok := kv["paid"]; ok {
		if f.Service != ServiceAPI {
			return f, "paid", fmt.Errorf("only for service=api (the paid routes)")
		}
		b, err := strconv.ParseBool(v)
		if err != nil || (v != "true" && v != "false") {
			return f, "paid", fmt.Errorf("want true or false, got %q", v)
		}
		f.Paid = &b
	}
	if v, ok := kv["after"]; ok {
		b, err := strconv.ParseBool(v)
		if err != nil || (v != "true" && v != "false") {
			return f, "after", fmt.Errorf("want true or false, got %q", v)
		}
		if b && f.Kind != KindStatus && f.Kind != KindDrop {
			return f, "after", fmt.Errorf("only with kind=status or kind=drop")
		}
		f.After = b
	}
	if v, ok := kv["proof"]; ok {
		if v != "keep" && v != "drop" {
			return f, "proof", fmt.Errorf("want keep or drop, got %q", v)
		}
		if !f.After || f.Kind != KindStatus {
			return f, "proof", fmt.Errorf("only with kind=status and after=true")
		}
		f.DropProof = v == "drop"
	}
	if v, ok := kv["status"]; ok {
		n, err := strconv.Atoi(v)
		if err != nil || n < 200 || n > 599 {
			return f, "status", fmt.Errorf("want an HTTP status 200-599, got %q", v)
		}
		f.Status = n
	}
	if v, ok := kv["body"]; ok {
		if v == "" {
			return f, "body", fmt.Errorf("empty (use kind=empty for a response without a body)")
		}
		f.Body = v
	}
	if v, ok := kv["code"]; ok {
		n, err := strconv.Atoi(v)
		switch {
		case f.Kind == KindContractError && (err != nil || n < 1 || n > math.MaxUint32):
			return f, "code", fmt.Errorf("want a contract error number 1-4294967295, got %q", v)
		case err != nil:
			return f, "code", fmt.Errorf("want an integer JSON-RPC error code, got %q", v)
		}
		f.Code = n
	}
	f.Message = kv["message"]
	if v, ok := kv["delay"]; ok {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return f, "delay", fmt.Errorf("want a positive Go duration such as 500ms or 3s, got %q", v)
		}
		f.Delay = d
	}
	if v, ok := kv["count"]; ok {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return f, "count", fmt.Errorf("want an integer ≥ 1, got %q", v)
		}
		f.Count = n
	}
	if v, ok := kv["retry-after"]; ok {
		if n, err := strconv.Atoi(v); err != nil || n < 0 {
			if _, err := http.ParseTime(v); err != nil {
				return f, "retry-after", fmt.Errorf("want seconds (an integer ≥ 0) or an HTTP date, got %q", v)
			}
		}
		f.RetryAfter = v
	}
	for _, h := range headers {
		name, value, ok := strings.Cut(h, ":")
		name, value = strings.TrimSpace(name), strings.TrimSpace(value)
		if !ok || name == "" || strings.ContainsAny(name, " \t\r\n") || strings.ContainsAny(value, "\r\n") {
			return f, "header", fmt.Errorf("want Name:Value, got %q", h)
		}
		f.Headers = append(f.Headers, Header{http.CanonicalHeaderKey(name), value})
	}
	return f, "", nil
}

func isKnownKey(k string) bool {
	return slices.ContainsFunc(FaultKeys, func(f FaultKey) bool { return f.Name == k })
}

// normalizeTarget checks a target and gives it one canonical spelling (upper-case method,
// single space) so matching is a plain segment comparison.
func normalizeTarget(service, t string) (string, error) {
	t = strings.TrimSpace(t)
	if t == "" || t == "*" {
		return "*", nil
	}
	if service == ServiceRPC {
		if strings.ContainsAny(t, " /") {
			return "", fmt.Errorf("for service=rpc want a JSON-RPC method name or *, got %q", t)
		}
		return t, nil
	}
	method, path, ok := strings.Cut(t, " ")
	path = strings.TrimSpace(path)
	if !ok || !strings.HasPrefix(path, "/") || strings.ContainsAny(path, " ?#") {
		return "", fmt.Errorf("want \"METHOD /path\" (a * path segment matches any one segment) or *, got %q", t)
	}
	method = strings.ToUpper(method)
	if method != "*" && strings.Trim(method, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") != "" {
		return "", fmt.Errorf("bad method %q", method)
	}
	return method + " " + path, nil
}

// matchTarget reports whether a rule's target matches a concrete request key ("GET /a/b" or
// an RPC method name). The same matcher serves faults, Count and the API route table.
func matchTarget(pattern, key string) bool {
	if pattern == "*" {
		return true
	}
	pm, pp, ok := strings.Cut(pattern, " ")
	if !ok {
		return pattern == key // RPC method
	}
	km, kp, ok := strings.Cut(key, " ")
	if !ok || (pm != "*" && pm != km) {
		return false
	}
	return matchPath(pp, kp) != nil
}

// matchPath matches a path against a pattern of segments where * stands for exactly one
// segment; it returns the segments the stars matched, or nil when the path does not match.
func matchPath(pattern, path string) []string {
	ps := strings.Split(strings.TrimPrefix(pattern, "/"), "/")
	ks := strings.Split(strings.TrimPrefix(path, "/"), "/")
	if len(ps) != len(ks) {
		return nil
	}
	params := []string{}
	for i := range ps {
		switch {
		case ps[i] == "*":
			params = append(params, ks[i])
		case ps[i] != ks[i]:
			return nil
		}
	}
	return params
}

// plan is the live fault plan; remaining counts down per rule (-1 = unlimited).
type plan struct {
	rules     []Fault
	remaining []int
}

func newPlan(rules []Fault) *plan {
	p := &plan{rules: rules, remaining: make([]int, len(rules))}
	for i, r := range rules {
		p.remaining[i] = r.Count
		if r.Count == 0 {
			p.remaining[i] = -1
		}
	}
	return p
}

// take returns the first unspent rule matching any of the keys (and, for rules with Paid,
// whether the request carries a payment) and spends one use of it. The caller holds the
// sandbox lock.
func (p *plan) take(service string, keys []string, paid bool) *Fault {
	if p == nil {
		return nil
	}
	for i := range p.rules {
		r := &p.rules[i]
		if r.Service != service || p.remaining[i] == 0 || (r.Paid != nil && *r.Paid != paid) {
			continue
		}
		for _, k := range keys {
			if matchTarget(r.Target, k) {
				if p.remaining[i] > 0 {
					p.remaining[i]--
				}
				f := *r
				return &f
			}
		}
	}
	return nil
}

// setFaultHeaders applies retry-after and header= before anything is written.
func setFaultHeaders(w http.ResponseWriter, f *Fault) {
	if f.RetryAfter != "" {
		w.Header().Set("Retry-After", f.RetryAfter)
	}
	for _, h := range f.Headers {
		w.Header().Add(h.Name, h.Value)
	}
}

// proxyHTML is what nginx-style proxies in front of the real services send.
func proxyHTML(status int) string {
	line := fmt.Sprintf("%d %s", status, http.StatusText(status))
	return "<html>\r\n<head><title>" + line + "</title></head>\r\n<body>\r\n<center><h1>" + line +
		"</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n"
}

// writeRaw writes a custom body, labelling it JSON when it looks like JSON.
func writeRaw(w http.ResponseWriter, status int, body string) {
	ct := "text/plain; charset=utf-8"
	if b := bytes.TrimSpace([]byte(body)); len(b) > 0 && (b[0] == '{' || b[0] == '[') {
		ct = "application/json; charset=utf-8"
	}
	w.Header().Set("Content-Type", ct)
	w.WriteHeader(status)
	_, _ = w.Write([]byte(body))
}

// writeCommonFault handles the kinds that look the same on every service. It reports false
// for the kinds the service must render itself (status without a body, malformed, rpcerror).
func writeCommonFault(w http.ResponseWriter, f *Fault) bool {
	switch {
	case f.Kind == KindHTML:
		body := f.Body
		if body == "" {
			body = proxyHTML(f.Status)
		}
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(f.Status)
		_, _ = w.Write([]byte(body))
	case f.Kind == KindEmpty:
		w.Header().Del("Content-Type")
		w.Header().Set("Content-Length", "0")
		w.WriteHeader(f.Status)
	case f.Kind == KindStatus && f.Body != "":
		writeRaw(w, f.Status, f.Body)
	case f.Kind == KindMalformed && f.Body != "":
		writeRaw(w, http.StatusOK, f.Body)
	default:
		return false
	}
	return true
}
