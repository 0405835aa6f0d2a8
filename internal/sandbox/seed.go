package sandbox

import (
	"crypto/sha256"
	"encoding/base32"
	"encoding/hex"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/stellar/go-stellar-sdk/keypair"
	"github.com/stellar/go-stellar-sdk/network"
	"github.com/stellar/go-stellar-sdk/strkey"
	"github.com/stellar/go-stellar-sdk/xdr"

	"github.com/mindvault/mcp-endpoint/internal/clients/soroban"
)

// sandboxPassphrase is testnet's, so signed payloads look exactly like testnet ones.
const sandboxPassphrase = network.TestNetworkPassphrase

// Amounts are in stroops (1e-7), as on chain.
const (
	stroops      = 10_000_000
	maxTrustLine = math.MaxInt64 // the default trustline limit, "922337203685.4775807"
)

// seedKey derives a seeded account's keypair from its name, so every run has the same keys.
func seedKey(name string) (*keypair.Full, error) {
	return keypair.FromRawSeed(sha256.Sum256([]byte("mindvault-sandbox/" + name)))
}

// seedHash is a deterministic 32-byte value for ids that are not keys.
func seedHash(name string) [32]byte { return sha256.Sum256([]byte("mindvault-sandbox/" + name)) }

// chainAccount is one account as Horizon would report it.
type chainAccount struct {
	Account
	kp            *keypair.Full
	native        int64 // stroops
	lines         []trustLine
	sponsor       string // who sponsors this account's reserves ("" = none)
	numSponsored  uint32
	numSponsoring uint32
	created       uint32 // ledger of creation; the sequence number starts at created<<32
	seq           int64
	lastModified  uint32
	cosigners     []string // ed25519 signers besides the master key, weight 1 each
}

type trustLine struct {
	code, issuer string
	balance      int64
	sponsor      string
	lastModified uint32
}

// seededTx is a transaction getTransaction knows, with its XDR already encoded: a seeded
// one or one sendTransaction accepted and the sandbox applied.
type seededTx struct {
	hash, envelope, result, meta string
	events                       []string            // base64 DiagnosticEvents (failed invocations)
	contract                     []xdr.ContractEvent // the events of a successful call (getEvents)
	ledger                       uint32
	order                        int32
	success                      bool
}

// resource is one catalog row with what meta and verification add.
type resource struct {
	id, title, description, price string
	kind, mime, thumbnail         string // kind: file | link; "" mime/thumbnail = null
	status                        string // verified | pending | rejected | skipped
	listed                        bool
	owner                         string // seeded account name of the publisher ("" for resources created through the API)
	wallet, publisher, pubID      string // the publisher's wallet (payTo), name and id
	externalURL                   string // what a paid link resource answers ("" = the page the sandbox hosts, links.go)
	onchain                       string // none | pending | registered | failed
	onchainTx                     string
	created                       time.Time
	check                         *verification // nil until the agent has checked it
}

type verification struct {
	original   bool
	confidence float64
	flags      []string
	checked    time.Time
}

// world is the seeded state the simulators read. The catalog (resources, byID, the rows'
// verification and on-chain fields, pubs) changes through the API's publisher and paid
// routes, so it is guarded by cat. The chain state (accounts by address, sequences,
// balances and last-modified ledgers, txs, pending, reg, pay) changes as transactions
// apply, so it is guarded by mu (see Sandbox.lockChain). Take cat before mu.
type world struct {
	passphrase               string
	closeTime                func(ledger uint32) int64
	usdcIssuer, usdcContract string
	registry                 string
	accounts                 []*chainAccount
	byName, byAddr           map[string]*chainAccount
	missing                  Account
	resources                []*resource
	byID                     map[string]*resource
	successTx, failedTx      string
	regAddr                  xdr.ScAddress // the registry as a contract address

	mu      sync.Mutex
	txs     map[string]*seededTx
	reg     *registry
	pending []*pendingTx // accepted by sendTransaction, applied when due, in order
	pay     *payments    // the USDC token's state beyond trustlines, and the facilitator (usdc.go)
	// sponsored counts the accounts the sponsored-account service created (sponsor.go).
	sponsored int
	faucet    int64 // USDC units the sponsored-account service credits a new wallet (sponsor.go)

	cat  sync.RWMutex
	pubs *publishing // publishers, API keys and idempotency keys (api_publish.go)
	// ledger is the API's record of settled purchases (api_buyers.go); it has its own lock.
	ledger purchaseLedger
}

// accountSeed lists the seeded accounts in the order Accounts returns them.
var accountSeed = []struct {
	name    string
	native  int64
	usdc    int64  // -1 = no USDC trustline
	issuer  string // USDC issuer account name
	sponsor string
}{
	{"demo", 25 * stroops, 100 * stroops, "issuer", "sponsor"},
	{"creator", 480 * stroops, 42_5000000, "issuer", ""},
	{"notrust", 100 * stroops, -1, "", ""},
	{"otherissuer", 100 * stroops, 100 * stroops, "otherusdc", ""},
	{"zero", 100 * stroops, 0, "issuer", ""},
	{"agent", 50 * stroops, 12_3000000, "issuer", ""}, // the verification agent's wallet
	{"sponsor", 5000 * stroops, -1, "", ""},           // the sponsored-account service
	{"issuer", 1000 * stroops, -1, "", ""},            // issuer of sandbox USDC
	{"otherusdc", 1000 * stroops, -1, "", ""},         // issuer of a look-alike USDC
	{"registrar", 500 * stroops, -1, "", ""},          // the MindVault API's own key (server-signed registrations)
}

// publisherNames maps the publishing accounts to their MindVault publisher names.
var publisherNames = map[string]string{"demo": "Demo Publisher", "creator": "Northwind Labs"}

func day(d, h int) time.Time { return time.Date(2025, 6, 1+d, h, 0, 0, 0, time.UTC) }

// resourceSeed is the catalog: mixed prices, types, statuses and publishers; two unlisted.
var resourceSeed = []resource{
	{id: "rustguide", title: "Rust Ownership Field Guide", description: "Borrowing, lifetimes and smart pointers explained with runnable examples.", price: "1.50", kind: "file", mime: "application/pdf", status: "verified", listed: true, owner: "creator", onchain: "registered", created: day(0, 9)},
	{id: "llmprompts", title: "LLM Prompt Patterns", description: "Forty prompt patterns for agents, with failure cases.", price: "0.10", kind: "link", status: "verified", listed: true, owner: "demo", onchain: "registered", created: day(1, 10)},
	{id: "stellarcheatsheet", title: "Stellar SDK Cheatsheet", description: "Accounts, trustlines, Soroban calls and fees on one page.", price: "25", kind: "file", mime: "text/markdown", status: "verified", listed: true, owner: "creator", onchain: "registered", created: day(2, 11)},
	{id: "sorobanaudit", title: "Soroban Audit Checklist", description: "What to check before deploying a Soroban contract.", price: "4.99", kind: "file", mime: "application/pdf", status: "pending", listed: true, owner: "creator", onchain: "none", created: day(3, 12)},
	{id: "vectordbbench", title: "Vector DB Benchmarks", description: "Latency and recall of five vector databases on one dataset.", price: "12.00", kind: "link", status: "verified", listed: true, owner: "demo", onchain: "registered", created: day(4, 13)},
	{id: "gotestingtips", title: "Go Table-Driven Testing Tips", description: "Patterns for readable table tests and golden files in Go.", price: "0.75", kind: "link", status: "verified", listed: true, owner: "creator", onchain: "failed", created: day(5, 14)},
	{id: "agentpromptpack", title: "Agent Prompt Pack", description: "System prompts for research, coding and support agents.", price: "3.00", kind: "file", mime: "application/zip", status: "verified", listed: true, owner: "demo", onchain: "pending", created: day(6, 15)},
	{id: "datasetcard", title: "Dataset Card Template", description: "A fill-in template for documenting datasets.", price: "0.50", kind: "file", mime: "text/markdown", status: "skipped", listed: true, owner: "creator", onchain: "none", created: day(7, 16)},
	{id: "diagramset", title: "Architecture Diagram Set", description: "Editable diagrams of common serverless architectures.", price: "8.00", kind: "file", mime: "image/png", thumbnail: "/uploads/thumbnails/diagramset.png", status: "verified", listed: true, owner: "creator", onchain: "registered", created: day(8, 17)},
	{id: "zkprimer", title: "Zero-Knowledge Primer", description: "SNARKs and STARKs for engineers, without the heavy math.", price: "6.25", kind: "link", status: "verified", listed: true, owner: "creator", onchain: "registered", created: day(9, 18)},
	{id: "copiedessay", title: "Copied Essay", description: "An essay that verification found to be copied.", price: "2.00", kind: "link", status: "rejected", listed: false, owner: "creator", onchain: "none", created: day(10, 19)},
	{id: "draftnotes", title: "Draft Research Notes", description: "Unverified notes whose verification fee has not been paid yet.", price: "1.00", kind: "file", mime: "text/plain", status: "pending", listed: false, owner: "demo", onchain: "none", created: day(11, 20)},
}

// registrySeed is the on-chain-only part of the registry: resources registered on chain that
// the API catalog does not have.
var registrySeed = []struct {
	id, owner, price, metadata string
	tags                       []string
	listed                     bool
}{
	{"chainonly", "creator", "2", "sha256:" + strings.Repeat("c0ffee", 10) + "c0ff", []string{"onchain-only"}, false},
}

// seedTags are the tags the catalog's registered resources were registered with.
var seedTags = map[string][]string{
	"rustguide":         {"rust", "guide"},
	"llmprompts":        {"llm", "prompts", "agents"},
	"stellarcheatsheet": {"stellar", "soroban", "cheatsheet"},
	"vectordbbench":     {"vector-db", "benchmark"},
	"diagramset":        {"architecture", "diagrams"},
	"zkprimer":          {"zk", "cryptography"},
}

// metadataPointer is the IPFS-style pointer a registered catalog resource carries on chain.
func metadataPointer(r *resource) string {
	h := seedHash("content/" + r.id + "\n" + r.title) // the bytes of /meta's contentHash
	return "ipfs://bafkrei" + strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(h[:]))
}

// newWorld seeds everything; closeTime dates the registry's records.
func newWorld(passphrase string, closeTime func(uint32) int64) (*world, error) {
	w := &world{
		passphrase: passphrase,
		closeTime:  closeTime,
		byName:     map[string]*chainAccount{},
		byAddr:     map[string]*chainAccount{},
		byID:       map[string]*resource{},
		txs:        map[string]*seededTx{},
		faucet:     FaucetUSDC,
	}
	for i, a := range accountSeed {
		kp, err := seedKey(a.name)
		if err != nil {
			return nil, err
		}
		created := uint32(600 + 10*i)
		acc := &chainAccount{
			Account: Account{Name: a.name, Address: kp.Address(), Secret: kp.Seed()},
			kp:      kp, native: a.native, created: created, seq: int64(created) << 32, lastModified: created,
		}
		w.accounts = append(w.accounts, acc)
		w.byName[a.name] = acc
		w.byAddr[acc.Address] = acc
	}
	mkp, err := seedKey("missing")
	if err != nil {
		return nil, err
	}
	w.missing = Account{Name: "missing", Address: mkp.Address()} // never funded: Horizon 404
	w.usdcIssuer = w.byName["issuer"].Address

	// Trustlines and sponsorship, after every address exists.
	for _, a := range accountSeed {
		acc := w.byName[a.name]
		if a.usdc >= 0 {
			acc.lines = append(acc.lines, trustLine{code: "USDC", issuer: w.byName[a.issuer].Address,
				balance: a.usdc, lastModified: acc.created + 1})
			acc.lastModified = acc.created + 1
		}
		if a.sponsor != "" {
			sp := w.byName[a.sponsor]
			acc.sponsor = sp.Address
			acc.numSponsored = 2 // CAP-33: a sponsored account costs its sponsor two base reserves
			sp.numSponsoring += 2
			for i := range acc.lines {
				acc.lines[i].sponsor = sp.Address
				acc.numSponsored++
				sp.numSponsoring++
			}
		}
	}

	usdc := xdr.MustNewCreditAsset("USDC", w.usdcIssuer)
	cid, err := usdc.ContractID(passphrase)
	if err != nil {
		return nil, err
	}
	if w.usdcContract, err = strkey.Encode(strkey.VersionByteContract, cid[:]); err != nil {
		return nil, err
	}
	regID := seedHash("registry")
	if w.registry, err = strkey.Encode(strkey.VersionByteContract, regID[:]); err != nil {
		return nil, err
	}
	w.regAddr = xdr.ScAddress{Type: xdr.ScAddressTypeScAddressTypeContract, ContractId: (*xdr.ContractId)(&regID)}
	w.reg = newRegistry(w.regAddr, passphrase, w.byName["registrar"].Address)

	for i := range resourceSeed {
		r := resourceSeed[i] // a copy: the seed table stays pristine across sandboxes
		r.check = verificationOf(&r)
		r.wallet, r.publisher, r.pubID = w.byName[r.owner].Address, publisherNames[r.owner], seededPublisherID(r.owner)
		if r.onchain == "registered" {
			if r.onchainTx, err = w.registerTx(&r, uint32(900+10*i)); err != nil {
				return nil, fmt.Errorf("registration of %s: %w", r.id, err)
			}
		}
		if r.onchain == "pending" {
			h := seedHash("pending/" + r.id) // submitted but never applied: getTransaction NOT_FOUND
			r.onchainTx = hex.EncodeToString(h[:])
		}
		w.resources = append(w.resources, &r)
		w.byID[r.id] = &r
	}

	// The two payments tests poll with mindvault_tx_status.
	pay := func(from, to string, amount int64, ok bool, ledger uint32, order int32) (string, error) {
		op := xdr.Operation{Body: xdr.OperationBody{Type: xdr.OperationTypePayment, PaymentOp: &xdr.PaymentOp{
			Destination: xdr.MustMuxedAddress(w.byName[to].Address), Asset: usdc, Amount: xdr.Int64(amount)}}}
		code, txCode := xdr.PaymentResultCodePaymentSuccess, xdr.TransactionResultCodeTxSuccess
		if !ok {
			code, txCode = xdr.PaymentResultCodePaymentUnderfunded, xdr.TransactionResultCodeTxFailed
		}
		res := xdr.TransactionResult{FeeCharged: 100, Result: xdr.TransactionResultResult{Code: txCode,
			Results: &[]xdr.OperationResult{{Code: xdr.OperationResultCodeOpInner, Tr: &xdr.OperationResultTr{
				Type: xdr.OperationTypePayment, PaymentResult: &xdr.PaymentResult{Code: code}}}}}}
		return w.addTx(w.byName[from], 100, op, xdr.TransactionExt{}, res, nil, ledger, order)
	}
	if w.successTx, err = pay("demo", "creator", 1_5000000, true, 980, 1); err != nil {
		return nil, err
	}
	if w.failedTx, err = pay("zero", "creator", 5*stroops, false, 985, 2); err != nil {
		return nil, err
	}
	for i, c := range registrySeed {
		p, err := parseStroops(c.price)
		if err != nil {
			return nil, err
		}
		ledger := uint32(995 + 2*i)
		args := []xdr.ScVal{scAddress(w.byName[c.owner].Address), soroban.Str(c.id), scI128(p), soroban.Str(c.metadata), soroban.StrVec(c.tags)}
		if _, err := w.invokeTx(w.byName[c.owner], "register", args, ledger); err != nil {
			return nil, fmt.Errorf("registration of %s: %w", c.id, err)
		}
		if !c.listed {
			if _, err := w.invokeTx(w.byName[c.owner], "set_listed", []xdr.ScVal{soroban.Str(c.id), soroban.Bool(false)}, ledger+1); err != nil {
				return nil, fmt.Errorf("delisting %s: %w", c.id, err)
			}
		}
	}
	if err := w.initPayments(); err != nil {
		return nil, err
	}
	w.initPublishing()
	return w, nil
}

// verificationOf gives verified and rejected rows the agent's verdict; pending and skipped
// rows have none.
func verificationOf(r *resource) *verification {
	switch r.status {
	case "verified":
		// 0.90–0.98, varied per resource but fixed, in whole hundredths like the agent reports.
		return &verification{original: true, confidence: float64(90+len(r.id)%9) / 100, flags: []string{}, checked: r.created.Add(7 * time.Minute)}
	case "rejected":
		return &verification{original: false, confidence: 0.88, flags: []string{"near_duplicate", "copied_passages"}, checked: r.created.Add(9 * time.Minute)}
	}
	return nil
}

// registerTx is the publisher's register(creator, id, price, metadata, tags) call on the
// registry, as the real server submits it, so meta's onchainTxHash resolves on RPC; it also
// puts the resource in the registry's storage, verified when the catalog says so.
func (w *world) registerTx(r *resource, ledger uint32) (string, error) {
	owner := w.byName[r.owner]
	price, err := parseStroops(r.price)
	if err != nil {
		return "", err
	}
	args := []xdr.ScVal{scAddress(owner.Address), soroban.Str(r.id), scI128(price), soroban.Str(metadataPointer(r)), soroban.StrVec(seedTags[r.id])}
	hash, err := w.invokeTx(owner, "register", args, ledger)
	if err != nil {
		return "", err
	}
	w.reg.byID[r.id].Verified = r.status == "verified" // set by the verifier, which is not modelled
	return hash, nil
}

// invokeTx records a seeded registry invocation by owner, signed and successful at ledger,
// and applies it to the registry's storage.
func (w *world) invokeTx(owner *chainAccount, fn string, args []xdr.ScVal, ledger uint32) (string, error) {
	c := &call{fn: fn, args: args, invoker: owner.Address, now: uint64(w.closeTime(ledger))}
	ro, rw := w.reg.footprint(c)
	ret, herr := w.reg.invoke(c)
	if herr != nil {
		return "", fmt.Errorf("%s: %s", fn, herr)
	}
	inv := xdr.InvokeContractArgs{ContractAddress: w.regAddr, FunctionName: xdr.ScSymbol(fn), Args: args}
	op := xdr.Operation{Body: xdr.OperationBody{Type: xdr.OperationTypeInvokeHostFunction,
		InvokeHostFunctionOp: &xdr.InvokeHostFunctionOp{
			HostFunction: xdr.HostFunction{Type: xdr.HostFunctionTypeHostFunctionTypeInvokeContract, InvokeContract: &inv},
			Auth:         []xdr.SorobanAuthorizationEntry{sourceAccountAuth(inv)},
		}}}
	data := sorobanData(ro, rw, true)
	res, meta := invokeOutcome(ret, nil, feeCharged(int64(data.ResourceFee)))
	return w.addTx(owner, 100+uint32(data.ResourceFee), op, xdr.TransactionExt{V: 1, SorobanData: &data}, res, &meta, ledger, 1)
}

// addTx signs a one-operation transaction from src with the next sequence number and records
// it with its result and meta (nil = a minimal TransactionMeta).
func (w *world) addTx(src *chainAccount, fee uint32, op xdr.Operation, ext xdr.TransactionExt,
	res xdr.TransactionResult, meta *xdr.TransactionMeta, ledger uint32, order int32) (string, error) {
	src.seq++
	src.lastModified = max(src.lastModified, ledger)
	env := xdr.TransactionEnvelope{Type: xdr.EnvelopeTypeEnvelopeTypeTx, V1: &xdr.TransactionV1Envelope{Tx: xdr.Transaction{
		SourceAccount: xdr.MustMuxedAddress(src.Address),
		Fee:           xdr.Uint32(fee),
		SeqNum:        xdr.SequenceNumber(src.seq),
		Cond:          xdr.Preconditions{Type: xdr.PreconditionTypePrecondNone},
		Memo:          xdr.Memo{Type: xdr.MemoTypeMemoNone},
		Operations:    []xdr.Operation{op},
		Ext:           ext,
	}}}
	h, err := network.HashTransactionInEnvelope(env, w.passphrase)
	if err != nil {
		return "", err
	}
	sig, err := src.kp.SignDecorated(h[:])
	if err != nil {
		return "", err
	}
	env.V1.Signatures = []xdr.DecoratedSignature{sig}
	if meta == nil {
		opsMeta := []xdr.OperationMetaV2{}
		if res.Result.Code == xdr.TransactionResultCodeTxSuccess { // a failed transaction applies no operation changes
			opsMeta = make([]xdr.OperationMetaV2, 1)
		}
		meta = &xdr.TransactionMeta{V: 4, V4: &xdr.TransactionMetaV4{Operations: opsMeta}}
	}
	hash := hex.EncodeToString(h[:])
	return hash, w.record(hash, env, res, *meta, nil, ledger, order)
}

// record makes a transaction known to getTransaction. The caller holds mu once Start returned.
func (w *world) record(hash string, env xdr.TransactionEnvelope, res xdr.TransactionResult, meta xdr.TransactionMeta,
	events []xdr.DiagnosticEvent, ledger uint32, order int32) error {
	t := &seededTx{hash: hash, ledger: ledger, order: order, success: res.Result.Code == xdr.TransactionResultCodeTxSuccess}
	var err error
	for _, enc := range []struct {
		dst *string
		v   any
	}{{&t.envelope, env}, {&t.result, res}, {&t.meta, meta}} {
		if *enc.dst, err = xdr.MarshalBase64(enc.v); err != nil {
			return err
		}
	}
	for _, ev := range events {
		b, err := xdr.MarshalBase64(ev)
		if err != nil {
			return err
		}
		t.events = append(t.events, b)
	}
	if t.success && meta.V == 4 && meta.V4 != nil {
		for _, op := range meta.V4.Operations {
			t.contract = append(t.contract, op.Events...)
		}
	}
	w.txs[hash] = t
	return nil
}

// parseStroops turns a decimal USDC string ("1.50", "25") into 7-decimal units.
func parseStroops(s string) (int64, error) {
	whole, frac, _ := strings.Cut(s, ".")
	if len(frac) > 7 {
		return 0, fmt.Errorf("price %q has more than 7 decimals", s)
	}
	n, err := strconv.ParseInt(whole+frac+strings.Repeat("0", 7-len(frac)), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("price %q: %w", s, err)
	}
	return n, nil
}

// amount renders stroops as Horizon does: a decimal with exactly seven fractional digits.
func amount(v int64) string {
	return fmt.Sprintf("%d.%07d", v/stroops, v%stroops)
}
