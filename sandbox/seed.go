package sandbox

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/stellar/go-stellar-sdk/keypair"
	"github.com/stellar/go-stellar-sdk/network"
	"github.com/stellar/go-stellar-sdk/strkey"
	"github.com/stellar/go-stellar-sdk/xdr"
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
}

type trustLine struct {
	code, issuer string
	balance      int64
	sponsor      string
	lastModified uint32
}

// seededTx is a transaction getTransaction knows, with its XDR already encoded.
type seededTx struct {
	hash, envelope, result, meta string
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
	owner                         string // seeded account name of the publisher
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

// world is the seeded, immutable state the simulators read.
type world struct {
	passphrase               string
	usdcIssuer, usdcContract string
	registry                 string
	accounts                 []*chainAccount
	byName, byAddr           map[string]*chainAccount
	missing                  Account
	resources                []*resource
	byID                     map[string]*resource
	txs                      map[string]*seededTx
	successTx, failedTx      string
	regAddr                  xdr.ScAddress // the registry as a contract address
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
	{id: "draftnotes", title: "Draft Research Notes", description: "Unverified notes awaiting the verification agent.", price: "1.00", kind: "file", mime: "text/plain", status: "pending", listed: false, owner: "demo", onchain: "none", created: day(11, 20)},
}

func newWorld(passphrase string) (*world, error) {
	w := &world{
		passphrase: passphrase,
		byName:     map[string]*chainAccount{},
		byAddr:     map[string]*chainAccount{},
		byID:       map[string]*resource{},
		txs:        map[string]*seededTx{},
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

	for i := range resourceSeed {
		r := resourceSeed[i] // a copy: the seed table stays pristine across sandboxes
		r.check = verificationOf(&r)
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
		return w.addTx(w.byName[from], 100, op, xdr.TransactionExt{}, res, ledger, order)
	}
	if w.successTx, err = pay("demo", "creator", 1_5000000, true, 980, 1); err != nil {
		return nil, err
	}
	if w.failedTx, err = pay("zero", "creator", 5*stroops, false, 985, 2); err != nil {
		return nil, err
	}
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
// registry, as the real server submits it, so meta's onchainTxHash resolves on RPC.
func (w *world) registerTx(r *resource, ledger uint32) (string, error) {
	owner := w.byName[r.owner]
	price, err := parseStroops(r.price)
	if err != nil {
		return "", err
	}
	meta, _ := json.Marshal(map[string]string{"title": r.title, "description": r.description})
	acct := xdr.MustAddress(owner.Address)
	args := xdr.InvokeContractArgs{ContractAddress: w.regAddr, FunctionName: "register", Args: []xdr.ScVal{
		{Type: xdr.ScValTypeScvAddress, Address: &xdr.ScAddress{Type: xdr.ScAddressTypeScAddressTypeAccount, AccountId: &acct}},
		scStr(r.id),
		{Type: xdr.ScValTypeScvI128, I128: &xdr.Int128Parts{Hi: 0, Lo: xdr.Uint64(price)}},
		scStr(string(meta)),
		scVec(),
	}}
	op := xdr.Operation{Body: xdr.OperationBody{Type: xdr.OperationTypeInvokeHostFunction,
		InvokeHostFunctionOp: &xdr.InvokeHostFunctionOp{
			HostFunction: xdr.HostFunction{Type: xdr.HostFunctionTypeHostFunctionTypeInvokeContract, InvokeContract: &args},
			Auth: []xdr.SorobanAuthorizationEntry{{
				Credentials: xdr.SorobanCredentials{Type: xdr.SorobanCredentialsTypeSorobanCredentialsSourceAccount},
				RootInvocation: xdr.SorobanAuthorizedInvocation{Function: xdr.SorobanAuthorizedFunction{
					Type: xdr.SorobanAuthorizedFunctionTypeSorobanAuthorizedFunctionTypeContractFn, ContractFn: &args}},
			}},
		}}}
	const resourceFee = 95_000
	ext := xdr.TransactionExt{V: 1, SorobanData: &xdr.SorobanTransactionData{
		Resources: xdr.SorobanResources{
			Footprint: xdr.LedgerFootprint{
				ReadOnly:  []xdr.LedgerKey{w.registryInstanceKey()},
				ReadWrite: []xdr.LedgerKey{w.registryRecordKey(r.id)},
			},
			Instructions: 2_400_000, DiskReadBytes: 1_460, WriteBytes: 820,
		},
		ResourceFee: resourceFee,
	}}
	void, _ := xdr.ScVal{Type: xdr.ScValTypeScvVoid}.MarshalBinary()
	ret := xdr.Hash(sha256.Sum256(void))
	res := xdr.TransactionResult{FeeCharged: 61_377, Result: xdr.TransactionResultResult{
		Code: xdr.TransactionResultCodeTxSuccess,
		Results: &[]xdr.OperationResult{{Code: xdr.OperationResultCodeOpInner, Tr: &xdr.OperationResultTr{
			Type: xdr.OperationTypeInvokeHostFunction, InvokeHostFunctionResult: &xdr.InvokeHostFunctionResult{
				Code: xdr.InvokeHostFunctionResultCodeInvokeHostFunctionSuccess, Success: &ret}}}}}}
	return w.addTx(owner, 100+resourceFee, op, ext, res, ledger, 1)
}

// addTx signs a one-operation transaction from src with the next sequence number and records
// it with its result and a minimal TransactionMeta.
func (w *world) addTx(src *chainAccount, fee uint32, op xdr.Operation, ext xdr.TransactionExt,
	res xdr.TransactionResult, ledger uint32, order int32) (string, error) {
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
	success := res.Result.Code == xdr.TransactionResultCodeTxSuccess
	opsMeta := []xdr.OperationMetaV2{}
	if success { // a failed transaction applies no operation changes
		opsMeta = make([]xdr.OperationMetaV2, 1)
	}
	meta := xdr.TransactionMeta{V: 4, V4: &xdr.TransactionMetaV4{Operations: opsMeta}}
	t := &seededTx{hash: hex.EncodeToString(h[:]), ledger: ledger, order: order, success: success}
	for _, enc := range []struct {
		dst *string
		v   any
	}{{&t.envelope, env}, {&t.result, res}, {&t.meta, meta}} {
		if *enc.dst, err = xdr.MarshalBase64(enc.v); err != nil {
			return "", err
		}
	}
	w.txs[t.hash] = t
	return t.hash, nil
}

// registryInstanceKey is the ledger key of the registry's instance storage.
func (w *world) registryInstanceKey() xdr.LedgerKey {
	return contractDataKey(w.regAddr, xdr.ScVal{Type: xdr.ScValTypeScvLedgerKeyContractInstance})
}

// registryRecordKey is the ledger key of DataKey::Resource(id) (mindvault-reference.md §4.5).
func (w *world) registryRecordKey(id string) xdr.LedgerKey {
	return contractDataKey(w.regAddr, scVec(scSym("Resource"), scStr(id)))
}

func contractDataKey(contract xdr.ScAddress, key xdr.ScVal) xdr.LedgerKey {
	return xdr.LedgerKey{Type: xdr.LedgerEntryTypeContractData, ContractData: &xdr.LedgerKeyContractData{
		Contract: contract, Key: key, Durability: xdr.ContractDataDurabilityPersistent}}
}

func scStr(s string) xdr.ScVal {
	v := xdr.ScString(s)
	return xdr.ScVal{Type: xdr.ScValTypeScvString, Str: &v}
}

func scSym(s string) xdr.ScVal {
	v := xdr.ScSymbol(s)
	return xdr.ScVal{Type: xdr.ScValTypeScvSymbol, Sym: &v}
}

func scVec(items ...xdr.ScVal) xdr.ScVal {
	v := xdr.ScVec(items)
	p := &v
	return xdr.ScVal{Type: xdr.ScValTypeScvVec, Vec: &p}
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
