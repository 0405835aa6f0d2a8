package sandbox

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/stellar/go-stellar-sdk/keypair"
	"github.com/stellar/go-stellar-sdk/network"
	protocol "github.com/stellar/go-stellar-sdk/protocols/rpc"
	"github.com/stellar/go-stellar-sdk/strkey"
	"github.com/stellar/go-stellar-sdk/xdr"

	"github.com/mindvault/mcp-endpoint/internal/clients/soroban"
)

// The sandbox USDC token: an in-memory model of the Stellar Asset Contract of
// USDC:USDCIssuer, reached through simulateTransaction and sendTransaction like the registry.
// Balances of G accounts ARE the Horizon trustline balances (one source of truth, 7-decimal
// units); the issuer's balance is unlimited (it mints and burns); contract (C...) addresses
// hold balances in the contract's own storage.

// Stellar Asset Contract error numbers the model raises (docs/sandbox.md "Vault registry and USDC models").
const (
	sacErrNegativeAmount   = 8
	sacErrBalance          = 10
	sacErrTrustlineMissing = 13
)

// nonceKey names one authorization nonce of an address.
type nonceKey struct {
	addr  string
	nonce int64
}

// nonceUse is a nonce an authorization would consume, with the expiration ledger of the
// signature that carries it.
type nonceUse struct {
	nonceKey
	expires uint32
}

// consumedNonce is the temporary ledger entry a consumed nonce leaves: the host writes it
// (value Void) with its live-until ledger set to the signature's expiration ledger, so it
// exists while the ledger is at most liveUntil; after that it is gone and the nonce may be
// used again.
type consumedNonce struct {
	liveUntil    uint32
	lastModified uint32 // the ledger whose transaction consumed it
}

// payments is the token's state beyond the trustlines, and the x402 facilitator's account.
// Guarded by world.mu.
type payments struct {
	sac         sacState
	facilitator *chainAccount // the account that submits (and pays for) x402 settlements
}

type sacState struct {
	addr      xdr.ScAddress
	name      string           // "USDC:<issuer>", the asset's name in transfer events
	contracts map[string]int64 // balances of contract (C...) addresses
	// nonces are the nonce entries applied transactions wrote; an entry counts only while
	// it is live (see liveNonce), as a temporary entry past its TTL does on the network.
	nonces map[nonceKey]consumedNonce
}

// liveNonce is the entry of a consumed nonce that still exists in ledger.
func (st *sacState) liveNonce(k nonceKey, ledger uint32) (consumedNonce, bool) {
	e, ok := st.nonces[k]
	if !ok || ledger > e.liveUntil {
		return consumedNonce{}, false
	}
	return e, true
}

// initPayments sets up the token model and the facilitator account (funded, no trustline).
// The facilitator is reachable by Account("facilitator") and on Horizon, but is not one of
// Accounts.
func (w *world) initPayments() error {
	raw, err := strkey.Decode(strkey.VersionByteContract, w.usdcContract)
	if err != nil {
		return err
	}
	var cid xdr.ContractId
	copy(cid[:], raw)
	kp, err := seedKey("facilitator")
	if err != nil {
		return err
	}
	created := uint32(600 + 10*len(accountSeed))
	fac := &chainAccount{Account: Account{Name: "facilitator", Address: kp.Address(), Secret: kp.Seed()},
		kp: kp, native: 10_000 * stroops, created: created, seq: int64(created) << 32, lastModified: created}
	w.byName[fac.Name] = fac
	w.byAddr[fac.Address] = fac
	w.pay = &payments{facilitator: fac, sac: sacState{
		addr:      xdr.ScAddress{Type: xdr.ScAddressTypeScAddressTypeContract, ContractId: &cid},
		name:      "USDC:" + w.usdcIssuer,
		contracts: map[string]int64{},
		nonces:    map[nonceKey]consumedNonce{},
	}}
	return nil
}

// sacErr is a token contract error with the host's diagnostic message.
func sacErr(n uint32, msg string, extra ...xdr.ScVal) *hostError {
	e := contractErr(n)
	e.data = soroban.Str(msg)
	if len(extra) > 0 {
		e.data = soroban.Vec(append([]xdr.ScVal{soroban.Str(msg)}, extra...)...)
	}
	return e
}

func isContractAddr(addr string) bool { return strings.HasPrefix(addr, "C") }

// usdcLine is addr's USDC trustline; nil when the account or the trustline is missing.
// The caller holds mu.
func (w *world) usdcLine(addr string) *trustLine {
	acc := w.byAddr[addr]
	if acc == nil {
		return nil
	}
	for i := range acc.lines {
		if l := &acc.lines[i]; l.code == "USDC" && l.issuer == w.usdcIssuer {
			return l
		}
	}
	return nil
}

// usdcBalance is what balance(addr) returns; a G account without the trustline (or without
// an account) is TrustlineMissing (#13), as the SAC reports for credit assets.
func (w *world) usdcBalance(addr string) (int64, *hostError) {
	switch {
	case addr == w.usdcIssuer:
		return math.MaxInt64, nil
	case isContractAddr(addr):
		return w.pay.sac.contracts[addr], nil
	}
	l := w.usdcLine(addr)
	if l == nil {
		return 0, sacErr(sacErrTrustlineMissing, "trustline entry is missing for account", scAddress(addr))
	}
	return l.balance, nil
}

// checkTransfer validates moving amt from → to: the payer's trustline (#13) and balance
// (#10), then the payee's trustline (#13) and limit (#10).
func (w *world) checkTransfer(from, to string, amt int64) *hostError {
	bal, e := w.usdcBalance(from)
	if e != nil {
		return e
	}
	if bal < amt {
		return sacErr(sacErrBalance, "resulting balance is not within the allowed range", scI128(bal), scI128(amt))
	}
	if to == w.usdcIssuer || isContractAddr(to) || from == to {
		return nil
	}
	l := w.usdcLine(to)
	if l == nil {
		return sacErr(sacErrTrustlineMissing, "trustline entry is missing for account", scAddress(to))
	}
	if l.balance > maxTrustLine-amt {
		return sacErr(sacErrBalance, "resulting balance is not within the allowed range", scI128(l.balance), scI128(amt))
	}
	return nil
}

// moveUSDC applies a checked transfer. The caller holds mu.
func (w *world) moveUSDC(from, to string, amt int64, ledger uint32) {
	adjust := func(addr string, delta int64) {
		switch {
		case addr == w.usdcIssuer: // minted or burned
		case isContractAddr(addr):
			w.pay.sac.contracts[addr] += delta
		default:
			if l := w.usdcLine(addr); l != nil {
				l.balance += delta
				l.lastModified = max(l.lastModified, ledger)
			}
		}
	}
	adjust(from, -amt)
	adjust(to, amt)
}

// transferEvent is the SAC's transfer event since CAP-67: topics ["transfer", from, to,
// "USDC:<issuer>"], data the i128 amount.
func (w *world) transferEvent(from, to string, amt int64) xdr.ContractEvent {
	return xdr.ContractEvent{ContractId: w.pay.sac.addr.ContractId, Type: xdr.ContractEventTypeContract,
		Body: xdr.ContractEventBody{V: 0, V0: &xdr.ContractEventV0{
			Topics: []xdr.ScVal{soroban.Sym("transfer"), scAddress(from), scAddress(to), soroban.Str(w.pay.sac.name)},
			Data:   scI128(amt),
		}}}
}

// argAmount reads an i128 amount: negative is NegativeAmount (#8); more than any balance
// can hold is a balance error (#10).
func argAmount(v xdr.ScVal) (int64, *hostError) {
	n, e := argI128(v)
	if e != nil {
		return 0, e
	}
	if n.Sign() < 0 {
		return 0, sacErr(sacErrNegativeAmount, "negative amount is not allowed", v)
	}
	if !n.IsInt64() {
		return 0, sacErr(sacErrBalance, "resulting balance is not within the allowed range", v)
	}
	return n.Int64(), nil
}

// tokenInvoke runs a token call against the state without changing it. requireAuth is the
// require_auth hook (it records or checks authorization); commit applies the call's effects.
// The caller holds mu.
func (w *world) tokenInvoke(c *call, requireAuth func(addr string) *hostError) (ret xdr.ScVal, events []xdr.ContractEvent,
	commit func(ledger uint32), herr *hostError) {
	nothing := func(uint32) {}
	arity := map[string]int{"balance": 1, "transfer": 3, "decimals": 0, "name": 0, "symbol": 0}
	n, ok := arity[c.fn]
	if !ok {
		return ret, nil, nil, hostErr(xdr.ScErrorTypeSceWasmVm, xdr.ScErrorCodeScecInvalidAction,
			"trying to invoke non-existent contract function (the sandbox token models balance, transfer, decimals, name and symbol)", soroban.Sym(c.fn))
	}
	if len(c.args) != n {
		return ret, nil, nil, hostErr(xdr.ScErrorTypeSceWasmVm, xdr.ScErrorCodeScecInvalidAction,
			"invalid number of input arguments", soroban.U32(uint32(n)), soroban.U32(uint32(len(c.args))))
	}
	switch c.fn {
	case "decimals":
		return soroban.U32(7), nil, nothing, nil
	case "name":
		return soroban.Str(w.pay.sac.name), nil, nothing, nil
	case "symbol":
		return soroban.Str("USDC"), nil, nothing, nil
	case "balance":
		id, e := argAddress(c.args[0])
		if e != nil {
			return ret, nil, nil, e
		}
		bal, e := w.usdcBalance(id)
		if e != nil {
			return ret, nil, nil, e
		}
		return scI128(bal), nil, nothing, nil
	}
	from, e := argAddress(c.args[0])
	if e != nil {
		return ret, nil, nil, e
	}
	to, e := argAddress(c.args[1])
	if e != nil {
		return ret, nil, nil, e
	}
	amt, e := argAmount(c.args[2])
	if e != nil {
		return ret, nil, nil, e
	}
	if e := requireAuth(from); e != nil {
		return ret, nil, nil, e
	}
	if e := w.checkTransfer(from, to, amt); e != nil {
		return ret, nil, nil, e
	}
	return soroban.Void(), []xdr.ContractEvent{w.transferEvent(from, to, amt)},
		func(ledger uint32) { w.moveUSDC(from, to, amt, ledger) }, nil
}

// recordAuth is the auth entry record mode produces for require_auth(addr): source-account
// credentials when addr is the operation's source, else address credentials with a random
// nonce, expiration 0 and a void signature.
func recordAuth(inv *invocation, addr string) xdr.SorobanAuthorizationEntry {
	if addr == inv.source {
		return sourceAccountAuth(inv.args)
	}
	var b [8]byte
	_, _ = rand.Read(b[:])
	nonce := int64(binary.BigEndian.Uint64(b[:]) >> 1)
	a := scAddress(addr).Address
	args := inv.args
	return xdr.SorobanAuthorizationEntry{
		Credentials: xdr.SorobanCredentials{Type: xdr.SorobanCredentialsTypeSorobanCredentialsAddress,
			Address: &xdr.SorobanAddressCredentials{Address: *a, Nonce: xdr.Int64(nonce), Signature: soroban.Void()}},
		RootInvocation: xdr.SorobanAuthorizedInvocation{Function: xdr.SorobanAuthorizedFunction{
			Type: xdr.SorobanAuthorizedFunctionTypeSorobanAuthorizedFunctionTypeContractFn, ContractFn: &args}},
	}
}

// authPayload is what an address-credential entry's signature covers:
// sha256(HashIdPreimage ENVELOPE_TYPE_SOROBAN_AUTHORIZATION{network id, nonce, expiration,
// invocation}).
func authPayload(passphrase string, cr *xdr.SorobanAddressCredentials, inv xdr.SorobanAuthorizedInvocation) ([32]byte, error) {
	pre := xdr.HashIdPreimage{Type: xdr.EnvelopeTypeEnvelopeTypeSorobanAuthorization,
		SorobanAuthorization: &xdr.HashIdPreimageSorobanAuthorization{
			NetworkId: network.ID(passphrase), Nonce: cr.Nonce,
			SignatureExpirationLedger: cr.SignatureExpirationLedger, Invocation: inv,
		}}
	b, err := pre.MarshalBinary()
	if err != nil {
		return [32]byte{}, err
	}
	return sha256.Sum256(b), nil
}

func authErr(c xdr.ScErrorCode, msg string, extra ...xdr.ScVal) *hostError {
	return hostErr(xdr.ScErrorTypeSceAuth, c, msg, extra...)
}

// checkAccountSignature is the host's check of a classic account's address credentials: the
// signature is Vec[Map{public_key: Bytes(32), signature: Bytes(64)}], every key a signer of
// the account (sandbox accounts have only their master key) and every signature a valid
// ed25519 signature of the payload; at least one is needed.
func (w *world) checkAccountSignature(addr string, e xdr.SorobanAuthorizationEntry) *hostError {
	cr := e.Credentials.Address
	if isContractAddr(addr) {
		return authErr(xdr.ScErrorCodeScecInvalidAction, "contract authorization (__check_auth) is not modelled by the sandbox", scAddress(addr))
	}
	if cr.Signature.Type == xdr.ScValTypeScvVoid {
		return authErr(xdr.ScErrorCodeScecInvalidAction, "signature weight is lower than threshold: the entry is not signed", scAddress(addr))
	}
	kp, err := keypair.ParseAddress(addr)
	if err != nil {
		return authErr(xdr.ScErrorCodeScecInvalidInput, "not an account address")
	}
	aid := xdr.MustAddress(addr)
	payload, err := authPayload(w.passphrase, cr, e.RootInvocation)
	if err != nil {
		return authErr(xdr.ScErrorCodeScecInvalidInput, "undecodable invocation")
	}
	badFormat := authErr(xdr.ScErrorCodeScecInvalidInput, "the signature is not Vec<Map{public_key: Bytes(32), signature: Bytes(64)}>")
	if cr.Signature.Type != xdr.ScValTypeScvVec || cr.Signature.Vec == nil || *cr.Signature.Vec == nil {
		return badFormat
	}
	weight := 0
	for _, item := range **cr.Signature.Vec {
		if item.Type != xdr.ScValTypeScvMap || item.Map == nil || *item.Map == nil || len(**item.Map) != 2 {
			return badFormat
		}
		var pk, sig []byte
		for _, ent := range **item.Map {
			if ent.Key.Type != xdr.ScValTypeScvSymbol || ent.Val.Type != xdr.ScValTypeScvBytes || ent.Val.Bytes == nil {
				return badFormat
			}
			switch string(*ent.Key.Sym) {
			case "public_key":
				pk = *ent.Val.Bytes
			case "signature":
				sig = *ent.Val.Bytes
			}
		}
		if len(pk) != 32 || len(sig) != 64 {
			return badFormat
		}
		if !bytes.Equal(pk, aid.Ed25519[:]) {
			return authErr(xdr.ScErrorCodeScecInvalidAction, "signer does not belong to account", scAddress(addr))
		}
		if kp.Verify(payload[:], sig) != nil {
			return hostErr(xdr.ScErrorTypeSceCrypto, xdr.ScErrorCodeScecInvalidInput, "failed ED25519 verification")
		}
		weight++
	}
	if weight == 0 {
		return authErr(xdr.ScErrorCodeScecInvalidAction, "signature weight is lower than threshold", scAddress(addr))
	}
	return nil
}

// authorize is require_auth(addr) in enforcing mode against the operation's auth entries:
// source-account credentials for exactly the invocation when addr is the operation's source;
// otherwise an address-credential entry for addr whose root invocation is exactly the call,
// whose signature verifies, which has not expired by ledger and whose nonce has no live
// entry in ledger (a nonce consumed by an applied transaction exists until its signature's
// expiration ledger). It returns the nonce the call consumes when it succeeds. The caller
// holds mu.
func (w *world) authorize(inv *invocation, addr string, ledger uint32) (*nonceUse, *hostError) {
	if addr == inv.source {
		if authorized(inv) {
			return nil, nil
		}
		return nil, authErr(xdr.ScErrorCodeScecInvalidAction, "the operation carries no source-account authorization for this invocation")
	}
	want, err := inv.args.MarshalBinary()
	if err != nil {
		return nil, authErr(xdr.ScErrorCodeScecInvalidInput, "undecodable invocation")
	}
	for _, a := range inv.op.Auth {
		cr := a.Credentials.Address
		if a.Credentials.Type != xdr.SorobanCredentialsTypeSorobanCredentialsAddress || cr == nil {
			continue
		}
		if who, err := cr.Address.String(); err != nil || who != addr {
			continue
		}
		fn := a.RootInvocation.Function
		if fn.Type != xdr.SorobanAuthorizedFunctionTypeSorobanAuthorizedFunctionTypeContractFn || fn.ContractFn == nil {
			continue
		}
		if got, err := fn.ContractFn.MarshalBinary(); err != nil || !bytes.Equal(got, want) {
			continue
		}
		if e := w.checkAccountSignature(addr, a); e != nil {
			return nil, e
		}
		nk := nonceKey{addr, int64(cr.Nonce)}
		expires := uint32(cr.SignatureExpirationLedger)
		if expires < ledger {
			return nil, authErr(xdr.ScErrorCodeScecInvalidInput, "signature has expired",
				scAddress(addr), soroban.U32(ledger), soroban.U32(expires))
		}
		if _, live := w.pay.sac.liveNonce(nk, ledger); live {
			return nil, authErr(xdr.ScErrorCodeScecExistingValue, "nonce already exists for address", scAddress(addr))
		}
		return &nonceUse{nk, expires}, nil
	}
	return nil, authErr(xdr.ScErrorCodeScecInvalidAction, "no authorization entry for the address matches this invocation", scAddress(addr))
}

// tokenFootprint lists the ledger keys a token call touches: the instance, the balance
// entries (trustlines, or contract storage for C addresses) and the consumed nonces.
func (w *world) tokenFootprint(c *call, nonces []nonceKey) (readOnly, readWrite []xdr.LedgerKey) {
	readOnly = []xdr.LedgerKey{contractDataKey(w.pay.sac.addr, xdr.ScVal{Type: xdr.ScValTypeScvLedgerKeyContractInstance})}
	balanceKey := func(v xdr.ScVal) (xdr.LedgerKey, bool) {
		addr, e := argAddress(v)
		if e != nil || addr == w.usdcIssuer {
			return xdr.LedgerKey{}, false
		}
		if isContractAddr(addr) {
			return contractDataKey(w.pay.sac.addr, soroban.Vec(soroban.Sym("Balance"), v)), true
		}
		return xdr.LedgerKey{Type: xdr.LedgerEntryTypeTrustline, TrustLine: &xdr.LedgerKeyTrustLine{
			AccountId: xdr.MustAddress(addr), Asset: xdr.MustNewCreditAsset("USDC", w.usdcIssuer).ToTrustLineAsset()}}, true
	}
	switch {
	case c.fn == "balance" && len(c.args) == 1:
		if k, ok := balanceKey(c.args[0]); ok {
			readOnly = append(readOnly, k)
		}
	case c.fn == "transfer" && len(c.args) == 3:
		for i, v := range c.args[:2] {
			if i == 1 && v.Equals(c.args[0]) {
				break
			}
			if k, ok := balanceKey(v); ok {
				readWrite = append(readWrite, k)
			}
		}
	}
	for _, n := range nonces {
		readWrite = append(readWrite, nonceLedgerKey(n))
	}
	return readOnly, readWrite
}

// nonceLedgerKey is the ledger key of an address's nonce entry: ContractData of the address
// itself (an account's too), key ScvLedgerKeyNonce{nonce}, temporary.
func nonceLedgerKey(n nonceKey) xdr.LedgerKey {
	a := scAddress(n.addr).Address
	return xdr.LedgerKey{Type: xdr.LedgerEntryTypeContractData, ContractData: &xdr.LedgerKeyContractData{
		Contract: *a, Key: xdr.ScVal{Type: xdr.ScValTypeScvLedgerKeyNonce, NonceKey: &xdr.ScNonceKey{Nonce: xdr.Int64(n.nonce)}},
		Durability: xdr.ContractDataDurabilityTemporary}}
}

// tokenData is the SorobanTransactionData of a token call; each verified signature adds
// CPU, so a simulation with signed entries asks a little more than the recording one. A
// signed transfer stays below 50,000 stroops of resource fee.
func tokenData(readOnly, readWrite []xdr.LedgerKey, sigs int) xdr.SorobanTransactionData {
	keys := len(readOnly) + len(readWrite)
	return xdr.SorobanTransactionData{
		Resources: xdr.SorobanResources{
			Footprint:     xdr.LedgerFootprint{ReadOnly: nonNil(readOnly), ReadWrite: nonNil(readWrite)},
			Instructions:  xdr.Uint32(800_000 + 150_000*keys + 1_200_000*sigs),
			DiskReadBytes: xdr.Uint32(300 * keys),
			WriteBytes:    xdr.Uint32(200 * len(readWrite)),
		},
		ResourceFee: xdr.Int64(20_000 + 2_000*len(readOnly) + 5_000*len(readWrite) + 6_000*sigs),
	}
}

// simulateToken is simulateTransaction for a call on the USDC contract. Without auth entries
// (or with authMode record) it records: a transfer's require_auth(from) becomes one auth
// entry. With entries attached (enforce) it checks them as the host does and returns no auth.
func (s *Sandbox) simulateToken(mode string, inv *invocation, f *Fault, latest uint32) (any, *rpcError) {
	resp := protocol.SimulateTransactionResponse{LatestLedger: latest}
	w := s.world
	c := inv.call(s.closeTime(latest))
	record := mode == protocol.AuthModeRecord || mode == protocol.AuthModeRecordAllowNonroot ||
		(mode == "" && len(inv.op.Auth) == 0)
	var herr *hostError
	switch {
	case f != nil && f.Kind == KindNoContract:
		herr = missingInstance(soroban.AddressVal(inv.args.ContractAddress))
	case f != nil && f.Kind == KindContractError:
		herr = contractErr(uint32(f.Code))
	}
	var (
		entries []xdr.SorobanAuthorizationEntry
		nonces  []nonceKey
		ret     xdr.ScVal
		events  []xdr.ContractEvent
		sigs    int
	)
	if herr == nil {
		unlock := s.lockChain()
		ret, events, _, herr = w.tokenInvoke(c, func(addr string) *hostError {
			if record {
				e := recordAuth(inv, addr)
				entries = append(entries, e)
				if e.Credentials.Address != nil {
					nonces = append(nonces, nonceKey{addr, int64(e.Credentials.Address.Nonce)})
				}
				return nil
			}
			nu, e := w.authorize(inv, addr, latest)
			if nu != nil {
				nonces, sigs = append(nonces, nu.nonceKey), sigs+1
			}
			return e
		})
		unlock()
	}
	readOnly, readWrite := w.tokenFootprint(c, nonces)
	archived := f != nil && f.Kind == KindArchived
	if archived {
		resp.RestorePreamble = restorePreamble(tokenData(nil, append(slices.Clone(readOnly), readWrite...), 0))
	}
	if herr != nil {
		hostFailure(&resp, inv, c, herr, archived)
		return resp, nil
	}
	if e := simulated(&resp, tokenData(readOnly, readWrite, sigs), ret, marshalAll(entries)); e != nil {
		return nil, e
	}
	diag := make([]xdr.DiagnosticEvent, len(events))
	for i, ev := range events {
		diag[i] = xdr.DiagnosticEvent{InSuccessfulContractCall: true, Event: ev}
	}
	resp.EventsXDR = marshalAll(diag)
	return resp, nil
}

// applyToken runs an accepted token transaction in ledger: authorization is enforced, and
// on success the balances move and the nonces are consumed: each leaves its entry, live
// until its signature's expiration ledger. The caller holds mu.
func (w *world) applyToken(inv *invocation, c *call, ledger uint32) (xdr.ScVal, []xdr.ContractEvent, *hostError) {
	var nonces []nonceUse
	ret, events, commit, herr := w.tokenInvoke(c, func(addr string) *hostError {
		nu, e := w.authorize(inv, addr, ledger)
		if nu != nil {
			nonces = append(nonces, *nu)
		}
		return e
	})
	if herr != nil {
		return ret, nil, herr
	}
	commit(ledger)
	for _, n := range nonces {
		w.pay.sac.nonces[n.nonceKey] = consumedNonce{liveUntil: n.expires, lastModified: ledger}
	}
	return ret, events, nil
}

// Fund credits usdcUnits (7-decimal units) of sandbox USDC to address, as a payment from the
// issuer would; the account must exist and hold a USDC trustline from USDCIssuer.
func (s *Sandbox) Fund(address string, usdcUnits int64) error {
	if usdcUnits <= 0 {
		return fmt.Errorf("sandbox: Fund: amount must be positive, got %d", usdcUnits)
	}
	defer s.lockChain()()
	w := s.world
	if w.byAddr[address] == nil {
		return fmt.Errorf("sandbox: Fund: no account %s", address)
	}
	if w.usdcLine(address) == nil {
		return fmt.Errorf("sandbox: Fund: %s has no USDC trustline from %s", address, w.usdcIssuer)
	}
	if e := w.checkTransfer(w.usdcIssuer, address, usdcUnits); e != nil {
		return fmt.Errorf("sandbox: Fund: %s", e)
	}
	w.moveUSDC(w.usdcIssuer, address, usdcUnits, s.LatestLedger())
	return nil
}

// USDCBalance returns an address's sandbox USDC balance in 7-decimal units; ok is false
// when the account or its USDC trustline is missing.
func (s *Sandbox) USDCBalance(address string) (units int64, ok bool) {
	defer s.lockChain()()
	bal, e := s.world.usdcBalance(address)
	return bal, e == nil
}
