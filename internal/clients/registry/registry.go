// Package registry reads and writes the MindVault vault-registry Soroban contract over Stellar RPC,
// building invocations with go-stellar-sdk's txnbuild and xdr. Reads simulate from the all-zero
// account and submit nothing; a write (Invoke) is simulated, checked, signed, sent once and
// followed until its outcome is known, and is stateChanged "unknown" with its hash when that
// outcome cannot be learnt. Contract rejections, host errors and archived state come back as
// *errmap.Error with source registry.
package registry

import (
	"bytes"
	"cmp"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/stellar/go-stellar-sdk/keypair"
	rpc "github.com/stellar/go-stellar-sdk/protocols/rpc"
	"github.com/stellar/go-stellar-sdk/txnbuild"
	"github.com/stellar/go-stellar-sdk/xdr"

	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/internal/clients/horizon"
	"github.com/mindvault/mcp-endpoint/internal/clients/soroban"
	"github.com/mindvault/mcp-endpoint/internal/clients/stellarrpc"
	"github.com/mindvault/mcp-endpoint/internal/clients/transport"
)

// Client calls one registry deployment.
type Client struct {
	RPC        *stellarrpc.Client
	Contract   string
	Passphrase string
	// Sequence returns an account's current sequence number (from Horizon); writes need it.
	Sequence func(ctx context.Context, account string) (int64, error)
	// WriteWait is the longest a write waits for its confirmation, from its first sendTransaction,
	// within the invocation deadline; 0 means DefaultWriteWait.
	WriteWait time.Duration
	// PollInterval is the pause between getTransaction polls of a sent write
	// (MINDVAULT_WRITE_POLL_MS); 0 means DefaultPollInterval.
	PollInterval time.Duration
	// MaxFee caps the total fee (in stroops) of a write the wallet signs, refused before signing
	// above it; 0 means DefaultMaxFee.
	MaxFee int64
}

// Resource is one registry entry; optional fields are nil when the deployment lacks them. It is
// decoded from the contract's ScMap by key name, so deployments with fewer or more fields decode
// alike, and prices stay exact 7-decimal integers (big.Int), never floats.
type Resource struct {
	ID       string
	Creator  string
	Price    *big.Int // 7-decimal USDC units
	Metadata string
	Listed   bool
	Tags     []string
	State    *string
	Verified *bool
}

// Info is registry_info().
type Info struct {
	Name                  string
	Version               string
	ResourceSchemaVersion string
	// NetworkID is the hex sha256 of the passphrase the contract was initialised for, ""
	// when the deployment does not report it (a String of hex or BytesN<32> on chain).
	NetworkID string
}

// Get reads one resource; found is false when the contract answers NotFound (#2).
func (c *Client) Get(ctx context.Context, id string) (*Resource, bool, error) {
	v, err := c.read(ctx, "get", soroban.Str(id))
	if err != nil {
		if soroban.ContractError(err) == ErrNotFound {
			return nil, false, nil
		}
		return nil, false, err
	}
	r, err := decodeResource(v)
	if err != nil {
		return nil, false, c.malformed("get returned " + err.Error())
	}
	return r, true, nil
}

// List reads resources [start, start+limit).
func (c *Client) List(ctx context.Context, start, limit uint32) ([]Resource, error) {
	v, err := c.read(ctx, "list", soroban.U32(start), soroban.U32(limit))
	if err != nil {
		return nil, err
	}
	vec, ok := soroban.VecOf(v)
	if !ok {
		return nil, c.malformed("list did not return a Vec")
	}
	out := make([]Resource, 0, len(vec))
	for _, item := range vec {
		r, err := decodeResource(item)
		if err != nil {
			return nil, c.malformed("list returned " + err.Error())
		}
		out = append(out, *r)
	}
	return out, nil
}

// Info reads registry_info().
func (c *Client) Info(ctx context.Context) (*Info, error) {
	v, err := c.read(ctx, "registry_info")
	if err != nil {
		return nil, err
	}
	info := &Info{} // read by key, tolerating missing and unknown keys
	if !soroban.Fields(v, info.set) {
		return nil, c.malformed("registry_info did not return a Map")
	}
	return info, nil
}

// decodeResource reads a Resource map by key, tolerating missing and unknown keys; only
// id, creator and price are required.
func decodeResource(v xdr.ScVal) (*Resource, error) {
	r := &Resource{}
	if !soroban.Fields(v, r.set) {
		return nil, fmt.Errorf("a resource that is not a Map")
	}
	if r.ID == "" || r.Creator == "" || r.Price == nil {
		return nil, fmt.Errorf("a resource without id, creator or price")
	}
	return r, nil
}

// set reads one registry_info entry.
func (info *Info) set(key string, v xdr.ScVal) {
	switch key {
	case "name":
		info.Name, _ = soroban.Text(v)
	case "version":
		info.Version = scalarText(v)
	case "resource_schema_version":
		info.ResourceSchemaVersion = scalarText(v)
	case "network_id":
		if v.Type == xdr.ScValTypeScvBytes && v.Bytes != nil {
			info.NetworkID = hex.EncodeToString(*v.Bytes)
		} else if t, ok := soroban.Text(v); ok {
			info.NetworkID = strings.ToLower(t)
		}
	}
}

// set reads one Resource entry.
func (r *Resource) set(key string, v xdr.ScVal) {
	switch key {
	case "id":
		r.ID, _ = soroban.Text(v)
	case "creator":
		r.Creator, _ = soroban.Address(v)
	case "price":
		switch v.Type {
		case xdr.ScValTypeScvI128:
			r.Price = soroban.BigFromI128(*v.I128)
		case xdr.ScValTypeScvI64:
			r.Price = big.NewInt(int64(*v.I64))
		case xdr.ScValTypeScvU64:
			r.Price = new(big.Int).SetUint64(uint64(*v.U64))
		}
	case "metadata":
		r.Metadata, _ = soroban.Text(v)
	case "listed":
		if v.Type == xdr.ScValTypeScvBool {
			r.Listed = *v.B
		}
	case "tags":
		vec, ok := soroban.VecOf(v)
		if ok {
			r.Tags = []string{}
		}
		for _, t := range vec {
			if s, ok := soroban.Text(t); ok {
				r.Tags = append(r.Tags, s)
			}
		}
	case "state":
		if s, ok := soroban.Text(v); ok {
			r.State = &s
		} else if vec, ok := soroban.VecOf(v); ok && len(vec) > 0 {
			if s, ok := soroban.Text(vec[0]); ok { // a unit enum variant: Vec[Symbol("Listed")]
				r.State = &s
			}
		}
	case "verified":
		if v.Type == xdr.ScValTypeScvBool {
			b := *v.B
			r.Verified = &b
		}
	}
}

func scalarText(v xdr.ScVal) string {
	if s, ok := soroban.Text(v); ok {
		return s
	}
	if n, ok := soroban.Uint(v); ok {
		return strconv.FormatUint(n, 10)
	}
	return ""
}

// build makes an invocation of the registry, reporting a bad contract id as configuration.
func (c *Client) build(source string, seq int64, fn string, args []xdr.ScVal, auth []xdr.SorobanAuthorizationEntry, data *xdr.SorobanTransactionData, fee int64) (*txnbuild.Transaction, error) {
	tx, err := soroban.Build(source, seq, soroban.Call{Contract: c.Contract, Function: fn, Args: args}, auth, data, fee)
	if err != nil {
		return nil, errmap.Wrap(err, errmap.Facts{Source: errmap.SourceRegistry, Code: errmap.CodeContractError,
			Detail: "VAULT_REGISTRY_CONTRACT_ID is not a valid contract id"})
	}
	return tx, nil
}

// read simulates a read-only call with the all-zero source and returns its return value.
func (c *Client) read(ctx context.Context, fn string, args ...xdr.ScVal) (xdr.ScVal, error) {
	tx, err := c.build(soroban.ZeroAccount, 0, fn, args, nil, nil, txnbuild.MinBaseFee)
	if err != nil {
		return xdr.ScVal{}, err
	}
	sim, err := soroban.Simulate(ctx, c.RPC, tx, errmap.SourceRegistry, Errors)
	if err != nil {
		return xdr.ScVal{}, err
	}
	v, ok := soroban.ReturnValue(sim)
	if !ok {
		return xdr.ScVal{}, c.malformed(fn + " returned no decodable value")
	}
	return v, nil
}

func (c *Client) malformed(what string) *errmap.Error {
	return soroban.Malformed(errmap.SourceRegistry, what)
}

// errorNames is the vault-registry contract's error table. Numbers 1–23 are stable in every
// deployment; higher numbers differ between deployments, so they are reported as Unknown.
var errorNames = map[int]string{
	1: "AlreadyRegistered", 2: "NotFound", 3: "InvalidPrice", 4: "MetadataTooLong", 5: "InvalidTag",
	6: "Unauthorized", 7: "PendingAdminNotSet", 8: "PendingAdminAlreadySet", 9: "SameAdmin",
	10: "TermsHashTooLong", 11: "InvalidResourceId", 12: "InvalidMetadataPointer", 13: "EmptyMetadata",
	14: "AlreadyOwner", 15: "NoPendingTransfer", 16: "ReservedId", 17: "PriceExceedsMax",
	18: "AdminNotSet", 19: "NotVerifier", 20: "InvalidVerificationTransition", 21: "AlreadyFrozen",
	22: "MetadataFrozen", 23: "DuplicateInRepair",
}

// ErrNotFound is the contract's error for an id it does not hold.
const ErrNotFound = 2

const invalidInput = errmap.CodeContractInvalidInput

// errorCodes gives the vault-registry errors that have a failure code of their own (docs/errors.md
// lists them); every other number, known or not, is CONTRACT_ERROR.
var errorCodes = map[int]string{
	1: errmap.CodeAlreadyRegistered, ErrNotFound: errmap.CodeNotFound, 6: errmap.CodeContractUnauthorized,
	14: errmap.CodeAlreadyOwner, 3: invalidInput, 4: invalidInput, 5: invalidInput, 11: invalidInput,
	12: invalidInput, 13: invalidInput, 16: invalidInput, 17: invalidInput,
}

// Errors is the registry's soroban.ContractErrors: code, name and "Name (Error(Contract, #N))".
func Errors(n int) (code, name, detail string) {
	name = cmp.Or(errorNames[n], "Unknown")
	return cmp.Or(errorCodes[n], errmap.CodeContractError), name, name + " (Error(Contract, #" + strconv.Itoa(n) + "))"
}

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
			// The envelope may have arrived after transport.MayHaveActed, a 408 or an unreadable
			// answer; a 4xx or a JSON-RPC error object is the node refusing: nothing was queued.
			if f, _ := errmap.FactsOf(err); transport.MayHaveActed(err, http.StatusRequestTimeout) || f.Code == errmap.CodeMalformedResponse {
				return errmap.MarkPending(err, hash)
			}
			return err
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

// rejected maps sendTransaction ERROR: the transaction was refused before it could apply.
func rejected(resultXDR, hash string) error {
	f := errmap.Facts{Source: errmap.SourceRPC, ExecutionStarted: true, StateChanged: errmap.StateNo,
		Detail: "Stellar RPC rejected the transaction", Category: errmap.CategoryServer}
	var res xdr.TransactionResult
	if xdr.SafeUnmarshalBase64(resultXDR, &res) == nil {
		code := cmp.Or(resultCodeNames[res.Result.Code], res.Result.Code.String())
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

// resultCodeNames spell transaction result codes as Horizon does (tx_bad_seq).
var resultCodeNames = map[xdr.TransactionResultCode]string{
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
		why := fmt.Sprintf("its fee of %d stroops (%s XLM, inclusion plus the simulated resource fee) is above the cap of %d stroops (%s)",
			fee, soroban.Decimal(big.NewInt(fee)), maxFee, MaxFeeVar)
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
