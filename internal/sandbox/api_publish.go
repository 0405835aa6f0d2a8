package sandbox

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/stellar/go-stellar-sdk/network"
	"github.com/stellar/go-stellar-sdk/xdr"

	"github.com/mindvault/mcp-endpoint/internal/clients/soroban"
)

// The MindVault API's publisher routes: POST /publishers, POST /resources,
// GET /resources/{id}/register/prepare and POST /resources/{id}/register.

// publisher is one registered publisher; only the digest of its API key is kept.
type publisher struct {
	id, name, email, wallet string
	created                 time.Time
}

// publishing is the publisher table. Guarded by world.cat.
type publishing struct {
	byKey   map[string]*publisher // hex sha256 of the API key
	byEmail map[string]*publisher // lower-cased email
	idem    map[string]*idemEntry // publisher id + "\n" + Idempotency-Key
	created int                   // resources POST /resources created (CreatedResources)
}

// idempotencyTTL is how long the API keeps an Idempotency-Key after its first use.
const idempotencyTTL = 24 * time.Hour

// idemEntry is one Idempotency-Key of a publisher: the request that first used it and, once
// that request has completed, its answer, which every later request with the key gets.
type idemEntry struct {
	request string    // the first request's validated fields, as canonical JSON
	at      time.Time // when the first request claimed the key (Options.Now)
	done    bool
	status  int
	body    string
}

// seededEmails are the seeded publishers' emails (taken: POST /publishers answers 409).
var seededEmails = map[string]string{"demo": "demo@mindvault.example", "creator": "hello@northwind.example"}

func seededPublisherID(owner string) string {
	h := seedHash("publisher/" + owner)
	return uuidFrom(hex.EncodeToString(h[:]))
}

// seededAPIKey is a seeded publisher's API key: mv_ + 64 hex, derived from the account name.
func seededAPIKey(owner string) string {
	h := seedHash("apikey/" + owner)
	return "mv_" + hex.EncodeToString(h[:])
}

func keyDigest(key string) string {
	h := sha256.Sum256([]byte(key))
	return hex.EncodeToString(h[:])
}

func (w *world) initPublishing() {
	w.pubs = &publishing{byKey: map[string]*publisher{}, byEmail: map[string]*publisher{}, idem: map[string]*idemEntry{}}
	for _, owner := range []string{"demo", "creator"} {
		p := &publisher{id: seededPublisherID(owner), name: publisherNames[owner], email: seededEmails[owner],
			wallet: w.byName[owner].Address, created: day(0, 8)}
		w.pubs.byKey[keyDigest(seededAPIKey(owner))] = p
		w.pubs.byEmail[p.email] = p
	}
}

// --- zod-style body validation -------------------------------------------------------------

// zodField is one string field of a strict zod object schema.
type zodField struct {
	name     string
	optional bool
	check    func(string) string // "" = valid, else zod's message
}

func minLen(v string) string {
	if v == "" {
		return "String must contain at least 1 character(s)"
	}
	return ""
}

var emailRE = regexp.MustCompile(`^[A-Za-z0-9._%+'-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}$`)

func isEmail(v string) string {
	if !emailRE.MatchString(v) {
		return "Invalid email"
	}
	return ""
}

func isURL(v string) string {
	u, err := url.Parse(v)
	if err != nil || u.Scheme == "" || (u.Host == "" && u.Opaque == "") {
		return "Invalid url"
	}
	return ""
}

var priceRE = regexp.MustCompile(`^\d+(\.\d{1,7})?$`)

func isPrice(v string) string {
	if msg := minLen(v); msg != "" {
		return msg
	}
	if n, err := parseStroops(v); !priceRE.MatchString(v) || err != nil || n <= 0 {
		return "Price must be a positive decimal with at most 7 decimals, such as 1.50"
	}
	return ""
}

func jsType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case json.Number, float64:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	}
	return "object"
}

// readZodBody reads a JSON body (none = {}) against a strict object schema of string fields.
// On failure it answers 400 with zod's format() object, {_errors, <field>: {_errors}}, and
// returns false.
func readZodBody(w http.ResponseWriter, r *http.Request, fields []zodField) (map[string]string, bool) {
	raw, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		raw = []byte("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		apiError(w, http.StatusBadRequest, "Invalid JSON body")
		return nil, false
	}
	var top []string
	issues := map[string][]string{}
	out := map[string]string{}
	obj, isObj := doc.(map[string]any)
	if !isObj {
		top = append(top, "Expected object, received "+jsType(doc))
	} else {
		for _, f := range fields {
			v, present := obj[f.name]
			if !present {
				if !f.optional {
					issues[f.name] = append(issues[f.name], "Required")
				}
				continue
			}
			s, isStr := v.(string)
			if !isStr {
				issues[f.name] = append(issues[f.name], "Expected string, received "+jsType(v))
				continue
			}
			if f.check != nil {
				if msg := f.check(s); msg != "" {
					issues[f.name] = append(issues[f.name], msg)
					continue
				}
			}
			out[f.name] = s
		}
		var unknown []string
		for k := range obj {
			if !slices.ContainsFunc(fields, func(f zodField) bool { return f.name == k }) {
				unknown = append(unknown, "'"+k+"'")
			}
		}
		if len(unknown) > 0 {
			slices.Sort(unknown)
			top = append(top, "Unrecognized key(s) in object: "+strings.Join(unknown, ", "))
		}
	}
	if len(top) == 0 && len(issues) == 0 {
		return out, true
	}
	var b strings.Builder
	list := func(msgs []string) string {
		if msgs == nil {
			msgs = []string{}
		}
		j, _ := json.Marshal(msgs)
		return string(j)
	}
	b.WriteString(`{"error":{"_errors":` + list(top))
	for _, f := range fields {
		if msgs, ok := issues[f.name]; ok {
			k, _ := json.Marshal(f.name)
			b.WriteString("," + string(k) + `:{"_errors":` + list(msgs) + "}")
		}
	}
	b.WriteString("}}")
	writeJSONRaw(w, http.StatusBadRequest, b.String())
	return nil, false
}

// --- routes ----------------------------------------------------------------------------------

// apiKeyPublisher authenticates x-api-key; on failure it answers 401 and returns nil.
func (s *Sandbox) apiKeyPublisher(w http.ResponseWriter, r *http.Request) *publisher {
	key := r.Header.Get("x-api-key")
	if key == "" {
		apiError(w, http.StatusUnauthorized, "Missing x-api-key header")
		return nil
	}
	s.world.cat.RLock()
	p := s.world.pubs.byKey[keyDigest(key)]
	s.world.cat.RUnlock()
	if p == nil {
		apiError(w, http.StatusUnauthorized, "Invalid API key")
		return nil
	}
	return p
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// apiCreatePublisher is POST /publishers {name, email, walletAddress} (strict).
func (s *Sandbox) apiCreatePublisher(w http.ResponseWriter, r *http.Request, _ []string) {
	body, ok := readZodBody(w, r, []zodField{
		{name: "name", check: minLen},
		{name: "email", check: isEmail},
		{name: "walletAddress", check: minLen},
	})
	if !ok {
		return
	}
	s.world.cat.Lock()
	defer s.world.cat.Unlock()
	email := strings.ToLower(body["email"])
	if s.world.pubs.byEmail[email] != nil {
		apiError(w, http.StatusConflict, "Email already registered")
		return
	}
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	p := &publisher{id: uuidFrom(hex.EncodeToString(b)), name: body["name"], email: body["email"],
		wallet: body["walletAddress"], created: s.now()}
	key := "mv_" + randomHex(32)
	s.world.pubs.byKey[keyDigest(key)] = p
	s.world.pubs.byEmail[email] = p
	writeJSON(w, http.StatusCreated, struct {
		ID            string `json:"id"`
		Name          string `json:"name"`
		Email         string `json:"email"`
		WalletAddress string `json:"walletAddress"`
		APIKey        string `json:"apiKey"`
		CreatedAt     string `json:"createdAt"`
	}{p.id, p.name, p.email, p.wallet, key, jsTime(p.created)})
}

type resourceBody struct {
	ID                 string  `json:"id"`
	Title              string  `json:"title"`
	Description        string  `json:"description"`
	Price              string  `json:"price"`
	ResourceType       string  `json:"resourceType"`
	MimeType           *string `json:"mimeType"`
	ExternalURL        *string `json:"externalUrl"`
	ThumbnailPath      *string `json:"thumbnailPath"`
	VerificationStatus string  `json:"verificationStatus"`
	Listed             bool    `json:"listed"`
	OnchainStatus      string  `json:"onchainStatus"`
	OnchainTxHash      *string `json:"onchainTxHash"`
	ContentHash        string  `json:"contentHash"`
	PublisherID        string  `json:"publisherId"`
	StoragePath        *string `json:"storagePath"`    // a file's upload path; null for a link
	VerificationID     *string `json:"verificationId"` // null until verified
	WalletAddress      string  `json:"walletAddress"`
	CreatedAt          string  `json:"createdAt"`
	AccessURL          string  `json:"accessUrl"`
}

func (s *Sandbox) resourceJSON(r *resource) resourceBody {
	return resourceBody{ID: r.id, Title: r.title, Description: r.description, Price: r.price, ResourceType: r.kind,
		MimeType: nullable(r.mime), ExternalURL: nullable(r.externalURL), ThumbnailPath: nullable(r.thumbnail),
		VerificationStatus: r.status, Listed: r.listed, OnchainStatus: r.onchain, OnchainTxHash: nullable(r.onchainTx),
		ContentHash: contentHash(r), PublisherID: r.pubID, WalletAddress: r.wallet,
		CreatedAt: jsTime(r.created), AccessURL: s.APIURL + "/resources/" + r.id}
}

// apiCreateResource is POST /resources (x-api-key) {title, description?, price,
// walletAddress?, externalUrl} (strict): a pending, unlisted link resource.
//
// With an Idempotency-Key, as the API's idempotency layer keeps them: per publisher, for 24 h
// from the key's first use. Authentication and body validation come first (a 401 or 400 is
// not kept, and claims nothing). Then the key: unused (or older than 24 h), this request
// claims it and creates; claimed by a request still in progress, 409 {"error":"Idempotent
// request already in progress"}; completed, the first answer again, byte for byte (same
// status, same body, same resource id), and nothing is created — with a different request
// (other fields) too: the real server at 6c433d96 does not compare the bodies, so a reused key
// answers 201 with the first resource, not a 422. A delay fault stalls a keyed request after it claimed the key, while it creates,
// so the key is in progress for the length of the stall; the creation then completes even
// when the client gave up (as a real server's does), so a retry with the key gets the
// resource. Without the header a delay fault stalls before the route and every request
// creates a resource.
func (s *Sandbox) apiCreateResource(w http.ResponseWriter, r *http.Request, _ []string) {
	p := s.apiKeyPublisher(w, r)
	if p == nil {
		return
	}
	body, ok := readZodBody(w, r, []zodField{
		{name: "title", check: minLen},
		{name: "description", optional: true},
		{name: "price", check: isPrice},
		{name: "walletAddress", optional: true, check: minLen},
		{name: "externalUrl", check: isURL},
	})
	if !ok {
		return
	}
	key := r.Header.Get("Idempotency-Key")
	if key == "" {
		s.world.cat.Lock()
		b := s.createResource(p, body)
		s.world.cat.Unlock()
		writeJSONRaw(w, http.StatusCreated, b)
		return
	}
	canon, _ := json.Marshal(body) // map keys sorted: the same fields give the same text
	slot := p.id + "\n" + key
	s.world.cat.Lock()
	e := s.world.pubs.idem[slot]
	if e != nil && s.now().Sub(e.at) >= idempotencyTTL {
		e = nil // expired: the key is free again
	}
	switch {
	case e == nil:
		e = &idemEntry{request: string(canon), at: s.now()}
		s.world.pubs.idem[slot] = e
	case !e.done:
		s.world.cat.Unlock()
		apiError(w, http.StatusConflict, "Idempotent request already in progress")
		return
	default:
		status, b := e.status, e.body
		s.world.cat.Unlock()
		writeJSONRaw(w, status, b)
		return
	}
	s.world.cat.Unlock()
	_ = stall(r) // the slow part of a slow server; it finishes even without the client
	s.world.cat.Lock()
	b := s.createResource(p, body)
	e.done, e.status, e.body = true, http.StatusCreated, b
	s.world.cat.Unlock()
	writeJSONRaw(w, http.StatusCreated, b)
}

// createResource adds a resource from a validated body and returns the 201 body. The caller
// holds cat.
func (s *Sandbox) createResource(p *publisher, body map[string]string) string {
	wallet := p.wallet
	if v, ok := body["walletAddress"]; ok {
		wallet = v
	}
	res := &resource{id: "r" + randomHex(8), title: body["title"], description: body["description"], price: body["price"],
		kind: "link", status: "pending", onchain: "none", wallet: wallet, publisher: p.name, pubID: p.id,
		externalURL: body["externalUrl"], created: s.now().UTC().Truncate(time.Millisecond)}
	s.world.resources = append(s.world.resources, res)
	s.world.byID[res.id] = res
	s.world.pubs.created++
	b, _ := json.Marshal(s.resourceJSON(res))
	return string(b)
}

// CreatedResources is how many resources POST /resources has created since Start (replays of
// an Idempotency-Key create none), so a test can assert that a retried publish created one.
func (s *Sandbox) CreatedResources() int {
	s.world.cat.RLock()
	defer s.world.cat.RUnlock()
	return s.world.pubs.created
}

// ownedForRegistration loads a resource the publisher may register, or answers 404, 403,
// 400 (not verified) or 409 (registered, or a registration pending) and returns nil. A
// pending registration whose transaction the network never received (not applied, not
// queued) has expired: the server lets it be registered again rather than answer "in
// progress" forever. The caller holds cat.
func (s *Sandbox) ownedForRegistration(w http.ResponseWriter, p *publisher, id string) *resource {
	res := s.world.byID[id]
	switch {
	case res != nil && res.pubID == p.id && res.status == "verified" && res.onchain == "pending" && !s.txOnNetwork(res.onchainTx):
		return res
	case res == nil:
		apiError(w, http.StatusNotFound, "Resource not found")
	case res.pubID != p.id:
		apiError(w, http.StatusForbidden, "Forbidden: you do not own this resource")
	case res.status != "verified":
		apiError(w, http.StatusBadRequest, "Resource must be verified before registering on-chain")
	case res.onchain == "registered":
		writeJSON(w, http.StatusConflict, map[string]any{"error": "Resource is already registered on-chain"})
	case res.onchain == "pending":
		writeJSON(w, http.StatusConflict, map[string]any{"error": "Registration already in progress",
			"message":   "A registration transaction for this resource was submitted and has not completed yet.",
			"nextSteps": []string{"Check the transaction status, then retry if it failed."}, "txHash": nullable(res.onchainTx)})
	default:
		return res
	}
	return nil
}

// txOnNetwork reports a transaction the chain has applied or still holds to apply.
func (s *Sandbox) txOnNetwork(hash string) bool {
	defer s.lockChain()()
	if _, ok := s.world.txs[hash]; ok {
		return true
	}
	return slices.ContainsFunc(s.world.pending, func(p *pendingTx) bool { return p.hash == hash })
}

// registerArgs are register(creator, id, price, metadata, tags) for a catalog resource: the
// wallet as creator, the API price in units, the content pointer, no tags.
func registerArgs(res *resource) ([]xdr.ScVal, error) {
	price, err := parseStroops(res.price)
	if err != nil {
		return nil, err
	}
	return []xdr.ScVal{scAddress(res.wallet), soroban.Str(res.id), scI128(price), soroban.Str(metadataPointer(res)), soroban.StrVec(nil)}, nil
}

// apiPrepareRegistration is GET /resources/{id}/register/prepare (x-api-key): the register
// invocation as a transaction from the publisher's wallet with its next sequence number,
// already simulated and assembled (footprint, source-account auth, fee = 100 + resource fee),
// so the wallet only adds its signature.
func (s *Sandbox) apiPrepareRegistration(w http.ResponseWriter, r *http.Request, params []string) {
	p := s.apiKeyPublisher(w, r)
	if p == nil {
		return
	}
	s.world.cat.RLock()
	defer s.world.cat.RUnlock()
	res := s.ownedForRegistration(w, p, params[0])
	if res == nil {
		return
	}
	buildFailed := func(detail string) {
		writeJSON(w, http.StatusInternalServerError, map[string]string{"error": "Failed to build register transaction", "detail": detail})
	}
	args, err := registerArgs(res)
	if err != nil {
		buildFailed(err.Error())
		return
	}
	unlock := s.lockChain()
	defer unlock()
	wd := s.world
	acc := wd.byAddr[res.wallet]
	if acc == nil {
		buildFailed("account not found: " + res.wallet)
		return
	}
	latest := s.LatestLedger()
	c := &call{fn: "register", args: args, invoker: acc.Address, now: uint64(s.closeTime(latest))}
	readOnly, readWrite := wd.reg.footprint(c)
	if _, herr := wd.reg.clone().invoke(c); herr != nil {
		if herr.err.ContractCode != nil && *herr.err.ContractCode == errAlreadyRegistered {
			writeJSON(w, http.StatusConflict, map[string]any{"error": "Resource is already registered on-chain"})
			return
		}
		buildFailed("simulation failed: HostError: " + herr.String())
		return
	}
	inv := xdr.InvokeContractArgs{ContractAddress: wd.regAddr, FunctionName: "register", Args: args}
	data := sorobanData(readOnly, readWrite, true)
	env := xdr.TransactionEnvelope{Type: xdr.EnvelopeTypeEnvelopeTypeTx, V1: &xdr.TransactionV1Envelope{Tx: xdr.Transaction{
		SourceAccount: xdr.MustMuxedAddress(acc.Address),
		Fee:           xdr.Uint32(baseFee + int64(data.ResourceFee)),
		SeqNum:        xdr.SequenceNumber(acc.seq + 1),
		Cond: xdr.Preconditions{Type: xdr.PreconditionTypePrecondTime, TimeBounds: &xdr.TimeBounds{
			MaxTime: xdr.TimePoint(s.closeTime(latest) + 300)}},
		Memo: xdr.Memo{Type: xdr.MemoTypeMemoNone},
		Operations: []xdr.Operation{{Body: xdr.OperationBody{Type: xdr.OperationTypeInvokeHostFunction,
			InvokeHostFunctionOp: &xdr.InvokeHostFunctionOp{
				HostFunction: xdr.HostFunction{Type: xdr.HostFunctionTypeHostFunctionTypeInvokeContract, InvokeContract: &inv},
				Auth:         []xdr.SorobanAuthorizationEntry{sourceAccountAuth(inv)},
			}}}},
		Ext: xdr.TransactionExt{V: 1, SorobanData: &data},
	}}}
	b64, err := xdr.MarshalBase64(env)
	if err != nil {
		buildFailed(err.Error())
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"unsignedXdr": b64, "networkPassphrase": s.Passphrase,
		"metadata": map[string]string{"resourceId": res.id, "creator": res.wallet, "price": res.price,
			"title": res.title, "description": res.description}})
}

// registrationFailed is the server's 502 with guidance.
func (s *Sandbox) registrationFailed(w http.ResponseWriter, id, detail, txHash string) {
	body := map[string]any{"error": "On-chain registration failed", "detail": detail,
		"message":       "The registration transaction did not complete. Nothing was registered; it is safe to retry.",
		"nextSteps":     []string{"Check the wallet exists and holds XLM for fees.", "Retry the registration."},
		"retryEndpoint": "POST /resources/" + id + "/register", "retryable": true}
	if txHash != "" {
		body["txHash"] = txHash
		body["txStatusUrl"] = "https://stellar.expert/explorer/testnet/tx/" + txHash
	}
	writeJSON(w, http.StatusBadGateway, body)
}

// apiRegister is POST /resources/{id}/register (x-api-key) {signedXdr?} (strict). With
// signedXdr the transaction goes through sendTransaction's checks and is applied at once;
// without, the server signs and submits register(creator = the publisher's wallet, ...)
// itself, from its own registrar account, whose authorization the registry accepts for any
// creator: so it registers for every publisher's wallet on the network, seeded or not (the
// API never holds a publisher's key). Either way /meta's onchainStatus and onchainTxHash
// follow, and the registry entry is marked verified.
func (s *Sandbox) apiRegister(w http.ResponseWriter, r *http.Request, params []string) {
	p := s.apiKeyPublisher(w, r)
	if p == nil {
		return
	}
	body, ok := readZodBody(w, r, []zodField{{name: "signedXdr", optional: true, check: minLen}})
	if !ok {
		return
	}
	s.world.cat.Lock()
	defer s.world.cat.Unlock()
	res := s.ownedForRegistration(w, p, params[0])
	if res == nil {
		return
	}
	args, err := registerArgs(res)
	if err != nil {
		apiError(w, http.StatusInternalServerError, "Internal server error")
		return
	}
	var env xdr.TransactionEnvelope
	signed, withXDR := body["signedXdr"]
	if withXDR {
		if xdr.SafeUnmarshalBase64(signed, &env) != nil {
			apiError(w, http.StatusBadRequest, "signedXdr is not a base64 transaction envelope")
			return
		}
		inv, why := decodeInvocation(env)
		if why != "" || !inv.args.ContractAddress.Equals(s.world.regAddr) || inv.args.FunctionName != "register" ||
			len(inv.args.Args) != 5 || !inv.args.Args[1].Equals(soroban.Str(res.id)) {
			apiError(w, http.StatusBadRequest, "signedXdr is not a register transaction for this resource")
			return
		}
	}
	unlock := s.lockChain()
	defer unlock()
	wd := s.world
	latest := s.LatestLedger()
	registrar := wd.byName["registrar"]
	source := registrar.Address
	if withXDR {
		source = env.SourceAccount().ToAccountId().Address()
	}
	if wd.queued(source) {
		s.registrationFailed(w, res.id, "sendTransaction: TRY_AGAIN_LATER (another transaction from the account is pending)", "")
		return
	}
	var hash string
	if withXDR {
		h, err := network.HashTransactionInEnvelope(env, s.Passphrase)
		if err != nil {
			apiError(w, http.StatusBadRequest, "signedXdr is not a base64 transaction envelope")
			return
		}
		inv, code := wd.admit(env, h)
		if code != xdr.TransactionResultCodeTxSuccess {
			s.registrationFailed(w, res.id, "sendTransaction: ERROR "+resultName(code), "")
			return
		}
		hash = hex.EncodeToString(h[:])
		s.apply(&pendingTx{hash: hash, env: env, inv: inv, due: s.now()})
		if t := wd.txs[hash]; t == nil || !t.success {
			res.onchain, res.onchainTx = "failed", hash
			s.registrationFailed(w, res.id, "the registration transaction failed on chain", hash)
			return
		}
	} else {
		if wd.byAddr[res.wallet] == nil {
			res.onchain = "failed"
			s.registrationFailed(w, res.id, "the creator wallet "+res.wallet+" does not exist on the network", "")
			return
		}
		if hash, err = wd.invokeTx(registrar, "register", args, latest); err != nil {
			res.onchain = "failed"
			s.registrationFailed(w, res.id, fmt.Sprintf("simulation failed: HostError: %v", err), "")
			return
		}
	}
	if e := wd.reg.byID[res.id]; e != nil {
		e.Verified = true // set by the verifier, which is not modelled
	}
	res.onchain, res.onchainTx = "registered", hash
	writeJSON(w, http.StatusOK, map[string]string{"id": res.id, "onchainStatus": "registered", "txHash": hash})
}
