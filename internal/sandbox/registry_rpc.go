package sandbox

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/stellar/go-stellar-sdk/keypair"
	"github.com/stellar/go-stellar-sdk/network"
	protocol "github.com/stellar/go-stellar-sdk/protocols/rpc"
	"github.com/stellar/go-stellar-sdk/strkey"
	"github.com/stellar/go-stellar-sdk/xdr"

	"github.com/mindvault/mcp-endpoint/internal/clients/soroban"
)

// DefaultApplyDelay is how long after sendTransaction accepts a transaction the sandbox applies
// it (measured on Options.Now) unless Options.ApplyDelay says otherwise; until then
// getTransaction answers NOT_FOUND.
const DefaultApplyDelay = time.Second

// baseFee is the inclusion fee per operation the sandbox network asks.
const baseFee = 100

// sendTransaction statuses.
const (
	sendPending   = "PENDING"
	sendDuplicate = "DUPLICATE"
	sendTryAgain  = "TRY_AGAIN_LATER"
	sendError     = "ERROR"
)

// pendingTx is a transaction sendTransaction accepted and the sandbox has not applied yet.
type pendingTx struct {
	hash   string
	env    xdr.TransactionEnvelope
	inv    *invocation
	due    time.Time
	forced *hostError // a fault's error the transaction fails with when applied
}

// invocation is the single contract call of a transaction.
type invocation struct {
	op     *xdr.InvokeHostFunctionOp
	args   xdr.InvokeContractArgs
	source string // the operation's source account (the transaction's when unset)
}

// decodeInvocation reports why a transaction is not one contract invocation ("" = it is).
func decodeInvocation(env xdr.TransactionEnvelope) (*invocation, string) {
	if env.Type != xdr.EnvelopeTypeEnvelopeTypeTx || env.V1 == nil {
		return nil, "the MindVault sandbox handles only v1 transaction envelopes, got " + env.Type.String()
	}
	ops := env.Operations()
	switch {
	case len(ops) == 0:
		return nil, "Transaction contains no operations"
	case len(ops) > 1:
		return nil, "Transaction contains more than one operation"
	case ops[0].Body.Type != xdr.OperationTypeInvokeHostFunction || ops[0].Body.InvokeHostFunctionOp == nil:
		return nil, "Transaction contains unsupported operation type: " + ops[0].Body.Type.String()
	}
	op := ops[0].Body.InvokeHostFunctionOp
	if op.HostFunction.Type != xdr.HostFunctionTypeHostFunctionTypeInvokeContract || op.HostFunction.InvokeContract == nil {
		return nil, "the MindVault sandbox simulates only contract invocations, got " + op.HostFunction.Type.String()
	}
	inv := &invocation{op: op, args: *op.HostFunction.InvokeContract, source: env.SourceAccount().ToAccountId().Address()}
	if ops[0].SourceAccount != nil {
		inv.source = ops[0].SourceAccount.ToAccountId().Address()
	}
	return inv, ""
}

func (inv *invocation) call(now int64) *call {
	return &call{fn: string(inv.args.FunctionName), args: inv.args.Args, invoker: inv.source, now: uint64(now)}
}

// sourceAccountAuth is the auth entry record mode produces for require_auth of the
// operation's source account: the root invocation is exactly the called function and args.
func sourceAccountAuth(inv xdr.InvokeContractArgs) xdr.SorobanAuthorizationEntry {
	return xdr.SorobanAuthorizationEntry{
		Credentials: xdr.SorobanCredentials{Type: xdr.SorobanCredentialsTypeSorobanCredentialsSourceAccount},
		RootInvocation: xdr.SorobanAuthorizedInvocation{Function: xdr.SorobanAuthorizedFunction{
			Type: xdr.SorobanAuthorizedFunctionTypeSorobanAuthorizedFunctionTypeContractFn, ContractFn: &inv}},
	}
}

// authorized reports whether an operation carries a source-account auth entry for exactly
// its own invocation, which is what require_auth of the source account needs in enforce mode.
func authorized(inv *invocation) bool {
	want, err := inv.args.MarshalBinary()
	if err != nil {
		return false
	}
	for _, a := range inv.op.Auth {
		fn := a.RootInvocation.Function
		if a.Credentials.Type != xdr.SorobanCredentialsTypeSorobanCredentialsSourceAccount ||
			fn.Type != xdr.SorobanAuthorizedFunctionTypeSorobanAuthorizedFunctionTypeContractFn || fn.ContractFn == nil {
			continue
		}
		if got, err := fn.ContractFn.MarshalBinary(); err == nil && bytes.Equal(got, want) {
			return true
		}
	}
	return false
}

// sorobanData is the SorobanTransactionData simulation reports for a footprint; the
// resources and the fee grow with the number of keys, writes cost more.
func sorobanData(readOnly, readWrite []xdr.LedgerKey, write bool) xdr.SorobanTransactionData {
	keys := len(readOnly) + len(readWrite)
	fee := 30_000 + 6_000*len(readOnly) + 30_000*len(readWrite)
	if write {
		fee += 40_000
	}
	return xdr.SorobanTransactionData{
		Resources: xdr.SorobanResources{
			Footprint:     xdr.LedgerFootprint{ReadOnly: nonNil(readOnly), ReadWrite: nonNil(readWrite)},
			Instructions:  xdr.Uint32(1_500_000 + 200_000*keys),
			DiskReadBytes: xdr.Uint32(400 * keys),
			WriteBytes:    xdr.Uint32(600 * len(readWrite)),
		},
		ResourceFee: xdr.Int64(fee),
	}
}

func nonNil(keys []xdr.LedgerKey) []xdr.LedgerKey {
	if keys == nil {
		return []xdr.LedgerKey{}
	}
	return keys
}

// feeCharged is what an applied invocation costs: the inclusion fee and most of the
// resource fee (the rest is refunded).
func feeCharged(resourceFee int64) int64 { return baseFee + resourceFee*64/100 }

// invokeOutcome is the TransactionResult and TransactionMeta of an applied invocation.
func invokeOutcome(ret xdr.ScVal, herr *hostError, fee int64, events ...xdr.DiagnosticEvent) (xdr.TransactionResult, xdr.TransactionMeta) {
	opRes := xdr.InvokeHostFunctionResult{Code: xdr.InvokeHostFunctionResultCodeInvokeHostFunctionTrapped}
	code := xdr.TransactionResultCodeTxFailed
	meta := xdr.TransactionMetaV4{Operations: []xdr.OperationMetaV2{}, DiagnosticEvents: events,
		SorobanMeta: &xdr.SorobanTransactionMetaV2{}}
	if herr == nil {
		b, _ := ret.MarshalBinary()
		h := xdr.Hash(sha256.Sum256(b))
		opRes = xdr.InvokeHostFunctionResult{Code: xdr.InvokeHostFunctionResultCodeInvokeHostFunctionSuccess, Success: &h}
		code = xdr.TransactionResultCodeTxSuccess
		meta.Operations = make([]xdr.OperationMetaV2, 1)
		meta.SorobanMeta.ReturnValue = &ret
	}
	res := xdr.TransactionResult{FeeCharged: xdr.Int64(fee), Result: xdr.TransactionResultResult{Code: code,
		Results: &[]xdr.OperationResult{{Code: xdr.OperationResultCodeOpInner, Tr: &xdr.OperationResultTr{
			Type: xdr.OperationTypeInvokeHostFunction, InvokeHostFunctionResult: &opRes}}}}}
	return res, xdr.TransactionMeta{V: 4, V4: &meta}
}

// diagnostics are the events of a failed call, oldest first: the fn_call, then the error.
func diagnostics(contract xdr.ScAddress, c *call, herr *hostError) []xdr.DiagnosticEvent {
	var cid xdr.ScBytes
	if contract.ContractId != nil {
		cid = xdr.ScBytes(contract.ContractId[:])
	}
	data := soroban.Void()
	switch len(c.args) {
	case 0:
	case 1:
		data = c.args[0]
	default:
		data = soroban.Vec(c.args...)
	}
	ev := func(id *xdr.ContractId, data xdr.ScVal, topics ...xdr.ScVal) xdr.DiagnosticEvent {
		return xdr.DiagnosticEvent{Event: xdr.ContractEvent{ContractId: id, Type: xdr.ContractEventTypeDiagnostic,
			Body: xdr.ContractEventBody{V: 0, V0: &xdr.ContractEventV0{Topics: topics, Data: data}}}}
	}
	var raisedBy *xdr.ContractId
	if herr.err.Type == xdr.ScErrorTypeSceContract {
		raisedBy = contract.ContractId
	}
	scErr := herr.err
	return []xdr.DiagnosticEvent{
		ev(nil, data, soroban.Sym("fn_call"), soroban.Bytes(cid), soroban.Sym(c.fn)),
		ev(raisedBy, herr.data, soroban.Sym("error"), xdr.ScVal{Type: xdr.ScValTypeScvError, Error: &scErr}),
	}
}

// hostErrorText is simulateTransaction's error string: the host error, then the event log.
func hostErrorText(herr *hostError, events []xdr.DiagnosticEvent) string {
	var b strings.Builder
	b.WriteString("HostError: " + herr.String() + "\n\nEvent log (newest first):\n")
	for i, ev := range slices.Backward(events) {
		contract := ""
		if ev.Event.ContractId != nil {
			c, _ := strkey.Encode(strkey.VersionByteContract, ev.Event.ContractId[:])
			contract = "contract:" + c + ", "
		}
		var topics []string
		for _, t := range ev.Event.Body.V0.Topics {
			topics = append(topics, scText(t))
		}
		fmt.Fprintf(&b, "   %d: [Diagnostic Event] %stopics:[%s], data:%s\n", len(events)-1-i, contract,
			strings.Join(topics, ", "), scText(ev.Event.Body.V0.Data))
	}
	return b.String()
}

func marshalAll[T any](vs []T) []string {
	out := make([]string, 0, len(vs))
	for _, v := range vs {
		if b, err := xdr.MarshalBase64(v); err == nil {
			out = append(out, b)
		}
	}
	return out
}

// lockChain takes the chain-state lock after applying every pending transaction that is due;
// call the returned function to release it.
func (s *Sandbox) lockChain() func() {
	s.world.mu.Lock()
	now := s.now()
	w := s.world
	kept := w.pending[:0]
	for _, p := range w.pending {
		if p.due.After(now) {
			kept = append(kept, p)
			continue
		}
		s.apply(p)
	}
	clear(w.pending[len(kept):])
	w.pending = kept
	return w.mu.Unlock
}

// ledgerAt is the ledger current at t.
func (s *Sandbox) ledgerAt(t time.Time) uint32 {
	el := t.Sub(s.t0) + time.Duration(s.skew.Load())*time.Second
	if el < 0 {
		el = 0
	}
	return firstLedger + uint32(el/(ledgerSeconds*time.Second))
}

// apply runs an accepted transaction in the ledger current at its due time: it always uses
// the sequence number and pays its fee; the contract state changes only when it succeeds.
func (s *Sandbox) apply(p *pendingTx) {
	w := s.world
	ledger := s.ledgerAt(p.due)
	c := p.inv.call(s.closeTime(ledger))
	herr := p.forced
	var ret xdr.ScVal
	var opEvents []xdr.ContractEvent
	switch {
	case herr != nil:
	case p.inv.args.ContractAddress.Equals(w.pay.sac.addr): // the USDC token (usdc.go)
		ret, opEvents, herr = w.applyToken(p.inv, c, ledger)
	case !p.inv.args.ContractAddress.Equals(w.regAddr):
		herr = missingInstance(soroban.AddressVal(p.inv.args.ContractAddress))
	default:
		next := w.reg.clone()
		if ret, herr = next.invoke(c); herr == nil {
			if isWrite(c.fn) && !authorized(p.inv) {
				herr = hostErr(xdr.ScErrorTypeSceAuth, xdr.ScErrorCodeScecInvalidAction,
					"the operation carries no source-account authorization for this invocation")
			} else {
				w.reg = next
			}
		}
	}
	var events []xdr.DiagnosticEvent
	if herr != nil {
		events = diagnostics(p.inv.args.ContractAddress, c, herr)
	}
	fee := feeCharged(int64(p.env.V1.Tx.Ext.SorobanData.ResourceFee))
	res, meta := invokeOutcome(ret, herr, fee, events...)
	if herr == nil && len(opEvents) > 0 {
		meta.V4.Operations[0].Events = opEvents
	}
	src := w.byAddr[p.env.SourceAccount().ToAccountId().Address()]
	src.seq = p.env.SeqNum()
	src.native -= fee
	src.lastModified = max(src.lastModified, ledger)
	order := int32(1)
	for _, t := range w.txs {
		if t.ledger == ledger {
			order++
		}
	}
	_ = w.record(p.hash, p.env, res, meta, events, ledger, order)
}

func (s *Sandbox) rpcSimulateTransaction(params json.RawMessage, f *Fault) (any, *rpcError) {
	var req protocol.SimulateTransactionRequest
	if e := decodeParams(params, &req); e != nil {
		return nil, e
	}
	if e := checkFormat(req.Format); e != nil {
		return nil, e
	}
	switch req.AuthMode {
	case "", protocol.AuthModeEnforce, protocol.AuthModeRecord, protocol.AuthModeRecordAllowNonroot:
	default:
		return nil, &rpcError{Code: codeInvalidParams, Message: "invalid authMode: " + req.AuthMode}
	}
	latest := s.LatestLedger()
	resp := protocol.SimulateTransactionResponse{LatestLedger: latest}
	var env xdr.TransactionEnvelope
	if err := xdr.SafeUnmarshalBase64(req.Transaction, &env); err != nil {
		resp.Error = "Could not unmarshal transaction"
		return resp, nil
	}
	inv, why := decodeInvocation(env)
	if why != "" {
		resp.Error = why
		return resp, nil
	}
	if inv.args.ContractAddress.Equals(s.world.pay.sac.addr) {
		return s.simulateToken(req.AuthMode, inv, f, latest)
	}
	unlock := s.lockChain()
	reg := s.world.reg.clone()
	unlock()

	c := inv.call(s.closeTime(latest))
	readOnly, readWrite := reg.footprint(c)
	var herr *hostError
	switch {
	case f != nil && f.Kind == KindNoContract, !inv.args.ContractAddress.Equals(reg.addr):
		herr = missingInstance(soroban.AddressVal(inv.args.ContractAddress))
	case f != nil && f.Kind == KindContractError:
		herr = contractErr(uint32(f.Code))
	}
	var ret xdr.ScVal
	if herr == nil {
		ret, herr = reg.invoke(c)
	}
	archived := f != nil && f.Kind == KindArchived
	if archived {
		resp.RestorePreamble = restorePreamble(sorobanData(nil, append(slices.Clone(readOnly), readWrite...), false))
	}
	if herr != nil {
		hostFailure(&resp, inv, c, herr, archived)
		return resp, nil
	}
	auth := []string{}
	if isWrite(c.fn) {
		auth = marshalAll([]xdr.SorobanAuthorizationEntry{sourceAccountAuth(inv.args)})
	}
	if e := simulated(&resp, sorobanData(readOnly, readWrite, isWrite(c.fn)), ret, auth); e != nil {
		return nil, e
	}
	return resp, nil
}

// restorePreamble is the answer for a call whose entries are archived: restore them first,
// every entry the call touches read-write, priced by how many there are.
func restorePreamble(data xdr.SorobanTransactionData) *protocol.RestorePreamble {
	data.ResourceFee = xdr.Int64(20_000 + 8_000*len(data.Resources.Footprint.ReadWrite))
	b, _ := xdr.MarshalBase64(data)
	return &protocol.RestorePreamble{TransactionDataXDR: b, MinResourceFee: int64(data.ResourceFee)}
}

// hostFailure writes a failed invocation into resp: the host's error text and its diagnostic
// events, except where the entries are archived, for which the server reports only the restore.
func hostFailure(resp *protocol.SimulateTransactionResponse, inv *invocation, c *call, herr *hostError, archived bool) {
	if archived {
		return
	}
	events := diagnostics(inv.args.ContractAddress, c, herr)
	resp.Error = hostErrorText(herr, events)
	resp.EventsXDR = marshalAll(events)
}

// simulated writes a successful invocation into resp: the priced footprint, its fee and the
// one host-function result with its authorization entries.
func simulated(resp *protocol.SimulateTransactionResponse, data xdr.SorobanTransactionData, ret xdr.ScVal, auth []string) *rpcError {
	var err error
	if resp.TransactionDataXDR, err = xdr.MarshalBase64(data); err != nil {
		return &rpcError{Code: codeInternalError, Message: err.Error()}
	}
	resp.MinResourceFee = int64(data.ResourceFee)
	retB64, err := xdr.MarshalBase64(ret)
	if err != nil {
		return &rpcError{Code: codeInternalError, Message: err.Error()}
	}
	resp.Results = []protocol.SimulateHostFunctionResult{{ReturnValueXDR: &retB64, AuthXDR: &auth}}
	return nil
}

func checkFormat(format string) *rpcError {
	if err := protocol.IsValidFormat(format); err != nil {
		return &rpcError{Code: codeInvalidParams, Message: err.Error()}
	}
	if format == protocol.FormatJSON {
		// The real server renders XDR as JSON through a Rust library the sandbox does not have.
		return &rpcError{Code: codeInvalidParams, Message: "xdrFormat json is not supported by the MindVault sandbox; use base64"}
	}
	return nil
}

func (s *Sandbox) rpcSendTransaction(params json.RawMessage, f *Fault) (any, *rpcError) {
	var req protocol.SendTransactionRequest
	if e := decodeParams(params, &req); e != nil {
		return nil, e
	}
	if e := checkFormat(req.Format); e != nil {
		return nil, e
	}
	var env xdr.TransactionEnvelope
	if err := xdr.SafeUnmarshalBase64(req.Transaction, &env); err != nil {
		return nil, &rpcError{Code: codeInvalidParams, Message: "invalid_xdr"}
	}
	h, err := network.HashTransactionInEnvelope(env, s.Passphrase)
	if err != nil {
		return nil, &rpcError{Code: codeInvalidParams, Message: "invalid_hash"}
	}
	latest := s.LatestLedger()
	resp := protocol.SendTransactionResponse{Hash: hex.EncodeToString(h[:]), LatestLedger: latest,
		LatestLedgerCloseTime: s.closeTime(latest)}
	if f != nil {
		switch f.Kind {
		case KindTryAgain:
			resp.Status = sendTryAgain
			return resp, nil
		case KindNoCommit:
			resp.Status = sendPending // and forget it: it never reaches a ledger
			return resp, nil
		}
	}

	unlock := s.lockChain()
	defer unlock()
	w := s.world
	for _, p := range w.pending {
		if p.hash == resp.Hash {
			resp.Status = sendDuplicate
			return resp, nil
		}
	}
	inv, code := w.admit(env, h)
	if code != xdr.TransactionResultCodeTxSuccess {
		b, err := xdr.MarshalBase64(xdr.TransactionResult{FeeCharged: baseFee, Result: xdr.TransactionResultResult{Code: code}})
		if err != nil {
			return nil, &rpcError{Code: codeInternalError, Message: err.Error()}
		}
		resp.Status, resp.ErrorResultXDR = sendError, b
		return resp, nil
	}
	if w.queued(env.SourceAccount().ToAccountId().Address()) {
		resp.Status = sendTryAgain
		return resp, nil
	}
	p := &pendingTx{hash: resp.Hash, env: env, inv: inv, due: s.now().Add(s.applyDelay)}
	if f != nil {
		switch f.Kind {
		case KindContractError:
			p.forced = contractErr(uint32(f.Code))
		case KindNoContract:
			p.forced = missingInstance(soroban.AddressVal(inv.args.ContractAddress))
		}
	}
	w.pending = append(w.pending, p)
	resp.Status = sendPending
	return resp, nil
}

// queued reports a transaction from the source account addr waiting to be applied: core
// queues one transaction per source account, so another one is TRY_AGAIN_LATER until that
// one is applied (and then, with the same sequence number, txBAD_SEQ). Every path that
// admits a transaction checks it, so no two applied transactions share a sequence number.
// The caller holds mu.
func (w *world) queued(addr string) bool {
	return slices.ContainsFunc(w.pending, func(p *pendingTx) bool { return p.env.SourceAccount().ToAccountId().Address() == addr })
}

// admit validates a transaction as core does before queueing it; txSUCCESS means accepted.
// The caller holds mu.
func (w *world) admit(env xdr.TransactionEnvelope, hash [32]byte) (*invocation, xdr.TransactionResultCode) {
	inv, why := decodeInvocation(env)
	if why != "" {
		return nil, xdr.TransactionResultCodeTxMalformed
	}
	tx := env.V1.Tx
	if tx.Ext.V != 1 || tx.Ext.SorobanData == nil || tx.Ext.SorobanData.ResourceFee < 0 {
		return nil, xdr.TransactionResultCodeTxMalformed
	}
	src, ok := w.byAddr[env.SourceAccount().ToAccountId().Address()]
	if !ok || w.byAddr[inv.source] == nil {
		return nil, xdr.TransactionResultCodeTxNoAccount
	}
	if env.SeqNum() != src.seq+1 {
		return nil, xdr.TransactionResultCodeTxBadSeq
	}
	if int64(tx.Fee) < baseFee+int64(tx.Ext.SorobanData.ResourceFee) {
		return nil, xdr.TransactionResultCodeTxInsufficientFee
	}
	if !src.canPayFee(int64(tx.Fee)) { // fees.go
		return nil, xdr.TransactionResultCodeTxInsufficientBalance
	}
	for _, signer := range []string{src.Address, inv.source} {
		if !signedBy(env.Signatures(), signer, hash) {
			return nil, xdr.TransactionResultCodeTxBadAuth
		}
	}
	return inv, xdr.TransactionResultCodeTxSuccess
}

// signedBy reports a valid ed25519 signature by addr over the transaction hash.
func signedBy(sigs []xdr.DecoratedSignature, addr string, hash [32]byte) bool {
	kp, err := keypair.ParseAddress(addr)
	if err != nil {
		return false
	}
	hint := kp.Hint()
	for _, s := range sigs {
		if s.Hint == xdr.SignatureHint(hint) && kp.Verify(hash[:], s.Signature) == nil {
			return true
		}
	}
	return false
}

// RegistryResource returns a resource from the sandbox registry's storage, after applying
// every accepted transaction that is due.
func (s *Sandbox) RegistryResource(id string) (RegistryEntry, bool) {
	defer s.lockChain()()
	e, ok := s.world.reg.byID[id]
	if !ok {
		return RegistryEntry{}, false
	}
	out := e.RegistryEntry
	out.Tags = slices.Clone(e.Tags)
	return out, true
}

// RegistryIDs returns the registry's ids in registration order (the contract's index).
func (s *Sandbox) RegistryIDs() []string {
	defer s.lockChain()()
	return slices.Clone(s.world.reg.order)
}
