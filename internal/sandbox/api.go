package sandbox

import (
	"cmp"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/mindvault/mcp-endpoint/internal/clients/mindvault"
)

// apiRoute is one MindVault API route. Routes are matched in order with the fault matcher,
// so a later issue adds the paid and write routes by appending rows.
type apiRoute struct {
	method, pattern string
	handle          func(s *Sandbox, w http.ResponseWriter, r *http.Request, params []string)
	malformed       string // a 200 body of the wrong shape for this route (kind=malformed)
}

var apiRoutes = []apiRoute{
	{"GET", "/resources", (*Sandbox).apiCatalog, `{"resources":[],"total":0}`},
	{"GET", "/resources/*/meta", (*Sandbox).apiMeta, `{"id":42,"title":["not","a","string"],"price":1.5,"onchainStatus":{}}`},
	{"GET", "/resources/*/verification", (*Sandbox).apiVerification, `{"resourceId":"x","status":7,"listed":"yes","verification":"none"}`},
	{"GET", "/agent/status", (*Sandbox).apiAgentStatus, `{"agent":"active","stats":[],"recentActivity":{}}`},
	// Paid (x402) and publisher routes: api_paid.go, api_publish.go.
	{"GET", "/resources/*", (*Sandbox).apiBuy, `{"url":42,"receipt":"paid"}`},
	{"POST", "/verify-content", (*Sandbox).apiVerifyContent, `{"isOriginal":"yes","confidence":"high","flags":{}}`},
	{"POST", "/publishers", (*Sandbox).apiCreatePublisher, `{"id":null,"apiKey":42}`},
	{"POST", "/resources", (*Sandbox).apiCreateResource, `{"id":7,"title":null,"price":1.5}`},
	{"GET", "/resources/*/register/prepare", (*Sandbox).apiPrepareRegistration, `{"unsignedXdr":42,"networkPassphrase":[]}`},
	{"POST", "/resources/*/register", (*Sandbox).apiRegister, `{"onchainStatus":7,"txHash":[]}`},
	{"GET", "/buyers/*/payments", (*Sandbox).apiBuyerPayments, `{"payments":"none"}`},
	// A test control of the sandbox only (prices.go).
	{"POST", "/sandbox/resources/*/price", (*Sandbox).apiSetPrice, `{}`},
	// The pages the seeded link resources deliver (links.go), hosted by the sandbox.
	{"GET", linkPath + "*", (*Sandbox).apiLinkTarget, `{"page":null}`},
}

func (s *Sandbox) apiService() *service {
	return &service{s: s, name: ServiceAPI, keys: httpKey, serve: s.apiServe, fault: s.apiFault, stallsInside: true}
}

// ownStall names the routes that place a delay fault's stall themselves for some requests
// (the request's work comes after a step the stall must not precede); every other request
// stalls before its route runs.
var ownStall = map[string]func(r *http.Request) bool{
	"POST /resources": func(r *http.Request) bool { return r.Header.Get("Idempotency-Key") != "" },
}

func (s *Sandbox) apiRoute(r *http.Request) (*apiRoute, []string) {
	for i := range apiRoutes {
		rt := &apiRoutes[i]
		if rt.method != r.Method {
			continue
		}
		if params := matchPath(rt.pattern, r.URL.Path); params != nil {
			return rt, params
		}
	}
	return nil, nil
}

func stallsItself(rt *apiRoute, r *http.Request) bool {
	if rt == nil {
		return false
	}
	own := ownStall[rt.method+" "+rt.pattern]
	return own != nil && own(r)
}

func (s *Sandbox) apiServe(w http.ResponseWriter, r *http.Request) {
	rt, params := s.apiRoute(r)
	if !stallsItself(rt, r) && !stall(r) {
		return // the client gave up during a delay fault: free the handler
	}
	if rt == nil {
		apiError(w, http.StatusNotFound, "Not found")
		return
	}
	rt.handle(s, w, r, params)
}

// apiFault renders status and malformed faults as the real server would look.
func (s *Sandbox) apiFault(w http.ResponseWriter, r *http.Request, f *Fault) {
	if f.Kind == KindMalformed {
		body := `{"data":null}`
		if rt, _ := s.apiRoute(r); rt != nil {
			body = rt.malformed
		}
		writeJSONRaw(w, http.StatusOK, body)
		return
	}
	switch f.Status {
	case http.StatusTooManyRequests: // the body the API's rate limiter (express-rate-limit) sends
		secs := 60
		if n, err := strconv.Atoi(f.RetryAfter); err == nil {
			secs = n
		}
		writeJSON(w, f.Status, map[string]any{"error": "Too many requests", "code": "RATE_LIMITED", "retryAfterSeconds": secs})
	default:
		apiError(w, f.Status, apiErrorText(f.Status))
	}
}

// apiErrorText is the message the real server uses for a status where it has one.
func apiErrorText(status int) string {
	switch status {
	case 400:
		return "Invalid request"
	case 401:
		return "Invalid API key"
	case 402:
		return "Payment required"
	case 403:
		return "Forbidden: you do not own this resource"
	case 404:
		return "Resource not found"
	case 409:
		return "Resource is already registered on-chain"
	case 500:
		return "Internal server error"
	case 503:
		return "Request timeout" // the server's own request-timeout middleware answers 503
	}
	if t := http.StatusText(status); t != "" {
		return t
	}
	return fmt.Sprintf("HTTP %d", status)
}

func apiError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]string{"error": msg})
}

// catalogParams are the query parameters GET /resources accepts, in the server's schema order.
var catalogParams = []string{"search", "minPrice", "maxPrice", "verificationStatus", "resourceType", "owner", "sort", "limit", "offset"}

var decimalRE = regexp.MustCompile(`^\d+(\.\d+)?$`)

type catalogQuery struct {
	search, owner, status, kind, sort string
	minPrice, maxPrice                *float64
	limit, offset                     int
}

// parseCatalogQuery mirrors the server's strict zod schema and its first-issue messages.
func parseCatalogQuery(q url.Values) (catalogQuery, string) {
	c := catalogQuery{sort: "newest", limit: 20}
	get := func(k string) (string, bool, string) {
		v, ok := q[k]
		if !ok {
			return "", false, ""
		}
		if len(v) > 1 { // Express turns a repeated key into an array
			return "", true, fmt.Sprintf("%s: Expected string, received array", k)
		}
		return v[0], true, ""
	}
	enum := func(k, v string, allowed ...string) string {
		if slices.Contains(allowed, v) {
			return ""
		}
		return fmt.Sprintf("Invalid enum value. Expected '%s', received '%s'", strings.Join(allowed, "' | '"), v)
	}
	for _, k := range catalogParams {
		v, ok, msg := get(k)
		if msg != "" {
			return c, msg
		}
		if !ok {
			continue
		}
		switch k {
		case "search":
			c.search = v
		case "owner":
			c.owner = v
		case "minPrice", "maxPrice":
			if !decimalRE.MatchString(v) {
				return c, k + " must be a decimal number such as 1.50"
			}
			n, _ := strconv.ParseFloat(v, 64)
			if k == "minPrice" {
				c.minPrice = &n
			} else {
				c.maxPrice = &n
			}
		case "verificationStatus":
			if msg := enum(k, v, "verified", "pending", "rejected"); msg != "" {
				return c, msg
			}
			c.status = v
		case "resourceType":
			if msg := enum(k, v, "file", "link"); msg != "" {
				return c, msg
			}
			c.kind = v
		case "sort":
			if msg := enum(k, v, "newest", "price_asc", "price_desc", "title"); msg != "" {
				return c, msg
			}
			c.sort = v
		case "limit", "offset":
			n, msg := coerceInt(v)
			if msg != "" {
				return c, msg
			}
			lo, hi := 1, 100
			if k == "offset" {
				lo, hi = 0, -1
			}
			if n < lo {
				return c, fmt.Sprintf("Number must be greater than or equal to %d", lo)
			}
			if hi >= 0 && n > hi {
				return c, fmt.Sprintf("Number must be less than or equal to %d", hi)
			}
			if k == "limit" {
				c.limit = n
			} else {
				c.offset = n
			}
		}
	}
	var unknown []string
	for k := range q {
		if !slices.Contains(catalogParams, k) {
			unknown = append(unknown, "'"+k+"'")
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		return c, "Unrecognized key(s) in object: " + strings.Join(unknown, ", ")
	}
	return c, ""
}

// coerceInt is z.coerce.number().int(): JavaScript's Number() on the string, then an integer.
func coerceInt(v string) (int, string) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, ""
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil {
		return 0, "Expected number, received nan"
	}
	if f != float64(int(f)) {
		return 0, "Expected integer, received float"
	}
	return int(f), ""
}

// listingBody is what a catalog row and /meta both say about a resource, as the server
// writes it (null for a resource without a MIME type or a thumbnail).
type listingBody struct {
	ID                 string  `json:"id"`
	Title              string  `json:"title"`
	Description        string  `json:"description"`
	Price              string  `json:"price"`
	ResourceType       string  `json:"resourceType"`
	MimeType           *string `json:"mimeType"`
	ThumbnailPath      *string `json:"thumbnailPath"`
	VerificationStatus string  `json:"verificationStatus"`
	PublisherName      string  `json:"publisherName"`
	CreatedAt          string  `json:"createdAt"`
	AccessURL          string  `json:"accessUrl"`
	// The real API's rows and /meta carry no tags: they live on chain only.
}

func (s *Sandbox) listing(r *resource) listingBody {
	return listingBody{
		ID: r.id, Title: r.title, Description: r.description, Price: r.price, ResourceType: r.kind,
		MimeType: nullable(r.mime), ThumbnailPath: nullable(r.thumbnail), VerificationStatus: r.status,
		PublisherName: r.publisher, CreatedAt: jsTime(r.created), AccessURL: s.APIURL + "/resources/" + r.id,
	}
}

type catalogRow struct {
	listingBody
	WalletAddress string `json:"walletAddress"`
}

func (s *Sandbox) apiCatalog(w http.ResponseWriter, r *http.Request, _ []string) {
	q, msg := parseCatalogQuery(r.URL.Query())
	if msg != "" {
		apiError(w, http.StatusBadRequest, msg)
		return
	}
	s.syncCatalog()
	s.world.cat.RLock()
	defer s.world.cat.RUnlock()
	var rows []*resource
	for _, res := range slices.Backward(s.world.resources) { // newest first, so ties stay newest first
		if !res.listed || !q.matches(res) {
			continue
		}
		rows = append(rows, res)
	}
	slices.SortStableFunc(rows, func(a, b *resource) int {
		pa, _ := parseStroops(a.price)
		pb, _ := parseStroops(b.price)
		switch q.sort {
		case "price_asc":
			return cmp.Compare(pa, pb)
		case "price_desc":
			return cmp.Compare(pb, pa)
		case "title":
			return strings.Compare(strings.ToLower(a.title), strings.ToLower(b.title))
		}
		return b.created.Compare(a.created)
	})
	total := len(rows)
	page := []catalogRow{}
	for i := q.offset; i < total && i < q.offset+q.limit; i++ {
		page = append(page, catalogRow{s.listing(rows[i]), rows[i].wallet})
	}
	h := w.Header()
	h.Set("X-Total-Count", strconv.Itoa(total))
	h.Set("X-Limit", strconv.Itoa(q.limit))
	h.Set("X-Offset", strconv.Itoa(q.offset))
	if q.offset+q.limit < total {
		h.Set("X-Next-Offset", strconv.Itoa(q.offset+q.limit))
	}
	h.Set("Cache-Control", "public, max-age=10")
	writeJSON(w, http.StatusOK, page)
}

func (q catalogQuery) matches(r *resource) bool {
	price, _ := parseStroops(r.price)
	p := float64(price) / stroops
	switch {
	case q.search != "" && !matchesWords(r.title+"\n"+r.description, q.search),
		q.minPrice != nil && p < *q.minPrice,
		q.maxPrice != nil && p > *q.maxPrice,
		q.status != "" && r.status != q.status,
		q.kind != "" && r.kind != q.kind,
		q.owner != "" && !containsFold(r.publisher, q.owner) && !containsFold(r.wallet, q.owner):
		return false
	}
	return true
}

type metaBody struct {
	listingBody
	PublisherWallet string  `json:"publisherWallet"`
	OnchainStatus   string  `json:"onchainStatus"`
	OnchainTxHash   *string `json:"onchainTxHash"`
	ContentHash     string  `json:"contentHash"`
	ThumbnailURL    string  `json:"thumbnailUrl,omitempty"`
	Size            *int    `json:"size,omitempty"` // a file's length in bytes
}

func (s *Sandbox) apiMeta(w http.ResponseWriter, _ *http.Request, params []string) {
	s.syncCatalog()
	s.world.cat.RLock()
	defer s.world.cat.RUnlock()
	res, ok := s.world.byID[params[0]]
	if !ok {
		apiError(w, http.StatusNotFound, "Resource not found")
		return
	}
	m := metaBody{listingBody: s.listing(res), PublisherWallet: res.wallet,
		OnchainStatus: res.onchain, OnchainTxHash: nullable(res.onchainTx), ContentHash: contentHash(res)}
	if strings.HasPrefix(res.mime, "image/") {
		m.ThumbnailURL = s.APIURL + "/resources/" + res.id + "/thumbnail"
	}
	if res.kind == "file" {
		body, _ := fileContent(res)
		n := len(body)
		m.Size = &n
	}
	writeJSON(w, http.StatusOK, m)
}

// verdict is the verification outcome in the product's own wire type: the record's every field
// is one the client reads, so the two sides share one declaration.
func (v *verification) verdict() *mindvault.VerificationResult {
	if v == nil {
		return nil
	}
	return &mindvault.VerificationResult{IsOriginal: v.original, Confidence: v.confidence, Flags: v.flags, CheckedAt: jsTime(v.checked)}
}

func (s *Sandbox) apiVerification(w http.ResponseWriter, _ *http.Request, params []string) {
	s.world.cat.RLock()
	defer s.world.cat.RUnlock()
	res, ok := s.world.byID[params[0]]
	if !ok {
		apiError(w, http.StatusNotFound, "Resource not found")
		return
	}
	listed := res.listed
	writeJSON(w, http.StatusOK, mindvault.Verification{ResourceID: res.id, Title: res.title, Status: res.status, Listed: &listed,
		PublishedAt: jsTime(res.created), Verification: res.check.verdict()})
}

// verificationFee is the agent's price per verification, a decimal USDC string.
const verificationFee = "0.10"

func (s *Sandbox) apiAgentStatus(w http.ResponseWriter, _ *http.Request, _ []string) {
	s.world.cat.RLock()
	defer s.world.cat.RUnlock()
	type activity struct {
		ID            string   `json:"id"`
		ResourceTitle string   `json:"resourceTitle"`
		IsOriginal    bool     `json:"isOriginal"`
		Confidence    float64  `json:"confidence"`
		Flags         []string `json:"flags"`
		CheckedAt     string   `json:"checkedAt"`
	}
	var recent []activity
	verified, rejected, sum := 0, 0, 0.0
	for _, res := range s.world.resources {
		if res.check == nil {
			continue
		}
		if res.check.original {
			verified++
		} else {
			rejected++
		}
		sum += res.check.confidence
		recent = append(recent, activity{"vrf_" + res.id, res.title, res.check.original, res.check.confidence, res.check.flags, jsTime(res.check.checked)})
	}
	slices.Reverse(recent) // newest first
	recent = recent[:min(len(recent), 10)]
	total := verified + rejected
	fee, _ := parseStroops(verificationFee)
	avg := 0.0
	if total > 0 {
		avg = sum / float64(total)
	}
	// The real server sends the statistics as strings: avgConfidence toFixed(2), totalEarned
	// toFixed(4), estimatedCostUsd toFixed(6).
	earned := fee * int64(total)
	writeJSON(w, http.StatusOK, map[string]any{
		"agent": map[string]any{
			"name": "MindVault Verification Agent", "walletAddress": s.world.byName["agent"].Address,
			"network": "stellar:testnet", "endpoint": s.APIURL + "/verify-content",
			"pricePerVerification": verificationFee, "currency": "USDC", "status": "active",
		},
		"stats": map[string]any{
			"totalVerifications": total, "verified": verified, "rejected": rejected,
			"totalEarned":   fmt.Sprintf("%d.%04d", earned/stroops, earned%stroops/1000),
			"avgConfidence": fmt.Sprintf("%.2f", avg),
		},
		"usage": map[string]any{
			"totalPromptTokens": 400 * total, "totalCompletionTokens": 40 * total, "totalTokens": 440 * total,
			"estimatedCostUsd": fmt.Sprintf("%.6f", 0.0018*float64(total)), "model": "anthropic/claude-sonnet-4",
		},
		"recentActivity": recent,
	})
}

// contentHash is what the server stores: sha256 of the normalised URL (here the id) and title.
func contentHash(r *resource) string {
	h := seedHash("content/" + r.id + "\n" + r.title)
	return fmt.Sprintf("%x", h[:])
}

// jsTime renders a time as JavaScript's toISOString does.
func jsTime(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05.000Z")
}

// usdcDecimal renders stroops as a two-decimal price when exact ("0.80"), else all digits.
func usdcDecimal(v int64) string {
	s := amount(v)
	if strings.HasSuffix(s, "00000") {
		return s[:len(s)-5]
	}
	return strings.TrimRight(s, "0")
}

func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// matchesWords reports whether every word of query starts a word of text, case-insensitively:
// a search for "rust" finds "Rust Ownership" and "rusty", not "trustlines".
func matchesWords(text, query string) bool {
	isSep := func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }
	words := strings.FieldsFunc(strings.ToLower(text), isSep)
	for _, q := range strings.FieldsFunc(strings.ToLower(query), isSep) {
		if !slices.ContainsFunc(words, func(w string) bool { return strings.HasPrefix(w, q) }) {
			return false
		}
	}
	return true
}

func containsFold(s, sub string) bool {
	return strings.Contains(strings.ToLower(s), strings.ToLower(sub))
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	writeJSONRaw(w, status, string(b))
}

func writeJSONRaw(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write([]byte(body))
}
