package registry

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/stellar/go-stellar-sdk/keypair"
	rpc "github.com/stellar/go-stellar-sdk/protocols/rpc"
	"github.com/stellar/go-stellar-sdk/txnbuild"
	"github.com/stellar/go-stellar-sdk/xdr"

	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/internal/clients/horizon"
	"github.com/mindvault/mcp-endpoint/internal/clients/soroban"
	"github.com/mindvault/mcp-endpoint/internal/clients/transport"
)

// WriteWaitVar is the setting that bounds the wait for a sent write's confirmation.
const WriteWaitVar = "MINDVAULT_WRITE_WAIT_MS"

// DefaultPollInterval is the pause between getTransaction polls of a sent write when the
// Client sets none (MINDVAULT_WRITE_POLL_MS defaults to it).
const DefaultPollInterval = time.Second

// DefaultWriteWait is the confirmation wait of a Client without WriteWait: a few ledgers, well
// inside the minute most MCP clients wait.
const DefaultWriteWait = 20 * time.Second

// Written is a confirmed write.
type Written struct {
	Hash   string
	Ledger uint32
}

// MaxFeeVar is the setting that caps the total fee of a transaction the endpoint signs.
const MaxFeeVar = "MINDVAULT_MAX_TX_FEE_STROOPS"

// DefaultMaxFee is the fee cap of a Client without MaxFee: 1 XLM, the default of
// MINDVAULT_MAX_TX_FEE_STROOPS.
const DefaultMaxFee = 10_000_000

// Plan is a write about to be signed and sent: the function, the fee (inclusion plus simulated
// resource fee, in stroops) and the sequence it was built on.
type Plan struct {
	Function string
	Fee      int64
	Sequence int64
}

// InvokeApproved performs a creator-authorised write: simulate with the wallet as source,
// assemble the footprint, auth and resource fee (only the call itself may be authorised, and
// the fee stays within MaxFee), have approve (the user's confirmation, package confirm) accept
// it or stop it with nothing signed or sent, sign, send, and poll until the outcome is known,
// the write wait has passed since the first send, or the invocation deadline comes. Once the
// envelope may have reached the network, an unconfirmed outcome is reported as stateChanged
// "unknown" with the hash, computed before sending, and a mindvault_tx_status nextAction —
// never retried blindly: the only resend is the same envelope after TRY_AGAIN_LATER (send).
func (c *Client) InvokeApproved(ctx context.Context, kp *keypair.Full, approve func(context.Context, Plan) error, fn string, args ...xdr.ScVal) (*Written, error) {
	source := kp.Address()
	seq, err := c.Sequence(ctx, source)
	if err != nil {
		return nil, err
	}
	draft, err := c.build(source, seq, fn, args, nil, nil, txnbuild.MinBaseFee)
	if err != nil {
		return nil, err
	}
	sim, err := soroban.Simulate(ctx, c.RPC, draft, errmap.SourceRegistry, Errors)
	if err != nil {
		return nil, err
	}
	data, err := soroban.Resources(sim, errmap.SourceRegistry, fn)
	if err != nil {
		return nil, err
	}
	auth, err := soroban.AuthEntries(sim)
	if err != nil {
		return nil, c.malformed(fn + " simulation returned an undecodable auth entry")
	}
	want := *draft.Operations()[0].(*txnbuild.InvokeHostFunction).HostFunction.InvokeContract // build makes one call
	if err := c.checkSimulation(fn, want, auth, data); err != nil {
		return nil, err
	}
	// txnbuild adds the resource fee in data: the total, checkSimulation kept within MaxFee.
	tx, err := c.build(source, seq, fn, args, auth, data, txnbuild.MinBaseFee)
	if err != nil {
		return nil, err
	}
	if err := approve(ctx, Plan{Function: fn, Fee: tx.MaxFee(), Sequence: seq}); err != nil {
		return nil, err
	}
	if tx, err = tx.Sign(c.Passphrase, kp); err != nil {
		return nil, fmt.Errorf("sign: %w", err)
	}
	env, err := tx.Base64()
	if err != nil {
		return nil, fmt.Errorf("encode: %w", err)
	}
	hash, err := tx.HashHex(c.Passphrase)
	if err != nil {
		return nil, fmt.Errorf("hash: %w", err)
	}
	wait := cmp.Or(c.WriteWait, DefaultWriteWait)
	// The wait counts from the first send, and the invocation deadline still bounds it. The
	// transport keeps Margin free before any deadline it sees (time to answer before Lambda
	// ends the invocation); the write wait needs none, so it is added back.
	waitCtx, cancel := context.WithTimeout(ctx, wait+transport.Margin)
	defer cancel()
	if err := c.send(ctx, waitCtx, env, hash); err != nil {
		return nil, err
	}
	return c.await(ctx, waitCtx, hash, wait)
}

// send submits the envelope, resending the same envelope (same hash) while the server says
// TRY_AGAIN_LATER, for as long as the write wait allows. Each sendTransaction runs under
// the invocation's ctx: cutting one short would only turn a known answer into an unknown one.
func (c *Client) send(ctx, waitCtx context.Context, env, hash string) error {
	backoff := 250 * time.Millisecond
	for {
		var res rpc.SendTransactionResponse
		err := c.RPC.Call(ctx, "sendTransaction", rpc.SendTransactionRequest{Transaction: env}, &res)
		if err != nil {
			return unknownOutcome(err, hash)
		}
		switch res.Status {
		case "PENDING", "DUPLICATE":
			return nil
		case "ERROR":
			return rejected(res.ErrorResultXDR, hash)
		case "TRY_AGAIN_LATER":
			if !transport.Sleep(waitCtx, backoff) {
				return errmap.Wrap(errors.New("send: try again later until the deadline"), errmap.Facts{
					Source: errmap.SourceRPC, Transport: errmap.TransportTimeout, TimeoutVar: WriteWaitVar,
					Detail:           "Stellar RPC kept answering TRY_AGAIN_LATER until the deadline; the transaction was not accepted",
					ExecutionStarted: true, StateChanged: errmap.StateNo, TxHash: hash,
				})
			}
			backoff = min(2*backoff, 2*time.Second)
		default:
			// An answer of the wrong shape proves nothing about the envelope that left; the
			// submission itself answered, so the operation started.
			return errmap.MarkPending(c.malformed("sendTransaction status "+res.Status), hash)
		}
	}
}

// await polls getTransaction until waitCtx ends: a transient failure (a 429, a 5xx, a dropped
// connection, an unreadable answer) does not end the poll; a persistent 4xx (the RPC refuses to
// tell) ends it at once, since waiting would only delay the same unknown answer.
func (c *Client) await(ctx, waitCtx context.Context, hash string, wait time.Duration) (*Written, error) {
	poll := cmp.Or(c.PollInterval, DefaultPollInterval)
	for {
		tx, err := c.RPC.GetTransaction(waitCtx, hash)
		if err == nil {
			switch tx.Status {
			case rpc.TransactionStatusSuccess:
				return &Written{Hash: hash, Ledger: tx.Ledger}, nil
			case rpc.TransactionStatusFailed:
				return nil, failedTx(tx, hash)
			}
		} else if f, _ := errmap.FactsOf(err); f.Status >= 400 && f.Status < 500 && !slices.Contains([]int{408, 425, 429}, f.Status) {
			// 408, 425 and 429 are transient; the detail says more than a gateway's error text.
			err = errmap.WithDetail(err, "the transaction was sent, but Stellar RPC refused to report its status (HTTP "+strconv.Itoa(f.Status)+" to getTransaction)")
			return nil, errmap.MarkPending(err, hash)
		}
		if !transport.Sleep(waitCtx, poll) {
			limit := "within " + WriteWaitVar + " (" + strconv.FormatInt(wait.Milliseconds(), 10) + " ms)"
			if dl, ok := ctx.Deadline(); ok {
				if wdl, _ := waitCtx.Deadline(); !wdl.Before(dl) {
					limit = "before the invocation deadline"
				}
			}
			return nil, errmap.MarkPending(errmap.Wrap(errors.New("confirmation did not arrive in time"), errmap.Facts{
				Source: errmap.SourceRPC, Transport: errmap.TransportTimeout, TimeoutVar: WriteWaitVar,
				Detail:           "the transaction was sent but its confirmation did not arrive " + limit,
				ExecutionStarted: true,
			}), hash)
		}
	}
}

// unknownOutcome marks a failed sendTransaction whose envelope may have arrived
// (transport.MayHaveActed, a 408, an unreadable answer). A 4xx or a JSON-RPC error object is the
// node refusing: nothing was queued.
func unknownOutcome(err error, hash string) error {
	if f, _ := errmap.FactsOf(err); transport.MayHaveActed(err, http.StatusRequestTimeout) || f.Code == errmap.CodeMalformedResponse {
		return errmap.MarkPending(err, hash)
	}
	return err
}

// rejected maps sendTransaction ERROR: the transaction was refused before it could apply.
func rejected(resultXDR, hash string) error {
	f := errmap.Facts{Source: errmap.SourceRPC, ExecutionStarted: true, StateChanged: errmap.StateNo,
		Detail: "Stellar RPC rejected the transaction", Category: errmap.CategoryServer}
	var res xdr.TransactionResult
	if xdr.SafeUnmarshalBase64(resultXDR, &res) == nil {
		code := resultCodeName(res.Result.Code)
		f = horizon.ResultCodesFacts(f, []string{code})
		f.Detail = "Stellar RPC rejected the transaction (" + code + ")"
		f.Category = ""
	}
	return errmap.Wrap(errors.New("send rejected"), f)
}

// failedTx maps an applied but failed transaction, finding the contract error number in its
// diagnostic events when there is one.
func failedTx(tx *rpc.GetTransactionResponse, hash string) error {
	f := errmap.Facts{Source: errmap.SourceRegistry, ExecutionStarted: true, StateChanged: errmap.StateNo,
		Detail: "the transaction failed on chain (" + hash + ")"}
	n := 0
	for _, ev := range tx.DiagnosticEventsXDR {
		var de xdr.DiagnosticEvent
		if xdr.SafeUnmarshalBase64(ev, &de) != nil || de.Event.Body.V0 == nil {
			continue
		}
		for _, topic := range de.Event.Body.V0.Topics {
			if topic.Type == xdr.ScValTypeScvError && topic.Error != nil && topic.Error.Type == xdr.ScErrorTypeSceContract && topic.Error.ContractCode != nil {
				n = int(*topic.Error.ContractCode)
			}
		}
	}
	if n > 0 {
		f = soroban.ContractErrors(Errors).Facts(f, n)
	} else {
		f.Code, f.Category = errmap.CodeContractError, errmap.CategoryContract
	}
	return errmap.Wrap(errors.New("transaction failed"), f)
}

// resultCodeName spells a transaction result code as Horizon does (tx_bad_seq).
func resultCodeName(code xdr.TransactionResultCode) string {
	names := map[xdr.TransactionResultCode]string{
		xdr.TransactionResultCodeTxBadSeq:              "tx_bad_seq",
		xdr.TransactionResultCodeTxBadAuth:             "tx_bad_auth",
		xdr.TransactionResultCodeTxTooLate:             "tx_too_late",
		xdr.TransactionResultCodeTxTooEarly:            "tx_too_early",
		xdr.TransactionResultCodeTxInsufficientBalance: "tx_insufficient_balance",
		xdr.TransactionResultCodeTxInsufficientFee:     "tx_insufficient_fee",
		xdr.TransactionResultCodeTxNoAccount:           "tx_no_source_account",
		xdr.TransactionResultCodeTxFailed:              "tx_failed",
		xdr.TransactionResultCodeTxMalformed:           "tx_malformed",
		xdr.TransactionResultCodeTxSorobanInvalid:      "tx_soroban_invalid",
	}
	return cmp.Or(names[code], code.String())
}

// checkSimulation decides whether what a simulation of the write fn returned may go into the
// transaction the wallet signs, whose signature also covers the authorisation entries, the
// footprint and the resource fee the simulation adds (docs/tools.md "The wallet signs only the
// call it was asked to make"): no entry or one, the source account's, for exactly want and no
// sub-invocations (anything else would have the wallet authorise a call the user did not ask
// for); read-write entries of the registry's own storage only; a resource fee that is not
// negative and, with the inclusion fee, within MaxFee. A refusal is UNEXPECTED_TRANSACTION:
// nothing was signed or sent.
func (c *Client) checkSimulation(fn string, want xdr.InvokeContractArgs, auth []xdr.SorobanAuthorizationEntry, data *xdr.SorobanTransactionData) error {
	if why := authReason(fn, want, auth); why != "" {
		return refusal(fn, why, "Report it to the operator: the simulation of this call (Stellar RPC at SOROBAN_RPC_URL, running the registry contract) asked the wallet to authorise more than the call itself. Do not retry until that is fixed.")
	}
	if why := footprintReason(want.ContractAddress, data.Resources.Footprint); why != "" {
		return refusal(fn, why, "Report it to the operator: the simulation of this call (Stellar RPC at SOROBAN_RPC_URL, running the registry contract) declared writes beyond the registry's own storage. Do not retry until that is fixed.")
	}
	if data.ResourceFee < 0 {
		return refusal(fn, "the simulation's resource fee is negative", "Report it to the operator: the simulation of this call by Stellar RPC (SOROBAN_RPC_URL) is not usable.")
	}
	maxFee := cmp.Or(c.MaxFee, DefaultMaxFee)
	if fee := int64(data.ResourceFee); fee > maxFee-txnbuild.MinBaseFee {
		fee += txnbuild.MinBaseFee
		why := fmt.Sprintf("its fee of %d stroops (%d.%07d XLM, inclusion plus the simulated resource fee) is above the cap of %d stroops (%s)",
			fee, fee/10_000_000, fee%10_000_000, maxFee, MaxFeeVar)
		return refusal(fn, why, "If a fee this high is expected, ask the operator to raise "+MaxFeeVar+"; otherwise report it to the operator of Stellar RPC (SOROBAN_RPC_URL), whose simulation asked for it.")
	}
	return nil
}

// refusal is a write refused before signing: UNEXPECTED_TRANSACTION, nothing started or changed.
func refusal(fn, why, next string) error {
	return errmap.Wrap(errors.New("write refused before signing: "+why), errmap.Facts{
		Source: errmap.SourceRegistry, Code: errmap.CodeUnexpectedTransaction,
		Detail: fn + " was not signed or sent: " + why, Next: next,
		ExecutionStarted: false, StateChanged: errmap.StateNo,
	})
}

// authReason says what is wrong with the authorisation entries a write's simulation
// returned, or "" when they are exactly what the call needs.
func authReason(fn string, want xdr.InvokeContractArgs, auth []xdr.SorobanAuthorizationEntry) string {
	switch len(auth) {
	case 0:
		return ""
	case 1:
	default:
		return fmt.Sprintf("the simulation asks for %d authorizations, where %s needs at most one, the wallet's for the call itself", len(auth), fn)
	}
	a := auth[0]
	if a.Credentials.Type != xdr.SorobanCredentialsTypeSorobanCredentialsSourceAccount {
		return "the simulation asks for an authorization with credentials other than the transaction source's"
	}
	inv := a.RootInvocation
	if len(inv.SubInvocations) > 0 {
		return fmt.Sprintf("the simulation's authorization covers further calls beyond %s (%d)", fn, len(inv.SubInvocations))
	}
	if inv.Function.Type != xdr.SorobanAuthorizedFunctionTypeSorobanAuthorizedFunctionTypeContractFn || inv.Function.ContractFn == nil {
		return "the simulation's authorization is for something other than a contract call"
	}
	wantB, err1 := want.MarshalBinary()
	got, err2 := inv.Function.ContractFn.MarshalBinary()
	if err1 != nil || err2 != nil || !bytes.Equal(got, wantB) {
		return "the simulation's authorization is for a call other than " + fn + " of the registry with the approved arguments"
	}
	return ""
}

// footprintReason says what is wrong with a write's footprint, or "": each read-write entry
// must be contract data of the registry contract.
func footprintReason(registry xdr.ScAddress, fp xdr.LedgerFootprint) string {
	for _, k := range fp.ReadWrite {
		if k.Type != xdr.LedgerEntryTypeContractData || k.ContractData == nil || !k.ContractData.Contract.Equals(registry) {
			return "the simulation declares a write to a ledger entry other than the registry's own storage (" + k.Type.String() + ")"
		}
	}
	return ""
}
