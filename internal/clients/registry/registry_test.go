package registry

import (
	"fmt"
	"math/big"
	"strings"
	"testing"

	"github.com/stellar/go-stellar-sdk/keypair"
	"github.com/stellar/go-stellar-sdk/xdr"

	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/internal/clients/soroban"
	"github.com/mindvault/mcp-endpoint/validate"
)

func TestPricesRoundTripExactly(t *testing.T) {
	e18, _ := new(big.Int).SetString("1000000000000000000", 10)
	cases := []struct {
		decimal string
		units   *big.Int
		text    string
	}{
		{"0.0000001", big.NewInt(1), "0.0000001"},
		{"1.5", big.NewInt(15_000_000), "1.5000000"},
		{"100000000000", e18, "100000000000.0000000"},
		{"0", big.NewInt(0), "0.0000000"},
	}
	for _, tc := range cases {
		u, err := soroban.Units(tc.decimal)
		if err != nil || u.Cmp(tc.units) != 0 {
			t.Fatalf("soroban.Units(%s) = %v, %v", tc.decimal, u, err)
		}
		v, err := soroban.I128(u)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := v.MarshalBinary()
		var back xdr.ScVal
		if err := back.UnmarshalBinary(b); err != nil {
			t.Fatal(err)
		}
		if got := soroban.BigFromI128(*back.I128); got.Cmp(tc.units) != 0 || soroban.Decimal(got) != tc.text {
			t.Fatalf("%s: round trip %v → %s", tc.decimal, got, soroban.Decimal(got))
		}
	}
	neg, _ := soroban.I128(big.NewInt(-5))
	if soroban.BigFromI128(*neg.I128).Int64() != -5 {
		t.Fatal("negative i128 does not round-trip")
	}
	if _, err := soroban.Units("1.00000001"); err == nil {
		t.Fatal("8 decimals accepted")
	}
}

func resourceMap(entries ...xdr.ScMapEntry) xdr.ScVal {
	m := xdr.ScMap(entries)
	p := &m
	return xdr.ScVal{Type: xdr.ScValTypeScvMap, Map: &p}
}

func entry(k string, v xdr.ScVal) xdr.ScMapEntry { return xdr.ScMapEntry{Key: soroban.Sym(k), Val: v} }

func TestDecodeByKeyTolerates(t *testing.T) {
	creator := keypair.MustRandom().Address()
	addr, _ := soroban.Account(creator)
	price, _ := soroban.I128(big.NewInt(1))
	minimal := resourceMap(entry("creator", addr), entry("id", soroban.Str("abc")), entry("listed", soroban.Bool(true)),
		entry("metadata", soroban.Str("ipfs://x")), entry("price", price))
	r, err := decodeResource(minimal)
	if err != nil || r.ID != "abc" || r.Creator != creator || soroban.Decimal(r.Price) != "0.0000001" || r.Tags != nil || r.State != nil || r.Verified != nil {
		t.Fatalf("minimal: %+v %v", r, err)
	}
	vec := xdr.ScVec{soroban.Sym("Listed")}
	pv := &vec
	state := xdr.ScVal{Type: xdr.ScValTypeScvVec, Vec: &pv}
	extra := resourceMap(entry("created_at", soroban.U32(7)), entry("creator", addr), entry("frozen", soroban.Bool(false)), entry("id", soroban.Str("abc")),
		entry("listed", soroban.Bool(false)), entry("metadata", soroban.Str("ipfs://x")), entry("price", price), entry("state", state),
		entry("tags", soroban.StrVec([]string{"go"})), entry("unknown_future_field", soroban.Str("?")), entry("verified", soroban.Bool(true)))
	r, err = decodeResource(extra)
	if err != nil || *r.State != "Listed" || !*r.Verified || len(r.Tags) != 1 || r.Listed {
		t.Fatalf("extra: %+v %v", r, err)
	}
	if _, err := decodeResource(resourceMap(entry("id", soroban.Str("abc")))); err == nil {
		t.Fatal("a resource without creator and price must be rejected")
	}
	if _, err := decodeResource(soroban.Str("nope")); err == nil {
		t.Fatal("a non-map must be rejected")
	}
}

// TestContractErrors: every stable number, through the simulation path and the failed
// transaction path, maps to its code, category, name and detail, and the simulation's event
// log never leaks.
func TestContractErrors(t *testing.T) {
	names := []string{"", "AlreadyRegistered", "NotFound", "InvalidPrice", "MetadataTooLong", "InvalidTag",
		"Unauthorized", "PendingAdminNotSet", "PendingAdminAlreadySet", "SameAdmin", "TermsHashTooLong",
		"InvalidResourceId", "InvalidMetadataPointer", "EmptyMetadata", "AlreadyOwner", "NoPendingTransfer",
		"ReservedId", "PriceExceedsMax", "AdminNotSet", "NotVerifier", "InvalidVerificationTransition",
		"AlreadyFrozen", "MetadataFrozen", "DuplicateInRepair"}
	want := map[int]string{1: "ALREADY_REGISTERED/conflict", 2: "NOT_FOUND/not_found", 3: "CONTRACT_INVALID_INPUT/validation",
		4: "CONTRACT_INVALID_INPUT/validation", 5: "CONTRACT_INVALID_INPUT/validation", 6: "CONTRACT_UNAUTHORIZED/auth",
		11: "CONTRACT_INVALID_INPUT/validation", 12: "CONTRACT_INVALID_INPUT/validation", 13: "CONTRACT_INVALID_INPUT/validation",
		14: "ALREADY_OWNER/conflict", 16: "CONTRACT_INVALID_INPUT/validation", 17: "CONTRACT_INVALID_INPUT/validation"}
	for n := 1; n <= 25; n++ {
		name := "Unknown"
		if n < len(names) {
			name = names[n]
		}
		wantCode := want[n]
		if wantCode == "" {
			wantCode = "CONTRACT_ERROR/contract"
		}
		for _, via := range []string{"simulation", "failed transaction"} {
			t.Run(fmt.Sprintf("%d/%s", n, via), func(t *testing.T) {
				var err error
				wantDetail := name + " (Error(Contract, #" + fmt.Sprint(n) + "))"
				if via == "simulation" {
					err = soroban.SimulationFailure(fmt.Sprintf("HostError: Error(Contract, #%d)\n\nEvent log (newest first):\n   0: [Diagnostic Event] data:\"secret-arg\"", n), errmap.SourceRegistry, Errors)
				} else {
					err = errmap.Wrap(nil, soroban.ContractErrors(Errors).Facts(errmap.Facts{Source: errmap.SourceRegistry, ExecutionStarted: true}, n))
				}
				f := errmap.FromError(err, errmap.Call{Operation: "Set price failed", Tool: "mindvault_set_price"})
				d := f.Diagnostic
				if got := d.Code + "/" + d.Category; got != wantCode || d.Source != "registry" {
					t.Errorf("#%d → %s (%s), want %s", n, got, d.Source, wantCode)
				}
				if d.Upstream["contractError"] != n || d.Upstream["contractErrorName"] != name {
					t.Errorf("#%d upstream %v", n, d.Upstream)
				}
				if d.Detail != wantDetail {
					t.Errorf("detail %q, want %q", d.Detail, wantDetail)
				}
				if strings.Contains(f.Text, "Event log") || strings.Contains(f.Text, "secret-arg") {
					t.Errorf("#%d: the simulation's event log leaked: %q", n, f.Text)
				}
			})
		}
	}
	name := func(n int) string { _, name, _ := Errors(n); return name }
	if name(0) != "Unknown" || name(-3) != "Unknown" || name(1<<20) != "Unknown" {
		t.Error("numbers outside the table must be Unknown")
	}
}

func TestOnchainID(t *testing.T) {
	for id, ok := range map[string]bool{"abc123": true, "ABC": false, strings.Repeat("a", 25): false, "a-b": false, "": false} {
		if validate.OnchainID(id) != ok {
			t.Errorf("OnchainID(%q) != %v", id, ok)
		}
	}
}

// registry_info's network id decodes alike from the BytesN<32> the contract stores and from
// a hex String, so health can compare it with the configured network.
func TestInfoNetworkID(t *testing.T) {
	id := make([]byte, 32)
	for i := range id {
		id[i] = byte(i * 7)
	}
	want := fmt.Sprintf("%x", id)
	sym := func(s string) xdr.ScVal {
		v := xdr.ScSymbol(s)
		return xdr.ScVal{Type: xdr.ScValTypeScvSymbol, Sym: &v}
	}
	bytesVal := func(b []byte) xdr.ScVal {
		v := xdr.ScBytes(b)
		return xdr.ScVal{Type: xdr.ScValTypeScvBytes, Bytes: &v}
	}
	for _, tc := range []struct {
		name string
		val  xdr.ScVal
		want string
	}{
		{"bytes", bytesVal(id), want},
		{"hex string", soroban.Str(strings.ToUpper(want)), want},
		{"absent", xdr.ScVal{Type: xdr.ScValTypeScvVoid}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			entries := []xdr.ScMapEntry{{Key: sym("name"), Val: soroban.Str("MindVault Vault Registry")}}
			if tc.val.Type != xdr.ScValTypeScvVoid {
				entries = append(entries, xdr.ScMapEntry{Key: sym("network_id"), Val: tc.val})
			}
			info := &Info{}
			ok := soroban.Fields(resourceMap(entries...), info.set)
			if !ok || info.NetworkID != tc.want || info.Name != "MindVault Vault Registry" {
				t.Fatalf("%+v %v", info, ok)
			}
		})
	}
	if soroban.Fields(soroban.Str("x"), new(Info).set) {
		t.Fatal("a non-map decoded")
	}
}

// The checks of what a write's simulation adds, case by case; the endpoint's tests drive
// them through a hostile RPC.
func TestWriteSimulationChecks(t *testing.T) {
	var cid xdr.ContractId
	cid[0] = 7
	registry := xdr.ScAddress{Type: xdr.ScAddressTypeScAddressTypeContract, ContractId: &cid}
	call := xdr.InvokeContractArgs{ContractAddress: registry, FunctionName: "set_price", Args: []xdr.ScVal{soroban.Str("abc")}}
	other := call
	other.Args = []xdr.ScVal{soroban.Str("abd")}
	entry := func(inv xdr.InvokeContractArgs, sub ...xdr.SorobanAuthorizedInvocation) xdr.SorobanAuthorizationEntry {
		return xdr.SorobanAuthorizationEntry{
			Credentials: xdr.SorobanCredentials{Type: xdr.SorobanCredentialsTypeSorobanCredentialsSourceAccount},
			RootInvocation: xdr.SorobanAuthorizedInvocation{Function: xdr.SorobanAuthorizedFunction{
				Type: xdr.SorobanAuthorizedFunctionTypeSorobanAuthorizedFunctionTypeContractFn, ContractFn: &inv},
				SubInvocations: sub},
		}
	}
	wallet := keypair.MustRandom().Address()
	withAddress := entry(call)
	withAddress.Credentials = xdr.SorobanCredentials{Type: xdr.SorobanCredentialsTypeSorobanCredentialsAddress,
		Address: &xdr.SorobanAddressCredentials{Address: xdr.ScAddress{Type: xdr.ScAddressTypeScAddressTypeAccount, AccountId: ptr(xdr.MustAddress(wallet))}}}
	for _, tc := range []struct {
		name string
		auth []xdr.SorobanAuthorizationEntry
		ok   bool
	}{
		{"none", nil, true},
		{"the call itself", []xdr.SorobanAuthorizationEntry{entry(call)}, true},
		{"the call twice", []xdr.SorobanAuthorizationEntry{entry(call), entry(call)}, false},
		{"other arguments", []xdr.SorobanAuthorizationEntry{entry(other)}, false},
		{"a sub-invocation", []xdr.SorobanAuthorizationEntry{entry(call, entry(other).RootInvocation)}, false},
		{"address credentials, even the wallet's", []xdr.SorobanAuthorizationEntry{withAddress}, false},
	} {
		if why := authReason("set_price", call, tc.auth); (why == "") != tc.ok {
			t.Errorf("%s: %q", tc.name, why)
		}
	}

	own := xdr.LedgerKey{Type: xdr.LedgerEntryTypeContractData, ContractData: &xdr.LedgerKeyContractData{Contract: registry,
		Key: xdr.ScVal{Type: xdr.ScValTypeScvLedgerKeyContractInstance}, Durability: xdr.ContractDataDurabilityPersistent}}
	var otherID xdr.ContractId
	otherID[0] = 8
	foreign := own
	foreign.ContractData = &xdr.LedgerKeyContractData{Contract: xdr.ScAddress{Type: xdr.ScAddressTypeScAddressTypeContract, ContractId: &otherID},
		Key: own.ContractData.Key, Durability: own.ContractData.Durability}
	code := xdr.LedgerKey{Type: xdr.LedgerEntryTypeContractCode, ContractCode: &xdr.LedgerKeyContractCode{}}
	for _, tc := range []struct {
		name   string
		fp     xdr.LedgerFootprint
		reason bool
	}{
		{"own storage", xdr.LedgerFootprint{ReadOnly: []xdr.LedgerKey{own, code}, ReadWrite: []xdr.LedgerKey{own}}, false},
		{"another contract's storage", xdr.LedgerFootprint{ReadWrite: []xdr.LedgerKey{foreign}}, true},
		{"contract code", xdr.LedgerFootprint{ReadWrite: []xdr.LedgerKey{code}}, true},
	} {
		if why := footprintReason(registry, tc.fp); (why != "") != tc.reason {
			t.Errorf("%s: %q", tc.name, why)
		}
	}

	c := &Client{MaxFee: 1000}
	data := func(fee int64) *xdr.SorobanTransactionData {
		return &xdr.SorobanTransactionData{ResourceFee: xdr.Int64(fee)}
	}
	for fee, ok := range map[int64]bool{900: true, 901: false, -1: false, 0: true} {
		err := c.checkSimulation("set_price", call, nil, data(fee))
		if (err == nil) != ok {
			t.Errorf("resource fee %d: %v", fee, err)
		}
		if f, _ := errmap.FactsOf(err); err != nil && (f.Code != errmap.CodeUnexpectedTransaction || f.ExecutionStarted || f.StateChanged != errmap.StateNo) {
			t.Errorf("resource fee %d: %+v", fee, f)
		}
	}
	if err := (&Client{}).checkSimulation("set_price", call, nil, data(DefaultMaxFee-100+1)); err == nil || !strings.Contains(err.Error(), "cap") {
		t.Errorf("without MaxFee the default cap applies: %v", err)
	}
}

func ptr[T any](v T) *T { return &v }
