package sandbox

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/stellar/go-stellar-sdk/strkey"
)

// Horizon's rate limit as SDF documents it: 3600 requests per hour per IP.
const horizonRateLimit = 3600

// The JSON types below copy the field names and order of protocols/horizon, which is not
// imported here because it would pull a logging stack into the product binary; the tests
// decode these bodies with the SDK types to prove they match.

type hzLink struct {
	Href      string `json:"href"`
	Templated bool   `json:"templated,omitempty"`
}

type hzProblem struct {
	Type   string         `json:"type"`
	Title  string         `json:"title"`
	Status int            `json:"status"`
	Detail string         `json:"detail,omitempty"`
	Extras map[string]any `json:"extras,omitempty"`
}

type hzBalance struct {
	Balance                           string `json:"balance"`
	Limit                             string `json:"limit,omitempty"`
	BuyingLiabilities                 string `json:"buying_liabilities"`
	SellingLiabilities                string `json:"selling_liabilities"`
	LastModifiedLedger                uint32 `json:"last_modified_ledger,omitempty"`
	IsAuthorized                      *bool  `json:"is_authorized,omitempty"`
	IsAuthorizedToMaintainLiabilities *bool  `json:"is_authorized_to_maintain_liabilities,omitempty"`
	IsClawbackEnabled                 *bool  `json:"is_clawback_enabled,omitempty"`
	Sponsor                           string `json:"sponsor,omitempty"`
	AssetType                         string `json:"asset_type"`
	AssetCode                         string `json:"asset_code,omitempty"`
	AssetIssuer                       string `json:"asset_issuer,omitempty"`
}

type hzSigner struct {
	Weight  int32  `json:"weight"`
	Key     string `json:"key"`
	Type    string `json:"type"`
	Sponsor string `json:"sponsor,omitempty"`
}

type hzAccount struct {
	Links              map[string]hzLink `json:"_links"`
	ID                 string            `json:"id"`
	AccountID          string            `json:"account_id"`
	Sequence           string            `json:"sequence"`
	SequenceLedger     uint32            `json:"sequence_ledger,omitempty"`
	SequenceTime       string            `json:"sequence_time,omitempty"`
	SubentryCount      int32             `json:"subentry_count"`
	LastModifiedLedger uint32            `json:"last_modified_ledger"`
	LastModifiedTime   string            `json:"last_modified_time"`
	Thresholds         map[string]uint8  `json:"thresholds"`
	Flags              map[string]bool   `json:"flags"`
	Balances           []hzBalance       `json:"balances"`
	Signers            []hzSigner        `json:"signers"`
	Data               map[string]string `json:"data"`
	NumSponsoring      uint32            `json:"num_sponsoring"`
	NumSponsored       uint32            `json:"num_sponsored"`
	Sponsor            string            `json:"sponsor,omitempty"`
	PagingToken        string            `json:"paging_token"`
}

func (s *Sandbox) horizonService() *service {
	return &service{s: s, name: ServiceHorizon, keys: httpKey, prepare: s.horizonRateHeaders,
		serve: s.horizonServe, fault: s.horizonFault}
}

// horizonRateHeaders sends X-RateLimit-* on every response, as Horizon does while its limiter
// is on; a faulted 429 reports nothing remaining.
func (s *Sandbox) horizonRateHeaders(w http.ResponseWriter, f *Fault) {
	elapsed := int(s.now().Sub(s.t0) / time.Second)
	s.mu.Lock()
	if w := elapsed / 3600; w != s.hzWindow { // a new hour: the allowance is back in full
		s.hzWindow, s.hzCount = w, 0
	}
	s.hzCount++
	used := s.hzCount
	s.mu.Unlock()
	remaining := max(horizonRateLimit-used, 0)
	if f != nil && f.Status == http.StatusTooManyRequests {
		remaining = 0
	}
	h := w.Header()
	h.Set("X-Ratelimit-Limit", strconv.Itoa(horizonRateLimit))
	h.Set("X-Ratelimit-Remaining", strconv.Itoa(remaining))
	h.Set("X-Ratelimit-Reset", strconv.Itoa(3600-((elapsed%3600)+3600)%3600))
}

func (s *Sandbox) horizonServe(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/":
		writeHAL(w, s.horizonRoot())
	case r.Method == http.MethodGet && matchPath("/accounts/*", r.URL.Path) != nil:
		s.horizonAccount(w, strings.TrimPrefix(r.URL.Path, "/accounts/"))
	default:
		writeProblem(w, problemFor(http.StatusNotFound))
	}
}

func (s *Sandbox) horizonAccount(w http.ResponseWriter, addr string) {
	if _, err := strkey.Decode(strkey.VersionByteAccountID, addr); err != nil {
		p := problemFor(http.StatusBadRequest)
		p.Extras = map[string]any{"invalid_field": "account_id",
			"reason": "Account ID must start with `G` and contain 56 alphanum characters"}
		writeProblem(w, p)
		return
	}
	unlock := s.lockChain() // the sponsored-account service adds accounts
	acc, ok := s.world.byAddr[addr]
	unlock()
	if !ok {
		writeProblem(w, problemFor(http.StatusNotFound))
		return
	}
	writeHAL(w, s.accountJSON(acc))
}

func (s *Sandbox) accountJSON(a *chainAccount) hzAccount {
	defer s.lockChain()() // the sequence, XLM balance and last-modified ledger change as transactions apply
	t := true
	base := s.HorizonURL + "/accounts/" + a.Address
	var balances []hzBalance
	for _, l := range a.lines { // Horizon lists trustlines first and the native balance last
		balances = append(balances, hzBalance{
			Balance: amount(l.balance), Limit: amount(maxTrustLine), BuyingLiabilities: amount(0),
			SellingLiabilities: amount(0), LastModifiedLedger: l.lastModified, IsAuthorized: &t,
			IsAuthorizedToMaintainLiabilities: &t, IsClawbackEnabled: new(bool), Sponsor: l.sponsor,
			AssetType: "credit_alphanum4", AssetCode: l.code, AssetIssuer: l.issuer,
		})
	}
	balances = append(balances, hzBalance{Balance: amount(a.native), BuyingLiabilities: amount(0),
		SellingLiabilities: amount(0), AssetType: "native"})
	return hzAccount{
		Links: map[string]hzLink{
			"self":         {Href: base},
			"transactions": {Href: base + "/transactions{?cursor,limit,order}", Templated: true},
			"operations":   {Href: base + "/operations{?cursor,limit,order}", Templated: true},
			"payments":     {Href: base + "/payments{?cursor,limit,order}", Templated: true},
			"effects":      {Href: base + "/effects{?cursor,limit,order}", Templated: true},
			"offers":       {Href: base + "/offers{?cursor,limit,order}", Templated: true},
			"trades":       {Href: base + "/trades{?cursor,limit,order}", Templated: true},
			"data":         {Href: base + "/data/{key}", Templated: true},
		},
		ID: a.Address, AccountID: a.Address, Sequence: strconv.FormatInt(a.seq, 10),
		SequenceLedger: a.lastModified, SequenceTime: strconv.FormatInt(s.closeTime(a.lastModified), 10),
		SubentryCount: int32(len(a.lines) + len(a.cosigners)), LastModifiedLedger: a.lastModified,
		LastModifiedTime: time.Unix(s.closeTime(a.lastModified), 0).UTC().Format(time.RFC3339),
		Thresholds:       map[string]uint8{"low_threshold": 0, "med_threshold": 0, "high_threshold": 0},
		Flags:            map[string]bool{"auth_required": false, "auth_revocable": false, "auth_immutable": false, "auth_clawback_enabled": false},
		Balances:         balances,
		Signers:          signers(a),
		Data:             map[string]string{},
		NumSponsoring:    a.numSponsoring, NumSponsored: a.numSponsored, Sponsor: a.sponsor,
		PagingToken: a.Address,
	}
}

// signers lists an account's signers as Horizon does: any added signer, then the master key.
func signers(a *chainAccount) []hzSigner {
	out := make([]hzSigner, 0, len(a.cosigners)+1)
	for _, k := range a.cosigners {
		out = append(out, hzSigner{Weight: 1, Key: k, Type: "ed25519_public_key", Sponsor: a.sponsor})
	}
	return append(out, hzSigner{Weight: 1, Key: a.Address, Type: "ed25519_public_key"})
}

func (s *Sandbox) horizonRoot() map[string]any {
	latest := s.LatestLedger()
	link := func(p string, templated bool) hzLink { return hzLink{Href: s.HorizonURL + p, Templated: templated} }
	return map[string]any{
		"_links": map[string]hzLink{
			"account":              link("/accounts/{account_id}", true),
			"accounts":             link("/accounts{?signer,sponsor,asset,liquidity_pool,cursor,limit,order}", true),
			"account_transactions": link("/accounts/{account_id}/transactions{?cursor,limit,order}", true),
			"assets":               link("/assets{?asset_code,asset_issuer,cursor,limit,order}", true),
			"effects":              link("/effects{?cursor,limit,order}", true),
			"fee_stats":            link("/fee_stats", false),
			"ledger":               link("/ledgers/{sequence}", true),
			"ledgers":              link("/ledgers{?cursor,limit,order}", true),
			"operation":            link("/operations/{id}", true),
			"operations":           link("/operations{?cursor,limit,order,include_failed}", true),
			"order_book":           link("/order_book{?selling_asset_type,selling_asset_code,selling_asset_issuer,buying_asset_type,buying_asset_code,buying_asset_issuer,limit}", true),
			"payments":             link("/payments{?cursor,limit,order,include_failed}", true),
			"self":                 link("/", false),
			"trade_aggregations":   link("/trade_aggregations?base_asset_type={base_asset_type}&counter_asset_type={counter_asset_type}", true),
			"trades":               link("/trades?base_asset_type={base_asset_type}&counter_asset_type={counter_asset_type}", true),
			"transaction":          link("/transactions/{hash}", true),
			"transactions":         link("/transactions{?cursor,limit,order}", true),
		},
		"horizon_version":                 "23.0.0-sandbox",
		"core_version":                    "stellar-core 23.0.1 (mindvault sandbox)",
		"ingest_latest_ledger":            latest,
		"history_latest_ledger":           latest,
		"history_latest_ledger_closed_at": time.Unix(s.closeTime(latest), 0).UTC().Format(time.RFC3339),
		"history_elder_ledger":            s.oldestLedger(latest),
		"core_latest_ledger":              latest,
		"network_passphrase":              s.Passphrase,
		"current_protocol_version":        protocolVersion,
		"supported_protocol_version":      protocolVersion,
		"core_supported_protocol_version": protocolVersion,
	}
}

// horizonFault renders status and malformed faults the way Horizon would.
func (s *Sandbox) horizonFault(w http.ResponseWriter, r *http.Request, f *Fault) {
	if f.Kind != KindMalformed {
		writeProblem(w, problemFor(f.Status))
		return
	}
	body := `[]`
	switch {
	case r.URL.Path == "/":
		body = `{"horizon_version":23,"network_passphrase":false,"history_latest_ledger":"latest"}`
	case matchPath("/accounts/*", r.URL.Path) != nil:
		// A real-looking account whose balances field is a string, not an array.
		addr := strings.TrimPrefix(r.URL.Path, "/accounts/")
		m := map[string]any{"id": addr, "account_id": addr, "sequence": "0", "subentry_count": 0}
		unlock := s.lockChain()
		acc, ok := s.world.byAddr[addr]
		unlock()
		if ok {
			b, _ := json.Marshal(s.accountJSON(acc))
			_ = json.Unmarshal(b, &m)
		}
		m["balances"] = "100.0000000"
		b, _ := json.Marshal(m)
		body = string(b)
	}
	w.Header().Set("Content-Type", "application/hal+json; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write([]byte(body))
}

// problemFor is Horizon's problem document for a status (stellar-horizon render/problem).
func problemFor(status int) hzProblem {
	p := hzProblem{Status: status}
	switch status {
	case 400:
		p.Type, p.Title, p.Detail = "bad_request", "Bad Request", "The request you sent was invalid in some way."
	case 404:
		p.Type, p.Title, p.Detail = "not_found", "Resource Missing", "The resource at the url requested was not found.  "+
			"This usually occurs for one of two reasons:  The url requested is not valid, or no data in our database "+
			"could be found with the parameters provided."
	case 406:
		p.Type, p.Title = "not_acceptable", "An acceptable response content-type could not be provided for this request"
	case 410:
		p.Type, p.Title, p.Detail = "before_history", "Data Requested Is Before Recorded History", "This horizon "+
			"instance is configured to only track a portion of the stellar network's latest history. This request "+
			"is asking for results prior to the recorded history known to this horizon instance."
	case 429:
		p.Type, p.Title, p.Detail = "rate_limit_exceeded", "Rate Limit Exceeded", "The rate limit for the requesting "+
			"IP address is over its alloted limit.  The allowed limit and requests left per time period are "+
			"communicated to clients via the http response headers 'X-RateLimit-*' headers."
	case 500:
		p.Type, p.Title, p.Detail = "server_error", "Internal Server Error", "An error occurred while processing "+
			"this request.  This is usually due to a bug within the server software.  Trying this request again "+
			"may succeed if the bug is transient. Otherwise, please contact the system administrator."
	case 503:
		p.Type, p.Title, p.Detail = "server_over_capacity", "Server Over Capacity", "This horizon server is "+
			"currently overloaded.  Please wait for several minutes before trying your request again."
	case 504:
		p.Type, p.Title, p.Detail = "timeout", "Timeout", "Your request timed out before completing.  Please try "+
			"your request again. If you are submitting a transaction make sure you are sending exactly the same "+
			"transaction (with the same sequence number)."
	default:
		p.Title = http.StatusText(status)
		if p.Title == "" {
			p.Title = "HTTP " + strconv.Itoa(status)
		}
		p.Type = strings.ReplaceAll(strings.ToLower(p.Title), " ", "_")
	}
	p.Type = "https://stellar.org/horizon-errors/" + p.Type
	return p
}

func writeProblem(w http.ResponseWriter, p hzProblem) {
	b, _ := json.Marshal(p)
	w.Header().Set("Content-Type", "application/problem+json; charset=utf-8")
	w.WriteHeader(p.Status)
	_, _ = w.Write(b)
}

func writeHAL(w http.ResponseWriter, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		writeProblem(w, problemFor(http.StatusInternalServerError))
		return
	}
	w.Header().Set("Content-Type", "application/hal+json; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(b)
}
