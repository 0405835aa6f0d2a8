package errmap

import (
	"cmp"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mindvault/mcp-endpoint/internal/redact"
	"github.com/mindvault/mcp-endpoint/internal/redact/lazyre"
)

// Map turns the facts of one failure into its three-line text and diagnostic. It is pure (same
// facts, same failure, once their secrets are known to package redact) and never panics: a bug in
// it is a generic failure (the tests call mapFacts, where a panic fails them).
func Map(f Facts) (out Failure) {
	defer func() {
		if r := recover(); r != nil {
			// What a (never expected) panic becomes uses no input at all.
			d := Diagnostic{
				Version: DiagnosticVersion, Code: CodeUnknown, Category: string(CategoryUnknown),
				Source: string(SourceRequest), Operation: "Request failed", Detail: "the failure could not be described",
				Next: nextUnknown, Retry: string(RetrySafe), StateChanged: string(StateUnknown),
			}
			out = Failure{Text: render(d.Operation, d.Detail, SourceRequest, CategoryUnknown, CodeUnknown, 0, d.Next), Diagnostic: d}
		}
	}()
	return mapFacts(&f)
}

func mapFacts(f *Facts) Failure {
	red := NewRedactor(f.Secrets)
	src := sources[f.Source.index()].src
	status := f.Status
	if status < 100 || status > 999 {
		status = 0
	}
	code, cat := classify(f, status)
	tool := red.ident(f.Tool, toolRE)
	txHash := red.txHash(f.TxHash)
	expires := red.expiry(f.PaymentExpiresAt)
	state := f.StateChanged
	switch {
	case state == "" && (txHash != "" || expires != ""):
		state = StateUnknown // TxHash and PaymentExpiresAt are documented as "sent, outcome unknown"
	case state == "":
		state = StateNo
	case state != StateNo && state != StateYes:
		state = StateUnknown // an unrecognised value is treated as the cautious one
	}

	// Issues: sanitise only what can be shown (line 1 holds far fewer than 64), count the rest.
	issues := make([]Issue, min(len(f.Issues), 64))
	for i := range issues {
		issues[i] = red.issue(f.Issues[i])
	}

	op := red.ownText(f.Operation, maxOperation)
	switch {
	case op != "":
	case len(f.Issues) == 0 && code != CodeInvalidArguments:
		op = sources[f.Source.index()].op
	case tool == "":
		op = "Invalid arguments (-32602)"
	default:
		op = "Invalid arguments for " + tool + " (-32602)"
	}

	var detail string
	if len(f.Issues) > 0 {
		detail = issuesLine(issues, len(f.Issues), MaxDetail-runes(op)-2)
	} else {
		detail = pickDetail(f, red, code, status)
		if cat == CategoryServer && status >= 500 && timeoutWords.MatchString(detail) {
			// A server that says "Request timeout" with a 503 failed; it did not time out on
			// the way here: line 1 must not contradict line 2's category.
			detail = src.Label() + " is unavailable (HTTP " + itoa(status) + ")"
		}
	}

	// Retry-After in delta-seconds (fractions round up); an HTTP-date needs a clock, and Map reads none.
	retryAfterS := seconds(header(f.Header, "Retry-After"), true)
	if retryAfterS == nil && f.RetryAfter != nil && *f.RetryAfter >= 0 && *f.RetryAfter <= 999_999_999 {
		wait := *f.RetryAfter
		retryAfterS = &wait
	}
	limit, remaining, reset := rateLimits(f.Header)
	// A 429 that says nothing about how long still gets a number: an agent told only "wait"
	// either hammers the service or gives up.
	defaultWait := false
	if retryAfterS == nil && cat == CategoryRateLimit {
		retryAfterS = reset
		if reset == nil {
			wait := DefaultRetryAfterSeconds
			retryAfterS, defaultWait = &wait, true
		}
	}

	next := red.ownText(f.Next, maxNext)
	if next == "" {
		tv := strings.TrimSpace(f.TimeoutVar)
		if len(tv) > 64 || !envVarRE.MatchString(tv) {
			tv = ""
		}
		// An operator's http(s) URL is kept only when it survives redaction whole.
		funding := f.Advice.FundingURL
		if (!strings.HasPrefix(funding, "https://") && !strings.HasPrefix(funding, "http://")) || len(funding) > 1024 || !red.safe(funding) {
			funding = ""
		}
		// The sentence is assembled from sanitised parts; the context-free rules apply once more.
		next = bound(red.own(advise(nextInput{
			cat: cat, code: code, src: src, tool: tool, timeoutVar: tv, retryAfter: retryAfterS, defaultWait: defaultWait,
			allowed: red.allowed(f.AllowedArgs), state: state, txHash: txHash, expiresAt: expires,
			contractName: red.contractName(f.Upstream), creator: red.ident(f.Advice.Creator, accountRE),
			guide: f.Guides.of(tool), guides: f.Guides, fundingURL: funding,
		})), maxNext)
	}

	action := f.NextAction
	if action == nil && f.LookUpTx && txHash != "" && state == StateUnknown {
		// A pending transaction whose hash is known is looked up with the RoleTxStatus tool.
		action = f.Guides.TxStatusAction(txHash)
	}
	d := Diagnostic{
		Version:           DiagnosticVersion,
		Code:              code,
		Category:          string(cat),
		Source:            string(src),
		Status:            status,
		Operation:         op,
		Detail:            detail,
		Next:              next,
		Retry:             string(retryVerdict(cat, code, state)),
		RetryAfterSeconds: retryAfterS,
		ExecutionStarted:  f.ExecutionStarted,
		StateChanged:      string(state),
		TxHash:            txHash,
		PaymentExpiresAt:  expires,
		NextAction:        red.nextAction(action),
		Needs:             string(needsFor(f, code, state)),
		Budget:            red.budget(f.Budget),
	}
	d.Upstream = upstream(f.Upstream, red, limit, remaining, reset)
	if len(issues) > 0 {
		keep := min(len(issues), MaxIssues)
		d.Issues = issues[:keep:keep]
		omitted := len(f.Issues) - keep
		d.OmittedIssues = &omitted
	}
	if code == CodeInvalidArguments {
		d.JSONRPCCode = JSONRPCInvalid
	}
	return Failure{Text: render(op, detail, src, cat, code, status, next), Diagnostic: d}
}

// render builds the three lines; each part is already one line. Line 2 is for programs that
// see only text: the category and the finer code, without parsing prose.
func render(op, detail string, src Source, cat Category, code string, status int, next string) string {
	s := op + ": " + detail + "\nSource: " + src.Label() + " · Category: " + string(cat) + " · Code: " + code
	if status > 0 {
		s += " · HTTP " + itoa(status)
	}
	return s + "\nNext: " + next
}

// pickDetail applies the detail order: the endpoint's own detail, what the downstream said as its
// client read it, the generic reading of a raw body, a description of that body, the code's phrase.
func pickDetail(f *Facts, red *Redactor, code string, status int) string {
	if s := red.ownText(f.Detail, MaxDetail); s != "" {
		return s
	}
	if s := red.text(f.UpstreamDetail, MaxDetail); s != "" {
		return s
	}
	body := ReadBody(f.Body)
	if s := red.text(body.Message, MaxDetail); s != "" {
		return s
	}
	suffix := ""
	if status > 0 {
		suffix = " (status " + itoa(status) + ")"
	}
	switch {
	case body.Truncated:
		return "response body is too large to read" + suffix
	case len(f.Body) > 0 && !body.JSON && !body.Empty:
		return "response body is not JSON" + suffix
	case body.Empty && status > 0:
		return "no response body"
	}
	return Phrase(code)
}

// upstream builds the allow-listed, value-free facts: code tokens and numbers only, each
// checked again here, because a client's classification is still outside text.
func upstream(u Upstream, red *Redactor, limit, remaining, reset *int) map[string]any {
	up := map[string]any{}
	if codes := slices.DeleteFunc(CodeTokens(u.ResultCodes), func(t string) bool { return !red.safe(t) }); len(codes) > 0 {
		up["resultCodes"] = codes
	}
	if u.ContractError > 0 {
		up["contractError"] = u.ContractError
		up["contractErrorName"] = red.contractName(u)
	}
	if r := strings.TrimSpace(u.X402Reason); len(r) <= 64 && resultCodeRE.MatchString(r) && red.safe(r) {
		up["x402Reason"] = r
	}
	if u.RPCCode != 0 {
		up["rpcCode"] = u.RPCCode
	}
	for k, v := range map[string]*int{"limit": limit, "remaining": remaining, "resetSeconds": reset} {
		if v != nil {
			up[k] = *v
		}
	}
	if len(up) == 0 {
		return nil
	}
	return up
}

// contractName is the contract error's name in its value-free shape: "" without a number,
// "Unknown" when the name is not an identifier or would be redacted.
func (r *Redactor) contractName(u Upstream) string {
	if u.ContractError <= 0 {
		return ""
	}
	return cmp.Or(r.ident(u.ContractErrorName, identRE), "Unknown")
}

var (
	identRE   = lazyre.New(`^[A-Za-z][A-Za-z0-9_]{0,63}$`)
	accountRE = lazyre.New(`^G[A-Z2-7]{55}$`)
	toolRE    = lazyre.New(`^[A-Za-z0-9_.-]{1,128}$`)
	argRE     = lazyre.New(`^[A-Za-z0-9_.-]{1,64}$`)
	txHashRE  = lazyre.New(`^(?i:sha256:)?([0-9A-Fa-f]{64})$`)
)

// text sanitises one string that came from outside: redact, make it one line, redact again
// (cleaning can join a secret back together), then bound, so a cut never leaves a secret's head.
func (r *Redactor) text(s string, n int) string { return r.sanitize(s, n, r.Redact) }

// ownText sanitises one of the endpoint's own sentences the same way, with the known values and
// unambiguous shapes only: the context rules (key=value, Bearer) would redact the product's advice.
func (r *Redactor) ownText(s string, n int) string { return r.sanitize(s, n, r.own) }

func (r *Redactor) sanitize(s string, n int, rules func(string) string) string {
	if s == "" {
		return ""
	}
	s = r.exact(s) // before any cut or cleaning, which could split a secret with spaces
	return bound(rules(precut(clean(precut(s, MaxBodyBytes)), preRedactBytes)), n)
}

// preRedactBytes bounds what the (linear but not cheap) redaction patterns ever scan; it is far
// more than any bound applied afterwards.
const preRedactBytes = 4096

// precut shortens s to at most limit bytes and drops the trailing word the cut went through: half
// a secret no longer matches its pattern, so it must not survive as a fragment (keyed patterns
// keep their key, so their remainder is still redacted).
func precut(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	cut := limit
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	s = s[:cut]
	if i := strings.LastIndexByte(s, ' '); i >= 0 {
		return s[:i]
	}
	return ""
}

// safe reports whether s survives redaction untouched; tokens that would not are dropped.
func (r *Redactor) safe(s string) bool {
	return r.Redact(s) == s
}

func (r *Redactor) ident(s string, re *lazyre.Regexp) string {
	s = strings.TrimSpace(s)
	if len(s) > 128 || !re.MatchString(s) || !r.safe(s) {
		return ""
	}
	return s
}

func (r *Redactor) allowed(in []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, a := range in {
		if len(out) == 64 {
			break
		}
		if a = r.ident(a, argRE); a != "" && !seen[a] {
			seen[a] = true
			out = append(out, a)
		}
	}
	return out
}

func (r *Redactor) txHash(s string) string {
	s = strings.TrimSpace(s)
	if m := txHashRE.FindStringSubmatch(s); m != nil {
		return strings.ToLower(m[1])
	}
	return r.text(s, 128)
}

// nextAction keeps a recovery tool call only when all of it can be shown as is: a tool name of the
// product's pattern, bounded argument names, and booleans or one-line bounded strings untouched by
// redaction (else a secret or a guess); a txHash is normalised like the diagnostic's own. Anything
// else drops the whole action: a partial call would be wrong.
func (r *Redactor) nextAction(a *NextAction) *NextAction {
	if a == nil {
		return nil
	}
	tool := strings.TrimSpace(a.Tool)
	if tool == "" || tool != a.Tool || r.ident(tool, toolRE) != tool || len(a.Arguments) > maxActionArgs {
		return nil
	}
	args := make(map[string]any, len(a.Arguments))
	for k, v := range a.Arguments {
		if r.ident(k, argRE) != k {
			return nil
		}
		switch v := v.(type) {
		case bool:
			args[k] = v
		case string:
			if v == "" || len(v) > maxActionValue || clean(v) != v || !r.safe(v) {
				return nil
			}
			if k == "txHash" {
				m := txHashRE.FindStringSubmatch(v)
				if m == nil {
					return nil
				}
				v = strings.ToLower(m[1])
			}
			args[k] = v
		case float64:
			// Whole numbers only (a page size, an offset): nothing a secret could hide in.
			if v != math.Trunc(v) || math.Abs(v) > 1<<53 {
				return nil
			}
			args[k] = v
		default:
			return nil
		}
	}
	return &NextAction{Tool: tool, Arguments: args}
}

// expiry normalises an RFC 3339 time to UTC, rounding a fraction up: telling an agent a time
// even slightly before the real expiry would invite a double payment.
func (r *Redactor) expiry(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return ""
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil || len(s) > 64 {
		return r.text(s, 64)
	}
	t = t.UTC()
	if t.Nanosecond() > 0 {
		t = t.Truncate(time.Second).Add(time.Second)
	}
	return t.Format(time.RFC3339)
}

var decimalRE = lazyre.New(`^\d{1,20}(\.\d{1,7})?$`)

// budget keeps a budget's figures when every one has its shape (decimals and a time).
func (r *Redactor) budget(b *Budget) *Budget {
	if b == nil {
		return nil
	}
	for _, v := range []string{b.LimitUSDC, b.SpentUSDC, b.AmountUSDC, b.RemainingUSDC} {
		if !decimalRE.MatchString(v) {
			return nil
		}
	}
	if _, err := time.Parse(time.RFC3339, b.ResetsAt); err != nil {
		return nil
	}
	c := *b
	return &c
}

// timeoutWords spot a detail that calls a failure a timeout.
var timeoutWords = lazyre.New(`(?i)\btime[ -]?out\b|\btimed out\b`)

// Redactor removes secrets from the strings of one failure: the registry's values (package
// redact) and this call's, in every encoded form, and the secret shapes; the zero value and nil use the registry alone.
type Redactor struct {
	extra *redact.Values
}

// NewRedactor prepares redaction of the given exact secret values on top of the registry's.
func NewRedactor(secrets []string) *Redactor {
	return &Redactor{extra: redact.NewValues(secrets)}
}

// Redact returns s, text from outside the endpoint, with every known secret and every
// secret-shaped value replaced by [REDACTED].
func (r *Redactor) Redact(s string) string {
	if s == "" {
		return s
	}
	// Exact values first, so a known secret disappears whole before a shape rule can split it.
	return redact.Shapes(r.exact(s))
}

// exact replaces the known values only.
func (r *Redactor) exact(s string) string {
	s = redact.Exact(s)
	if r != nil {
		s = r.extra.Replace(s)
	}
	return s
}

// own redacts one of the endpoint's own sentences: known values and the shapes that never
// occur in prose, so advice such as "configure MINDVAULT_CREDENTIALS=dir:<path>" survives.
func (r *Redactor) own(s string) string {
	return redact.Unambiguous(r.exact(s))
}

// header reads one header value case-insensitively and deterministically (the canonical key, then
// the first spelling in order): headers built from lower-cased maps, and map order is random.
func header(h http.Header, name string) string {
	if v, ok := h[http.CanonicalHeaderKey(name)]; ok && len(v) > 0 {
		return strings.TrimSpace(v[0])
	}
	first := ""
	for k, v := range h {
		if strings.EqualFold(k, name) && len(v) > 0 && (first == "" || k < first) {
			first = k
		}
	}
	if first == "" {
		return ""
	}
	return strings.TrimSpace(h[first][0])
}

// seconds parses a non-negative count of seconds of at most nine digits.
func seconds(v string, fractions bool) *int {
	v = strings.TrimSpace(v)
	if v == "" || len(v) > 12 {
		return nil
	}
	if n, err := strconv.Atoi(v); err == nil {
		if n < 0 || n > 999_999_999 {
			return nil
		}
		return &n
	}
	if !fractions || strings.ContainsAny(v, "eE+-xXpP_") {
		return nil
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || f < 0 || f > 999_999_999 || math.IsNaN(f) {
		return nil
	}
	n := int(math.Ceil(f))
	return &n
}

// rateLimits returns the allow-listed rate-limit numbers: Horizon's X-RateLimit-* and the IETF
// RateLimit-* spelling the MindVault API sends.
func rateLimits(h http.Header) (limit, remaining, reset *int) {
	pick := func(names ...string) *int {
		for _, n := range names {
			if p := seconds(header(h, n), false); p != nil {
				return p
			}
		}
		return nil
	}
	limit = pick("X-RateLimit-Limit", "RateLimit-Limit")
	remaining = pick("X-RateLimit-Remaining", "RateLimit-Remaining")
	reset = pick("X-RateLimit-Reset", "RateLimit-Reset")
	return limit, remaining, reset
}
