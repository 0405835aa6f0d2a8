package sandbox

import (
	"crypto/sha256"
	"encoding/hex"
	"math/big"
	"slices"
	"strings"

	"github.com/stellar/go-stellar-sdk/xdr"

	"github.com/mindvault/mcp-endpoint/internal/clients/soroban"
)

// The in-memory vault-registry contract (docs/sandbox.md "Vault registry and USDC models"). Every
// call, simulated or applied, runs here: validation happens before any mutation, so a
// failing call leaves the state as it was, and simulation runs on a clone.

// What registry_info reports.
const (
	registryName          = "MindVault Vault Registry"
	registryVersion       = "1.2.0"
	registrySchemaVersion = 2
)

// Contract limits, as the deployed contract enforces them.
const (
	maxListLimit     = 20
	maxPrice         = 1_000_000_000_000_000_000 // 10^18 units = 10^11 USDC
	maxIDBytes       = 24
	maxMetadataBytes = 512
	maxTags          = 8
	maxTagBytes      = 32
)

// Contract error numbers the model raises (the full table: docs/errors.md "Refinements by downstream").
const (
	errAlreadyRegistered      = 1
	errNotFound               = 2
	errInvalidPrice           = 3
	errMetadataTooLong        = 4
	errInvalidTag             = 5
	errUnauthorized           = 6
	errInvalidResourceID      = 11
	errInvalidMetadataPointer = 12
	errEmptyMetadata          = 13
	errAlreadyOwner           = 14
	errReservedID             = 16
	errPriceExceedsMax        = 17
)

var reservedIDs = []string{"admin", "null", "registry", "api", "index", "root", "system"}

var metadataPrefixes = []string{"ipfs://", "ar://", "https://", "http://", "sha256:", "sha-256:", "0x"}

// RegistryEntry is a plain view of one resource in the sandbox registry's storage.
type RegistryEntry struct {
	ID       string
	Creator  string // G... (or C...) address
	Price    int64  // 7-decimal USDC units
	Metadata string
	Listed   bool
	Verified bool
	Tags     []string
	// CreatedAt and UpdatedAt are ledger close times, unix seconds.
	CreatedAt, UpdatedAt uint64
}

// hostError is a failed invocation: the host error and the data of its diagnostic event.
type hostError struct {
	err  xdr.ScError
	data xdr.ScVal
}

func (e *hostError) String() string { return errorText(e.err) }

func contractErr(n uint32) *hostError {
	code := xdr.Uint32(n)
	return &hostError{err: xdr.ScError{Type: xdr.ScErrorTypeSceContract, ContractCode: &code},
		data: soroban.Str("escalating Ok(ScErrorType::Contract) frame-exit to Err")}
}

func hostErr(t xdr.ScErrorType, c xdr.ScErrorCode, msg string, extra ...xdr.ScVal) *hostError {
	data := soroban.Str(msg)
	if len(extra) > 0 {
		data = soroban.Vec(append([]xdr.ScVal{soroban.Str(msg)}, extra...)...)
	}
	return &hostError{err: xdr.ScError{Type: t, Code: &c}, data: data}
}

func unexpectedType(want string, got xdr.ScVal) *hostError {
	return hostErr(xdr.ScErrorTypeSceValue, xdr.ScErrorCodeScecUnexpectedType,
		"failed to convert argument to "+want, soroban.Sym(strings.TrimPrefix(got.Type.String(), "ScValTypeScv")))
}

// missingInstance is what invoking a contract without an instance gives.
func missingInstance(contract xdr.ScVal) *hostError {
	return hostErr(xdr.ScErrorTypeSceStorage, xdr.ScErrorCodeScecMissingValue,
		"trying to get non-existing value for contract instance", contract)
}

type regEntry struct {
	RegistryEntry
}

// scVal is the Resource struct: an ScMap with Symbol keys in sorted order.
func (e *regEntry) scVal() xdr.ScVal {
	state := "Listed"
	if !e.Listed {
		state = "Delisted"
	}
	return soroban.SymMap(map[string]xdr.ScVal{
		"created_at": soroban.U64(e.CreatedAt),
		"creator":    scAddress(e.Creator),
		"id":         soroban.Str(e.ID),
		"listed":     soroban.Bool(e.Listed),
		"metadata":   soroban.Str(e.Metadata),
		"price":      scI128(e.Price),
		"state":      unitEnum(state),
		"tags":       soroban.StrVec(e.Tags),
		"updated_at": soroban.U64(e.UpdatedAt),
		"verified":   soroban.Bool(e.Verified),
	})
}

// registry is the contract's storage.
type registry struct {
	addr      xdr.ScAddress // the contract
	networkID string        // hex sha256 of the passphrase
	// registrar is the MindVault API's own account: register accepts its authorization in
	// place of the creator's, which is how the API registers on a publisher's behalf when
	// POST /resources/{id}/register comes without a signed transaction.
	registrar string
	order     []string // DataKey::Index(i): ids in registration order
	byID      map[string]*regEntry
}

func newRegistry(addr xdr.ScAddress, passphrase, registrar string) *registry {
	nid := sha256.Sum256([]byte(passphrase))
	return &registry{addr: addr, networkID: hex.EncodeToString(nid[:]), registrar: registrar, byID: map[string]*regEntry{}}
}

func (r *registry) clone() *registry {
	c := *r
	c.order = slices.Clone(r.order)
	c.byID = make(map[string]*regEntry, len(r.byID))
	for id, e := range r.byID {
		cp := *e
		cp.Tags = slices.Clone(e.Tags)
		c.byID[id] = &cp
	}
	return &c
}

// call is one invocation of the contract.
type call struct {
	fn      string
	args    []xdr.ScVal
	invoker string // the operation's source account, which source-account auth covers
	now     uint64 // ledger close time
}

type regFn struct {
	args  int
	write bool // needs require_auth of the resource's creator
	run   func(r *registry, c *call) (xdr.ScVal, *hostError)
}

var registryFns = map[string]regFn{
	"get":                {1, false, (*registry).get},
	"exists":             {1, false, (*registry).exists},
	"count":              {0, false, (*registry).count},
	"list":               {2, false, (*registry).list},
	"list_page":          {2, false, (*registry).listPage},
	"registry_info":      {0, false, (*registry).info},
	"register":           {5, true, (*registry).register},
	"set_price":          {2, true, (*registry).setPrice},
	"update_metadata":    {2, true, (*registry).updateMetadata},
	"set_tags":           {2, true, (*registry).setTags},
	"set_listed":         {2, true, (*registry).setListed},
	"transfer_ownership": {2, true, (*registry).transferOwnership},
}

// invoke runs a call against the state; on error the state is unchanged.
func (r *registry) invoke(c *call) (xdr.ScVal, *hostError) {
	fn, ok := registryFns[c.fn]
	if !ok {
		return xdr.ScVal{}, hostErr(xdr.ScErrorTypeSceWasmVm, xdr.ScErrorCodeScecInvalidAction,
			"trying to invoke non-existent contract function", soroban.Sym(c.fn))
	}
	if len(c.args) != fn.args {
		return xdr.ScVal{}, hostErr(xdr.ScErrorTypeSceWasmVm, xdr.ScErrorCodeScecInvalidAction,
			"invalid number of input arguments", soroban.U32(uint32(fn.args)), soroban.U32(uint32(len(c.args))))
	}
	return fn.run(r, c)
}

// isWrite reports a function that needs authorisation (unknown functions are not).
func isWrite(fn string) bool { return registryFns[fn].write }

func (r *registry) instanceKey() xdr.LedgerKey {
	return contractDataKey(r.addr, xdr.ScVal{Type: xdr.ScValTypeScvLedgerKeyContractInstance})
}

// resourceKey is the contract's storage key DataKey::Resource(id).
func (r *registry) resourceKey(id string) xdr.LedgerKey {
	return contractDataKey(r.addr, soroban.Vec(soroban.Sym("Resource"), soroban.Str(id)))
}

func (r *registry) indexKey(i int) xdr.LedgerKey {
	return contractDataKey(r.addr, soroban.Vec(soroban.Sym("Index"), soroban.U32(uint32(i))))
}

func (r *registry) creatorKey(addr string) xdr.LedgerKey {
	return contractDataKey(r.addr, soroban.Vec(soroban.Sym("CreatorResources"), scAddress(addr)))
}

// footprint lists the ledger keys a call touches, as simulation would record them; any
// undecodable argument just leaves its key out.
func (r *registry) footprint(c *call) (readOnly, readWrite []xdr.LedgerKey) {
	inst := r.instanceKey()
	idArg := func(i int) (string, bool) {
		if i >= len(c.args) {
			return "", false
		}
		s, e := argString(c.args[i])
		return s, e == nil
	}
	switch c.fn {
	case "get", "exists":
		readOnly = []xdr.LedgerKey{inst}
		if id, ok := idArg(0); ok {
			readOnly = append(readOnly, r.resourceKey(id))
		}
	case "list", "list_page":
		readOnly = []xdr.LedgerKey{inst}
		if len(c.args) == 2 {
			start, e1 := argU32(c.args[0])
			limit, e2 := argU32(c.args[1])
			if e1 == nil && e2 == nil {
				lo, hi := r.window(start, limit)
				for i := lo; i < hi; i++ {
					readOnly = append(readOnly, r.indexKey(i), r.resourceKey(r.order[i]))
				}
			}
		}
	case "register":
		readWrite = []xdr.LedgerKey{inst, r.indexKey(len(r.order))}
		if id, ok := idArg(1); ok {
			readWrite = append(readWrite, r.resourceKey(id))
		}
		if len(c.args) > 0 {
			if a, e := argAddress(c.args[0]); e == nil {
				readWrite = append(readWrite, r.creatorKey(a))
			}
		}
	case "set_price", "update_metadata", "set_tags", "set_listed", "transfer_ownership":
		readOnly = []xdr.LedgerKey{inst}
		if id, ok := idArg(0); ok {
			readWrite = append(readWrite, r.resourceKey(id))
			if e := r.byID[id]; e != nil && c.fn == "transfer_ownership" {
				readWrite = append(readWrite, r.creatorKey(e.Creator))
				if len(c.args) > 1 {
					if a, e := argAddress(c.args[1]); e == nil {
						readWrite = append(readWrite, r.creatorKey(a))
					}
				}
			}
		}
	default:
		readOnly = []xdr.LedgerKey{inst}
	}
	return readOnly, readWrite
}

// window is the index range [lo, hi) a list call returns (limit capped at 20).
func (r *registry) window(start, limit uint32) (int, int) {
	n := uint64(len(r.order))
	lo := min(uint64(start), n)
	hi := min(lo+uint64(min(limit, maxListLimit)), n)
	return int(lo), int(hi)
}

func (r *registry) get(c *call) (xdr.ScVal, *hostError) {
	id, e := argString(c.args[0])
	if e != nil {
		return xdr.ScVal{}, e
	}
	ent, ok := r.byID[id]
	if !ok {
		return xdr.ScVal{}, contractErr(errNotFound)
	}
	return ent.scVal(), nil
}

func (r *registry) exists(c *call) (xdr.ScVal, *hostError) {
	id, e := argString(c.args[0])
	if e != nil {
		return xdr.ScVal{}, e
	}
	_, ok := r.byID[id]
	return soroban.Bool(ok), nil
}

func (r *registry) count(*call) (xdr.ScVal, *hostError) {
	return soroban.U32(uint32(len(r.order))), nil
}

func (r *registry) page(c *call) ([]xdr.ScVal, int, *hostError) {
	start, e := argU32(c.args[0])
	if e != nil {
		return nil, 0, e
	}
	limit, e := argU32(c.args[1])
	if e != nil {
		return nil, 0, e
	}
	lo, hi := r.window(start, limit)
	items := []xdr.ScVal{}
	for _, id := range r.order[lo:hi] {
		items = append(items, r.byID[id].scVal())
	}
	return items, hi, nil
}

func (r *registry) list(c *call) (xdr.ScVal, *hostError) {
	items, _, e := r.page(c)
	if e != nil {
		return xdr.ScVal{}, e
	}
	return soroban.Vec(items...), nil
}

// listPage returns CatalogPage{items, next_cursor: Option<u32>}; None (Void) at the end.
func (r *registry) listPage(c *call) (xdr.ScVal, *hostError) {
	items, next, e := r.page(c)
	if e != nil {
		return xdr.ScVal{}, e
	}
	cursor := soroban.Void()
	if next < len(r.order) {
		cursor = soroban.U32(uint32(next))
	}
	return soroban.SymMap(map[string]xdr.ScVal{"items": soroban.Vec(items...), "next_cursor": cursor}), nil
}

func (r *registry) info(*call) (xdr.ScVal, *hostError) {
	return soroban.SymMap(map[string]xdr.ScVal{
		"name":                    soroban.Str(registryName),
		"version":                 soroban.Str(registryVersion),
		"resource_schema_version": soroban.U32(registrySchemaVersion),
		"network_id":              soroban.Str(r.networkID),
	}), nil
}

// owned loads the resource named by the first argument and checks the invoker is its creator
// (require_auth(creator) with source-account credentials).
func (r *registry) owned(c *call) (*regEntry, *hostError) {
	id, e := argString(c.args[0])
	if e != nil {
		return nil, e
	}
	ent, ok := r.byID[id]
	if !ok {
		return nil, contractErr(errNotFound)
	}
	if ent.Creator != c.invoker {
		return nil, contractErr(errUnauthorized)
	}
	return ent, nil
}

func (r *registry) register(c *call) (xdr.ScVal, *hostError) {
	creator, e := argAddress(c.args[0])
	if e != nil {
		return xdr.ScVal{}, e
	}
	id, e := argString(c.args[1])
	if e != nil {
		return xdr.ScVal{}, e
	}
	priceArg, e := argI128(c.args[2])
	if e != nil {
		return xdr.ScVal{}, e
	}
	metadata, e := argString(c.args[3])
	if e != nil {
		return xdr.ScVal{}, e
	}
	rawTags, e := argStrings(c.args[4])
	if e != nil {
		return xdr.ScVal{}, e
	}
	if creator != c.invoker && c.invoker != r.registrar {
		return xdr.ScVal{}, contractErr(errUnauthorized)
	}
	if err := checkID(id); err != nil {
		return xdr.ScVal{}, err
	}
	if _, dup := r.byID[id]; dup {
		return xdr.ScVal{}, contractErr(errAlreadyRegistered)
	}
	price, err := checkPrice(priceArg)
	if err != nil {
		return xdr.ScVal{}, err
	}
	if err := checkMetadata(metadata); err != nil {
		return xdr.ScVal{}, err
	}
	tags, err := normalizeTags(rawTags)
	if err != nil {
		return xdr.ScVal{}, err
	}
	r.order = append(r.order, id)
	r.byID[id] = &regEntry{RegistryEntry{ID: id, Creator: creator, Price: price, Metadata: metadata,
		Listed: true, Tags: tags, CreatedAt: c.now, UpdatedAt: c.now}}
	return soroban.Void(), nil
}

func (r *registry) setPrice(c *call) (xdr.ScVal, *hostError) {
	p, e := argI128(c.args[1])
	if e != nil {
		return xdr.ScVal{}, e
	}
	ent, e := r.owned(c)
	if e != nil {
		return xdr.ScVal{}, e
	}
	price, e := checkPrice(p)
	if e != nil {
		return xdr.ScVal{}, e
	}
	ent.Price, ent.UpdatedAt = price, c.now
	return soroban.Void(), nil
}

func (r *registry) updateMetadata(c *call) (xdr.ScVal, *hostError) {
	m, e := argString(c.args[1])
	if e != nil {
		return xdr.ScVal{}, e
	}
	ent, e := r.owned(c)
	if e != nil {
		return xdr.ScVal{}, e
	}
	if e := checkMetadata(m); e != nil {
		return xdr.ScVal{}, e
	}
	ent.Metadata, ent.UpdatedAt = m, c.now
	return soroban.Void(), nil
}

func (r *registry) setTags(c *call) (xdr.ScVal, *hostError) {
	raw, e := argStrings(c.args[1])
	if e != nil {
		return xdr.ScVal{}, e
	}
	ent, e := r.owned(c)
	if e != nil {
		return xdr.ScVal{}, e
	}
	tags, e := normalizeTags(raw)
	if e != nil {
		return xdr.ScVal{}, e
	}
	ent.Tags, ent.UpdatedAt = tags, c.now
	return soroban.Void(), nil
}

// setListed to the current value is a no-op that still succeeds.
func (r *registry) setListed(c *call) (xdr.ScVal, *hostError) {
	listed, e := argBool(c.args[1])
	if e != nil {
		return xdr.ScVal{}, e
	}
	ent, e := r.owned(c)
	if e != nil {
		return xdr.ScVal{}, e
	}
	ent.Listed, ent.UpdatedAt = listed, c.now
	return soroban.Void(), nil
}

func (r *registry) transferOwnership(c *call) (xdr.ScVal, *hostError) {
	to, e := argAddress(c.args[1])
	if e != nil {
		return xdr.ScVal{}, e
	}
	ent, e := r.owned(c)
	if e != nil {
		return xdr.ScVal{}, e
	}
	if to == ent.Creator {
		return xdr.ScVal{}, contractErr(errAlreadyOwner)
	}
	ent.Creator, ent.UpdatedAt = to, c.now
	return soroban.Void(), nil
}

// checkID: 1-24 lowercase ASCII letters and digits (#11), not reserved (#16).
func checkID(id string) *hostError {
	if len(id) == 0 || len(id) > maxIDBytes || strings.Trim(id, "abcdefghijklmnopqrstuvwxyz0123456789") != "" {
		return contractErr(errInvalidResourceID)
	}
	if slices.Contains(reservedIDs, id) {
		return contractErr(errReservedID)
	}
	return nil
}

// checkPrice: > 0 (#3) and ≤ 10^18 units (#17).
func checkPrice(p *big.Int) (int64, *hostError) {
	switch {
	case p.Sign() <= 0:
		return 0, contractErr(errInvalidPrice)
	case p.Cmp(big.NewInt(maxPrice)) > 0:
		return 0, contractErr(errPriceExceedsMax)
	}
	return p.Int64(), nil
}

// checkMetadata: non-empty (#13), at most 512 bytes (#4), a pointer with a known prefix (#12).
func checkMetadata(m string) *hostError {
	switch {
	case m == "":
		return contractErr(errEmptyMetadata)
	case len(m) > maxMetadataBytes:
		return contractErr(errMetadataTooLong)
	}
	for _, p := range metadataPrefixes {
		if strings.HasPrefix(m, p) {
			return nil
		}
	}
	return contractErr(errInvalidMetadataPointer)
}

// normalizeTags trims, ASCII-lowercases and de-duplicates tags; at most 8, each 1-32 bytes of
// [a-z0-9-_] after normalisation (else #5).
func normalizeTags(raw []string) ([]string, *hostError) {
	if len(raw) > maxTags {
		return nil, contractErr(errInvalidTag)
	}
	out := []string{}
	for _, t := range raw {
		t = strings.ToLower(strings.TrimSpace(t))
		if len(t) == 0 || len(t) > maxTagBytes || strings.Trim(t, "abcdefghijklmnopqrstuvwxyz0123456789-_") != "" {
			return nil, contractErr(errInvalidTag)
		}
		if !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out, nil
}
