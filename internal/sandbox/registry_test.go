package sandbox

import (
	"math/big"
	"slices"
	"strconv"
	"strings"
	"testing"

	protocol "github.com/stellar/go-stellar-sdk/protocols/rpc"
	"github.com/stellar/go-stellar-sdk/strkey"
	"github.com/stellar/go-stellar-sdk/txnbuild"
	"github.com/stellar/go-stellar-sdk/xdr"

	"github.com/mindvault/mcp-endpoint/internal/clients/soroban"
)

// zeroAccount is the all-zero account reads simulate with.
const zeroAccount = "GAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAWHF"

// buildInvoke is the registry client's transaction: one InvokeHostFunction from source with
// sequence seq+1, optionally with auth entries and SorobanTransactionData.
func buildInvoke(t *testing.T, sb *Sandbox, source string, seq int64, fn string, args []xdr.ScVal,
	auth []xdr.SorobanAuthorizationEntry, data *xdr.SorobanTransactionData) *txnbuild.Transaction {
	t.Helper()
	raw, err := strkey.Decode(strkey.VersionByteContract, sb.RegistryContract)
	if err != nil {
		t.Fatal(err)
	}
	var cid xdr.ContractId
	copy(cid[:], raw)
	op := &txnbuild.InvokeHostFunction{
		HostFunction: xdr.HostFunction{Type: xdr.HostFunctionTypeHostFunctionTypeInvokeContract,
			InvokeContract: &xdr.InvokeContractArgs{
				ContractAddress: xdr.ScAddress{Type: xdr.ScAddressTypeScAddressTypeContract, ContractId: &cid},
				FunctionName:    xdr.ScSymbol(fn), Args: args}},
		Auth: auth, SourceAccount: source,
	}
	if data != nil {
		op.Ext = xdr.TransactionExt{V: 1, SorobanData: data}
	}
	tx, err := txnbuild.NewTransaction(txnbuild.TransactionParams{
		SourceAccount:        &txnbuild.SimpleAccount{AccountID: source, Sequence: seq},
		IncrementSequenceNum: true,
		Operations:           []txnbuild.Operation{op},
		BaseFee:              txnbuild.MinBaseFee,
		Preconditions:        txnbuild.Preconditions{TimeBounds: txnbuild.NewInfiniteTimeout()},
	})
	if err != nil {
		t.Fatal(err)
	}
	return tx
}

func b64(t *testing.T, tx *txnbuild.Transaction) string {
	t.Helper()
	s, err := tx.Base64()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// simulate runs simulateTransaction for fn called by source.
func simulate(t *testing.T, sb *Sandbox, source, fn string, args ...xdr.ScVal) protocol.SimulateTransactionResponse {
	t.Helper()
	var sim protocol.SimulateTransactionResponse
	rpcResult(t, sb, "simulateTransaction", protocol.SimulateTransactionRequest{
		Transaction: b64(t, buildInvoke(t, sb, source, 0, fn, args, nil, nil))}, &sim)
	if sim.LatestLedger == 0 {
		t.Fatalf("%s: no latestLedger", fn)
	}
	return sim
}

// read simulates a read with the all-zero account and decodes the return value.
func read(t *testing.T, sb *Sandbox, fn string, args ...xdr.ScVal) xdr.ScVal {
	t.Helper()
	sim := simulate(t, sb, zeroAccount, fn, args...)
	if sim.Error != "" || len(sim.Results) != 1 || sim.Results[0].ReturnValueXDR == nil {
		t.Fatalf("%s: %+v", fn, sim)
	}
	var v xdr.ScVal
	if err := xdr.SafeUnmarshalBase64(*sim.Results[0].ReturnValueXDR, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// simError simulates a call that must fail and returns the error string.
func simError(t *testing.T, sb *Sandbox, source, fn string, args ...xdr.ScVal) string {
	t.Helper()
	sim := simulate(t, sb, source, fn, args...)
	if sim.Error == "" || len(sim.Results) != 0 || sim.TransactionDataXDR != "" {
		t.Fatalf("%s: want a failed simulation, got %+v", fn, sim)
	}
	return sim.Error
}

// wantContractError checks the error string names Error(Contract, #n) and has an event log.
func wantContractError(t *testing.T, msg string, n int) {
	t.Helper()
	want := "HostError: Error(Contract, #" + strconv.Itoa(n) + ")\n\nEvent log (newest first):\n   0: [Diagnostic Event] "
	if !strings.HasPrefix(msg, want) || !strings.Contains(msg, "topics:[error, Error(Contract, #"+strconv.Itoa(n)+")]") {
		t.Fatalf("want Error(Contract, #%d), got %q", n, msg)
	}
}

// fields decodes a map with Symbol keys, failing unless the keys are sorted.
func fields(t *testing.T, v xdr.ScVal) (keys []string, m map[string]xdr.ScVal) {
	t.Helper()
	if v.Type != xdr.ScValTypeScvMap || v.Map == nil || *v.Map == nil {
		t.Fatalf("not a map: %v", v.Type)
	}
	m = map[string]xdr.ScVal{}
	for _, e := range **v.Map {
		k := string(e.Key.MustSym())
		keys = append(keys, k)
		m[k] = e.Val
	}
	if !slices.IsSorted(keys) {
		t.Fatalf("map keys are not sorted: %v", keys)
	}
	return keys, m
}

func vec(t *testing.T, v xdr.ScVal) []xdr.ScVal {
	t.Helper()
	if v.Type != xdr.ScValTypeScvVec || v.Vec == nil || *v.Vec == nil {
		t.Fatalf("not a vec: %v", v.Type)
	}
	return **v.Vec
}

func TestRegistrySeed(t *testing.T) {
	sb, _ := start(t, "")
	ids := sb.RegistryIDs()
	want := []string{"rustguide", "llmprompts", "stellarcheatsheet", "vectordbbench", "diagramset", "zkprimer", "chainonly"}
	if !slices.Equal(ids, want) {
		t.Fatalf("ids %v", ids)
	}
	creator, _ := sb.Account("creator")
	owners := map[string]int{}
	for _, id := range ids {
		r, ok := sb.RegistryResource(id)
		if !ok || r.ID != id || r.Price <= 0 || r.CreatedAt == 0 || r.UpdatedAt < r.CreatedAt {
			t.Fatalf("%s: %+v", id, r)
		}
		if checkMetadata(r.Metadata) != nil || checkID(id) != nil {
			t.Errorf("%s: seeded record violates the contract's rules: %+v", id, r)
		}
		owners[r.Creator]++
		if id == "chainonly" {
			if r.Listed || r.Creator != creator.Address || get(t, sb.APIURL+"/resources/chainonly/meta").status != 404 {
				t.Errorf("chainonly is on chain only and delisted: %+v", r)
			}
			continue
		}
		// Consistent with /meta: creator = publisher wallet, price in 7-decimal units, listed.
		var m metaBody
		mustJSON(t, get(t, sb.APIURL+"/resources/"+id+"/meta").body, &m)
		price, _ := parseStroops(m.Price)
		if m.OnchainStatus != "registered" || r.Creator != m.PublisherWallet || r.Price != price || !r.Listed ||
			!r.Verified || !strings.HasPrefix(r.Metadata, "ipfs://") || len(r.Tags) == 0 {
			t.Errorf("%s: chain %+v, api %+v", id, r, m)
		}
	}
	if owners[sb.Demo.Address] == 0 || owners[creator.Address] == 0 {
		t.Fatalf("owners %v", owners)
	}
	if _, ok := sb.RegistryResource("sorobanaudit"); ok {
		t.Fatal("a resource the API has not registered is on chain")
	}
	// Deterministic across sandboxes.
	sb2, _ := start(t, "")
	r1, _ := sb.RegistryResource("llmprompts")
	r2, _ := sb2.RegistryResource("llmprompts")
	if r1.Metadata != r2.Metadata || r1.Creator != r2.Creator {
		t.Fatal("registry seed is not deterministic")
	}
}

func TestRegistryReads(t *testing.T) {
	sb, _ := start(t, "")
	want, _ := sb.RegistryResource("llmprompts")

	t.Run("get", func(t *testing.T) {
		sim := simulate(t, sb, zeroAccount, "get", soroban.Str("llmprompts"))
		if sim.Error != "" || sim.MinResourceFee <= 0 || sim.RestorePreamble != nil || len(sim.Results) != 1 ||
			sim.Results[0].AuthXDR == nil || len(*sim.Results[0].AuthXDR) != 0 {
			t.Fatalf("%+v", sim)
		}
		var data xdr.SorobanTransactionData
		if err := xdr.SafeUnmarshalBase64(sim.TransactionDataXDR, &data); err != nil || int64(data.ResourceFee) != sim.MinResourceFee {
			t.Fatalf("transactionData: %v", err)
		}
		ro := data.Resources.Footprint.ReadOnly
		if len(ro) != 2 || ro[0].ContractData.Key.Type != xdr.ScValTypeScvLedgerKeyContractInstance ||
			scText(ro[1].ContractData.Key) != `[Resource, "llmprompts"]` || len(data.Resources.Footprint.ReadWrite) != 0 {
			t.Fatalf("footprint %+v", data.Resources.Footprint)
		}
		keys, m := fields(t, read(t, sb, "get", soroban.Str("llmprompts")))
		wantKeys := []string{"created_at", "creator", "id", "listed", "metadata", "price", "state", "tags", "updated_at", "verified"}
		if !slices.Equal(keys, wantKeys) {
			t.Fatalf("keys %v", keys)
		}
		creator, _ := m["creator"].Address.String()
		p := m["price"].MustI128()
		var tags []string
		for _, tag := range vec(t, m["tags"]) {
			tags = append(tags, string(tag.MustStr()))
		}
		state := vec(t, m["state"])
		if string(m["id"].MustStr()) != "llmprompts" || creator != sb.Demo.Address || m["creator"].Address.Type != xdr.ScAddressTypeScAddressTypeAccount ||
			p.Hi != 0 || int64(p.Lo) != want.Price || want.Price != 1_000_000 || !m["listed"].MustB() || !m["verified"].MustB() ||
			string(m["metadata"].MustStr()) != want.Metadata || !slices.Equal(tags, want.Tags) ||
			len(state) != 1 || string(state[0].MustSym()) != "Listed" ||
			uint64(m["created_at"].MustU64()) != want.CreatedAt || uint64(m["updated_at"].MustU64()) != want.UpdatedAt {
			t.Fatalf("resource %v", scText(read(t, sb, "get", soroban.Str("llmprompts"))))
		}
		_, m = fields(t, read(t, sb, "get", soroban.Str("chainonly")))
		if state := vec(t, m["state"]); string(state[0].MustSym()) != "Delisted" || m["listed"].MustB() {
			t.Fatalf("chainonly %v", scText(m["state"]))
		}
	})
	t.Run("get missing", func(t *testing.T) {
		msg := simError(t, sb, zeroAccount, "get", soroban.Str("nosuchid"))
		wantContractError(t, msg, 2)
		if !strings.Contains(msg, `topics:[fn_call, Bytes(`) || !strings.Contains(msg, `get], data:"nosuchid"`) ||
			!strings.Contains(msg, "contract:"+sb.RegistryContract) {
			t.Fatalf("event log %q", msg)
		}
		sim := simulate(t, sb, zeroAccount, "get", soroban.Str("nosuchid"))
		var ev xdr.DiagnosticEvent
		if len(sim.EventsXDR) != 2 || xdr.SafeUnmarshalBase64(sim.EventsXDR[1], &ev) != nil ||
			*ev.Event.Body.V0.Topics[1].Error.ContractCode != 2 {
			t.Fatalf("events %v", sim.EventsXDR)
		}
	})
	t.Run("exists and count", func(t *testing.T) {
		if !read(t, sb, "exists", soroban.Str("zkprimer")).MustB() || read(t, sb, "exists", soroban.Str("sorobanaudit")).MustB() {
			t.Fatal("exists")
		}
		if n := read(t, sb, "count").MustU32(); n != 7 {
			t.Fatalf("count %d", n)
		}
	})
	t.Run("list", func(t *testing.T) {
		ids := func(v xdr.ScVal) (out []string) {
			for _, item := range vec(t, v) {
				_, m := fields(t, item)
				out = append(out, string(m["id"].MustStr()))
			}
			return out
		}
		all := sb.RegistryIDs()
		if got := ids(read(t, sb, "list", soroban.U32(0), soroban.U32(100))); !slices.Equal(got, all) {
			t.Fatalf("list(0, 100) %v", got)
		}
		if got := ids(read(t, sb, "list", soroban.U32(2), soroban.U32(2))); !slices.Equal(got, all[2:4]) {
			t.Fatalf("list(2, 2) %v", got)
		}
		for _, args := range [][2]uint32{{7, 5}, {100, 5}, {0, 0}} {
			if v := read(t, sb, "list", soroban.U32(args[0]), soroban.U32(args[1])); len(vec(t, v)) != 0 {
				t.Fatalf("list%v not empty", args)
			}
		}
		var walked []string
		cursor := uint32(0)
		for pages := 0; ; pages++ {
			keys, m := fields(t, read(t, sb, "list_page", soroban.U32(cursor), soroban.U32(3)))
			if !slices.Equal(keys, []string{"items", "next_cursor"}) || pages > 3 {
				t.Fatalf("list_page keys %v after %d pages", keys, pages)
			}
			walked = append(walked, ids(m["items"])...)
			if m["next_cursor"].Type == xdr.ScValTypeScvVoid {
				break
			}
			cursor = uint32(m["next_cursor"].MustU32())
		}
		if !slices.Equal(walked, all) {
			t.Fatalf("list_page walk %v", walked)
		}
	})
	t.Run("registry_info", func(t *testing.T) {
		keys, m := fields(t, read(t, sb, "registry_info"))
		if !slices.Equal(keys, []string{"name", "network_id", "resource_schema_version", "version"}) ||
			string(m["name"].MustStr()) != "MindVault Vault Registry" || string(m["version"].MustStr()) != "1.2.0" ||
			m["resource_schema_version"].MustU32() != 2 ||
			string(m["network_id"].MustStr()) != "cee0302d59844d32bdca915c8203dd44b33fbb7edc19051ea37abedf28ecd472" {
			t.Fatalf("registry_info %s", scText(read(t, sb, "registry_info")))
		}
	})
	t.Run("host errors", func(t *testing.T) {
		if msg := simError(t, sb, zeroAccount, "nosuchfn"); !strings.HasPrefix(msg, "HostError: Error(WasmVm, InvalidAction)") {
			t.Fatal(msg)
		}
		if msg := simError(t, sb, zeroAccount, "get", soroban.U32(1)); !strings.HasPrefix(msg, "HostError: Error(Value, UnexpectedType)") {
			t.Fatal(msg)
		}
		if msg := simError(t, sb, zeroAccount, "get"); !strings.HasPrefix(msg, "HostError: Error(WasmVm, InvalidAction)") {
			t.Fatal(msg)
		}
		var sim protocol.SimulateTransactionResponse
		rpcResult(t, sb, "simulateTransaction", map[string]string{"transaction": "AAAA"}, &sim)
		if sim.Error != "Could not unmarshal transaction" || sim.LatestLedger == 0 {
			t.Fatalf("%+v", sim)
		}
		// Another contract id has no instance in the sandbox.
		tx := buildInvoke(t, sb, zeroAccount, 0, "get", []xdr.ScVal{soroban.Str("x")}, nil, nil)
		env := tx.ToXDR()
		other := xdr.ContractId(seedHash("not-a-contract"))
		env.V1.Tx.Operations[0].Body.InvokeHostFunctionOp.HostFunction.InvokeContract.ContractAddress.ContractId = &other
		raw, _ := xdr.MarshalBase64(env)
		rpcResult(t, sb, "simulateTransaction", map[string]string{"transaction": raw}, &sim)
		if !strings.HasPrefix(sim.Error, "HostError: Error(Storage, MissingValue)") {
			t.Fatalf("%+v", sim)
		}
		r := rpcPost(t, sb, rpcBody("simulateTransaction", map[string]string{"transaction": raw, "authMode": "sometimes"}))
		if !strings.Contains(string(r.body), `"code":-32602`) {
			t.Fatalf("bad authMode: %s", r.body)
		}
	})
}

// An i128 of any size reaches the contract's checks intact.
func TestRegistryPriceBounds(t *testing.T) {
	big128 := func(n *big.Int) xdr.ScVal {
		lo := new(big.Int).And(n, new(big.Int).SetUint64(^uint64(0)))
		hi := new(big.Int).Rsh(n, 64)
		return xdr.ScVal{Type: xdr.ScValTypeScvI128, I128: &xdr.Int128Parts{Hi: xdr.Int64(hi.Int64()), Lo: xdr.Uint64(lo.Uint64())}}
	}
	for _, tt := range []struct {
		n    *big.Int
		want *hostError
	}{
		{big.NewInt(1), nil},
		{big.NewInt(maxPrice), nil},
		{big.NewInt(maxPrice + 1), contractErr(errPriceExceedsMax)},
		{new(big.Int).Lsh(big.NewInt(1), 100), contractErr(errPriceExceedsMax)},
		{big.NewInt(0), contractErr(errInvalidPrice)},
		{big.NewInt(-5), contractErr(errInvalidPrice)},
	} {
		p, _ := argI128(big128(tt.n))
		_, got := checkPrice(p)
		if (got == nil) != (tt.want == nil) || (got != nil && got.String() != tt.want.String()) {
			t.Errorf("%s: got %v, want %v", tt.n, got, tt.want)
		}
	}
}
