// Package registry reads and writes the MindVault vault-registry Soroban contract over Stellar RPC,
// building invocations with go-stellar-sdk's txnbuild and xdr. Reads simulate from the all-zero
// account and submit nothing; a write (Invoke) is simulated, checked, signed, sent once and
// followed until its outcome is known, and is stateChanged "unknown" with its hash when that
// outcome cannot be learnt. Contract rejections, host errors and archived state come back as
// *errmap.Error with source registry.
package registry

import (
	"cmp"
	"context"
	"encoding/hex"
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/stellar/go-stellar-sdk/txnbuild"
	"github.com/stellar/go-stellar-sdk/xdr"

	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/internal/clients/soroban"
	"github.com/mindvault/mcp-endpoint/internal/clients/stellarrpc"
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
	info, ok := decodeInfo(v)
	if !ok {
		return nil, c.malformed("registry_info did not return a Map")
	}
	return info, nil
}

// decodeInfo reads registry_info's map by key, tolerating missing and unknown keys; ok is false
// when v is not a Map.
func decodeInfo(v xdr.ScVal) (info *Info, ok bool) {
	info = &Info{}
	return info, soroban.Fields(v, info.set)
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
