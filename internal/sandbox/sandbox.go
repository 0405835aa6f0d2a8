package sandbox

import (
	"context"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Options configures Start.
type Options struct {
	Faults string               // a fault plan (see the package doc); "" = none
	Logf   func(string, ...any) // optional request log
	Now    func() time.Time     // optional clock for the ledger sequence; default time.Now
	// ApplyDelay is how long after sendTransaction accepts a transaction it is applied (on
	// Now's clock); 0 is DefaultApplyDelay. Tests that write on chain shorten it.
	ApplyDelay time.Duration
	// CatalogSync is how long after an on-chain price change (a direct set_price) the API's
	// catalog shows the new price; 0 is DefaultCatalogSync. Tests shorten it.
	CatalogSync time.Duration
}

// DefaultCatalogSync is the real API's lag behind an on-chain price change: its event
// listener polls the vault-registry contract every 30 s. Until it catches up the paywall
// answers 409 price_mismatch.
const DefaultCatalogSync = 30 * time.Second

// Sandbox is a running set of simulators, one loopback listener per downstream.
type Sandbox struct {
	APIURL, HorizonURL, RPCURL string  // http://127.0.0.1:PORT, no trailing slash
	SponsorURL                 string  // the sponsored-account service, same form
	Passphrase                 string  // network passphrase (testnet's, so payloads look like testnet)
	X402Network                string  // the x402 network its paywall offers ("stellar:testnet")
	USDCContractID             string  // the Stellar Asset Contract id of USDC:USDCIssuer on Passphrase
	USDCIssuer                 string  // issuer of the sandbox USDC
	RegistryContract           string  // id of the sandbox vault registry
	Demo                       Account // the funded default profile
	// DemoAPIKey is the MindVault API key (x-api-key) of the Demo wallet's publisher,
	// "Demo Publisher", so tests can publish without registering first.
	DemoAPIKey string

	logf       func(string, ...any)
	now        func() time.Time
	applyDelay time.Duration // Options.ApplyDelay, or DefaultApplyDelay
	syncDelay  time.Duration // Options.CatalogSync, or DefaultCatalogSync
	t0         time.Time     // when ledger firstLedger closed
	skew       atomic.Int64  // seconds of ledgers closed instantly (AdvanceLedgers)
	world      *world

	mu       sync.Mutex
	plan     *plan
	counts   map[string]map[string]int // service -> concrete key -> requests
	paid     map[string]int            // API "METHOD /path" -> requests carrying PAYMENT-SIGNATURE
	watch    []string                  // values no request should carry (SetWatch)
	watched  int                       // requests whose URL or headers carried one of them
	hzCount  int                       // Horizon requests this hour, for X-RateLimit-Remaining
	hzWindow int                       // which hour since Start hzCount belongs to

	servers   []*http.Server
	serving   sync.WaitGroup // Serve loops
	inflight  sync.WaitGroup // handlers, so none runs (or logs) after Close returns
	closed    bool           // guarded by mu; no handler starts once set
	closeOnce sync.Once
}

// Account is a seeded Stellar account; Secret is empty for the missing one.
type Account struct{ Name, Address, Secret string }

// Ledger clock: the sandbox poses as a network whose ledger firstLedger closed at Start and
// which closes one ledger every ledgerSeconds, so polling code sees progress.
const (
	firstLedger     = 1000
	ledgerSeconds   = 5
	retentionWindow = 120960 // 7 days of 5 s ledgers, as on SDF's RPC
	protocolVersion = 23
)

// Start seeds the simulators and starts their listeners on 127.0.0.1.
func Start(opts Options) (*Sandbox, error) {
	rules, err := ParseFaults(opts.Faults)
	if err != nil {
		return nil, err
	}
	s := &Sandbox{
		Passphrase:  sandboxPassphrase,
		X402Network: x402Network,
		logf:        opts.Logf,
		now:         opts.Now,
		applyDelay:  opts.ApplyDelay,
		plan:        newPlan(rules),
		counts:      map[string]map[string]int{},
		paid:        map[string]int{},
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.syncDelay = opts.CatalogSync; s.syncDelay <= 0 {
		s.syncDelay = DefaultCatalogSync
	}
	if s.applyDelay <= 0 {
		s.applyDelay = DefaultApplyDelay
	}
	s.t0 = s.now().Truncate(time.Second)
	if s.world, err = newWorld(s.Passphrase, s.closeTime); err != nil {
		return nil, fmt.Errorf("sandbox: seeding: %w", err)
	}
	s.USDCIssuer = s.world.usdcIssuer
	s.USDCContractID = s.world.usdcContract
	s.RegistryContract = s.world.registry
	s.Demo = s.world.byName["demo"].Account
	s.DemoAPIKey = seededAPIKey("demo")

	services := []*service{s.apiService(), s.horizonService(), s.rpcService(), s.sponsorService()}
	urls := []*string{&s.APIURL, &s.HorizonURL, &s.RPCURL, &s.SponsorURL}
	for i, sv := range services {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			s.Close()
			return nil, fmt.Errorf("sandbox: %s listener: %w", sv.name, err)
		}
		*urls[i] = "http://" + ln.Addr().String()
		srv := &http.Server{
			Handler:           sv,
			ReadHeaderTimeout: 10 * time.Second,
			// Dropped connections and cancelled delays are the point of the sandbox:
			// keep net/http's own complaints about them out of the test output.
			ErrorLog: log.New(io.Discard, "", 0),
		}
		s.servers = append(s.servers, srv)
		s.serving.Add(1)
		go func() {
			defer s.serving.Done()
			_ = srv.Serve(ln)
		}()
	}
	return s, nil
}

// Close stops every listener and connection; it is idempotent.
func (s *Sandbox) Close() {
	s.closeOnce.Do(func() {
		s.mu.Lock()
		s.closed = true
		s.mu.Unlock()
		// Closing the connections cancels the request contexts, which ends delays.
		for _, srv := range s.servers {
			_ = srv.Close()
		}
		s.serving.Wait()
		s.inflight.Wait()
	})
}

// SetFaults replaces the fault plan; the new rules start with their full counts.
func (s *Sandbox) SetFaults(plan string) error {
	rules, err := ParseFaults(plan)
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.plan = newPlan(rules)
	s.mu.Unlock()
	return nil
}

// Count returns how many requests a service has seen that match target, faulted or not.
func (s *Sandbox) Count(service, target string) int {
	pattern, err := normalizeTarget(service, target)
	if err != nil {
		return 0
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for key, c := range s.counts[service] {
		if matchTarget(pattern, key) {
			n += c
		}
	}
	return n
}

// PaidRequests returns how many MindVault API requests matching target carried a
// PAYMENT-SIGNATURE header (faulted or not), so tests can assert that no payment was sent,
// or that it was sent exactly once. Count counts them too, with the unpaid ones.
func (s *Sandbox) PaidRequests(target string) int {
	pattern, err := normalizeTarget(ServiceAPI, target)
	if err != nil {
		return 0
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for key, c := range s.paid {
		if matchTarget(pattern, key) {
			n += c
		}
	}
	return n
}

// SetWatch names values that should never reach a downstream (an inbound bearer token, say):
// from now on every request whose URL or header values contain one is counted by Watched.
func (s *Sandbox) SetWatch(values ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.watch, s.watched = slices.Clone(values), 0
}

// Watched is how many requests carried a watched value since SetWatch.
func (s *Sandbox) Watched() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.watched
}

func carries(r *http.Request, values []string) bool {
	for _, v := range values {
		if v == "" {
			continue
		}
		if strings.Contains(r.URL.String(), v) {
			return true
		}
		for _, hv := range r.Header {
			for _, x := range hv {
				if strings.Contains(x, v) {
					return true
				}
			}
		}
	}
	return false
}

// ResetCounts forgets the requests counted so far (Count and PaidRequests).
func (s *Sandbox) ResetCounts() {
	s.mu.Lock()
	s.counts = map[string]map[string]int{}
	s.paid = map[string]int{}
	s.mu.Unlock()
}

// Accounts returns every seeded account, Demo first, the missing one last.
func (s *Sandbox) Accounts() []Account {
	out := make([]Account, 0, len(s.world.accounts)+1)
	for _, a := range s.world.accounts {
		out = append(out, a.Account)
	}
	return append(out, s.world.missing)
}

// Account returns a seeded account by name.
func (s *Sandbox) Account(name string) (Account, bool) {
	if name == s.world.missing.Name {
		return s.world.missing, true
	}
	a, ok := s.world.byName[name]
	if !ok {
		return Account{}, false
	}
	return a.Account, true
}

// Transactions returns the hashes of the seeded SUCCESS and FAILED payments.
func (s *Sandbox) Transactions() (success, failed string) {
	return s.world.successTx, s.world.failedTx
}

// LatestLedger is the ledger sequence the simulators currently report.
func (s *Sandbox) LatestLedger() uint32 { return s.ledgerAt(s.now()) }

func (s *Sandbox) oldestLedger(latest uint32) uint32 {
	if latest < retentionWindow+2 {
		return 2
	}
	return latest - retentionWindow + 1
}

// Now is the sandbox's clock (Options.Now, or the wall clock), which its ledgers close by.
func (s *Sandbox) Now() time.Time { return s.now() }

// closeTime is the unix time at which a ledger closed (or will close).
func (s *Sandbox) closeTime(seq uint32) int64 {
	return s.t0.Unix() - s.skew.Load() + (int64(seq)-firstLedger)*ledgerSeconds
}

// AdvanceLedgers closes n ledgers at once, as if the network had run that long while the clock
// stood still: signatures and nonce entries expire by ledger, so a test can go past a signed
// payment's expiration without waiting for it. The latest ledger still closes about now.
func (s *Sandbox) AdvanceLedgers(n uint32) {
	s.skew.Add(int64(n) * ledgerSeconds)
}

// service is one simulator behind the shared fault and counting layer.
type service struct {
	s    *Sandbox
	name string
	// keys are the concrete targets of a request: "METHOD /path", or the JSON-RPC methods.
	keys func(r *http.Request) []string
	// prepare sets headers every response carries (Horizon's rate-limit headers).
	prepare func(w http.ResponseWriter, f *Fault)
	serve   http.HandlerFunc
	// fault renders the kinds whose look depends on the service: status without a body,
	// malformed without a body, rpcerror.
	fault func(w http.ResponseWriter, r *http.Request, f *Fault)
	// stallsInside: a delay fault is served with the delay in the request's context and the
	// service stalls where its handler does the work (see stall), not before it.
	stallsInside bool
}

// stallKey carries a delay fault's duration in a request's context (service.stallsInside).
type stallKey struct{}

// stall waits out the delay fault the request carries, if any, in the handler; it returns
// false when the client gave up first, which ends the stall early.
func stall(r *http.Request) bool {
	d, ok := r.Context().Value(stallKey{}).(time.Duration)
	if !ok {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
		return false
	}
}

func httpKey(r *http.Request) []string { return []string{r.Method + " " + r.URL.Path} }

func (sv *service) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	keys := sv.keys(r)
	paid := sv.name == ServiceAPI && r.Header.Get("PAYMENT-SIGNATURE") != ""
	s := sv.s
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		panic(http.ErrAbortHandler) // racing Close: drop the connection
	}
	s.inflight.Add(1)
	defer s.inflight.Done()
	if s.counts[sv.name] == nil {
		s.counts[sv.name] = map[string]int{}
	}
	for _, k := range keys {
		s.counts[sv.name][k]++
		if paid {
			s.paid[k]++
		}
	}
	if carries(r, s.watch) {
		s.watched++
	}
	f := s.plan.take(sv.name, keys, paid)
	s.mu.Unlock()

	if f != nil && f.After {
		// The handler acts for real; only its answer is replaced.
		done := httptest.NewRecorder()
		sv.serve(done, r)
		if f.Kind == KindStatus && !f.DropProof {
			if pr := done.Header().Get("PAYMENT-RESPONSE"); pr != "" {
				w.Header().Set("PAYMENT-RESPONSE", pr)
			}
		}
	}
	if f != nil && f.Kind == KindDrop {
		s.log(sv.name, r, "dropped (fault)")
		if hj, ok := w.(http.Hijacker); ok {
			if conn, _, err := hj.Hijack(); err == nil {
				_ = conn.Close()
				return
			}
		}
		panic(http.ErrAbortHandler) // not hijackable (HTTP/2): abort the stream instead
	}
	rec := &statusRecorder{ResponseWriter: w}
	if sv.prepare != nil {
		sv.prepare(rec, f)
	}
	defer func() {
		note := ""
		if f != nil {
			note = " (fault " + f.Kind + ")"
		}
		outcome := "no response"
		if rec.code != 0 {
			outcome = fmt.Sprint(rec.code)
		}
		s.log(sv.name, r, outcome+note)
	}()
	if f == nil {
		sv.serve(rec, r)
		return
	}
	setFaultHeaders(rec, f)
	if f.After {
		if !writeCommonFault(rec, f) {
			sv.fault(rec, r, f)
		}
		return
	}
	if f.Kind == KindDelay && sv.stallsInside {
		sv.serve(rec, r.WithContext(context.WithValue(r.Context(), stallKey{}, f.Delay)))
		return
	}
	if f.Kind == KindDelay {
		t := time.NewTimer(f.Delay)
		defer t.Stop()
		select {
		case <-t.C:
		case <-r.Context().Done():
			return // the client gave up: free the handler
		}
		sv.serve(rec, r)
		return
	}
	if !writeCommonFault(rec, f) {
		sv.fault(rec, r, f)
	}
}

func (s *Sandbox) log(service string, r *http.Request, outcome string) {
	if s.logf != nil {
		s.logf("sandbox %s %s %s -> %s", service, r.Method, r.URL.RequestURI(), outcome)
	}
}

// statusRecorder remembers the status for the request log.
type statusRecorder struct {
	http.ResponseWriter
	code int
}

func (w *statusRecorder) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusRecorder) Write(b []byte) (int, error) {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection.
func (w *statusRecorder) Unwrap() http.ResponseWriter { return w.ResponseWriter }
