package sandbox

import (
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stellar/go-stellar-sdk/keypair"
	"github.com/stellar/go-stellar-sdk/network"
	protocol "github.com/stellar/go-stellar-sdk/protocols/rpc"
	"github.com/stellar/go-stellar-sdk/strkey"
	"github.com/stellar/go-stellar-sdk/xdr"
)

func TestRPCNetworkHealthAndLedger(t *testing.T) {
	sb, clk := start(t, "")
	var n protocol.GetNetworkResponse
	rpcResult(t, sb, "getNetwork", nil, &n)
	if n.Passphrase != sb.Passphrase || n.Passphrase != network.TestNetworkPassphrase || n.ProtocolVersion != 23 {
		t.Fatalf("getNetwork %+v", n)
	}
	var h protocol.GetHealthResponse
	rpcResult(t, sb, "getHealth", map[string]any{}, &h)
	if h.Status != "healthy" || h.LatestLedger != 1000 || h.OldestLedger != 2 || h.LedgerRetentionWindow != retentionWindow ||
		h.LatestLedgerCloseTime != clk.now().Unix() || h.OldestLedgerCloseTime >= h.LatestLedgerCloseTime {
		t.Fatalf("getHealth %+v", h)
	}
	var l protocol.GetLatestLedgerResponse
	rpcResult(t, sb, "getLatestLedger", nil, &l)
	if l.Sequence != 1000 || l.ProtocolVersion != 23 || len(l.Hash) != 64 || l.LedgerCloseTime != clk.now().Unix() {
		t.Fatalf("getLatestLedger %+v", l)
	}
	var hdr xdr.LedgerHeaderHistoryEntry
	if err := xdr.SafeUnmarshalBase64(l.LedgerHeader, &hdr); err != nil || uint32(hdr.Header.LedgerSeq) != l.Sequence ||
		hex.EncodeToString(hdr.Hash[:]) != l.Hash {
		t.Fatalf("headerXdr: %v %+v", err, hdr.Header)
	}
	var meta xdr.LedgerCloseMeta
	if err := xdr.SafeUnmarshalBase64(l.LedgerMetadata, &meta); err != nil || meta.V != 2 {
		t.Fatalf("metadataXdr: %v", err)
	}

	// One ledger every 5 s, so a poller sees progress; the previous hash links up.
	clk.advance(11 * time.Second)
	var l2 protocol.GetLatestLedgerResponse
	rpcResult(t, sb, "getLatestLedger", nil, &l2)
	if l2.Sequence != 1002 || l2.LedgerCloseTime != l.LedgerCloseTime+10 || sb.LatestLedger() != 1002 {
		t.Fatalf("after 11 s: %+v", l2)
	}
	var hdr2 xdr.LedgerHeaderHistoryEntry
	_ = xdr.SafeUnmarshalBase64(l2.LedgerHeader, &hdr2)
	if prev := ledgerHash(1001); hdr2.Header.PreviousLedgerHash != prev {
		t.Error("previous ledger hash does not link")
	}
}

func TestRPCSeededTransactions(t *testing.T) {
	sb, _ := start(t, "")
	success, failed := sb.Transactions()
	tests := []struct {
		hash, status, signer string
		code                 xdr.TransactionResultCode
	}{
		{success, protocol.TransactionStatusSuccess, "demo", xdr.TransactionResultCodeTxSuccess},
		{strings.ToUpper(failed), protocol.TransactionStatusFailed, "zero", xdr.TransactionResultCodeTxFailed},
	}
	for _, tt := range tests {
		t.Run(tt.status, func(t *testing.T) {
			var g protocol.GetTransactionResponse
			rpcResult(t, sb, "getTransaction", protocol.GetTransactionRequest{Hash: tt.hash}, &g)
			if g.Status != tt.status || g.Ledger == 0 || g.Ledger > g.LatestLedger || g.Ledger < g.OldestLedger ||
				g.FeeBump || g.ApplicationOrder < 1 || g.LedgerCloseTime != sb.closeTime(g.Ledger) ||
				g.LatestLedgerCloseTime == 0 || g.OldestLedgerCloseTime == 0 || g.TransactionHash != strings.ToLower(tt.hash) {
				t.Fatalf("getTransaction %+v", g)
			}
			var env xdr.TransactionEnvelope
			if err := xdr.SafeUnmarshalBase64(g.EnvelopeXDR, &env); err != nil {
				t.Fatal(err)
			}
			h, err := network.HashTransactionInEnvelope(env, sb.Passphrase)
			if err != nil || hex.EncodeToString(h[:]) != strings.ToLower(tt.hash) {
				t.Fatalf("envelope hash %x, served %s (%v)", h, tt.hash, err)
			}
			acc, _ := sb.Account(tt.signer)
			kp := keypair.MustParseAddress(acc.Address)
			if env.SourceAccount().ToAccountId().Address() != acc.Address || len(env.Signatures()) != 1 ||
				kp.Verify(h[:], env.Signatures()[0].Signature) != nil {
				t.Fatal("envelope is not signed by its source account")
			}
			var res xdr.TransactionResult
			if err := xdr.SafeUnmarshalBase64(g.ResultXDR, &res); err != nil || res.Result.Code != tt.code || res.FeeCharged <= 0 {
				t.Fatalf("result %v %+v", err, res)
			}
			var meta xdr.TransactionMeta
			if err := xdr.SafeUnmarshalBase64(g.ResultMetaXDR, &meta); err != nil || meta.V != 4 {
				t.Fatalf("meta %v", err)
			}
		})
	}
}

// The registration transactions behind meta's onchainTxHash are real Soroban invocations of
// register on the sandbox registry, so mindvault_tx_status resolves them.
func TestRPCRegistrationTransactions(t *testing.T) {
	sb, _ := start(t, "")
	var m metaBody
	mustJSON(t, get(t, sb.APIURL+"/resources/llmprompts/meta").body, &m)
	var g protocol.GetTransactionResponse
	rpcResult(t, sb, "getTransaction", map[string]string{"hash": *m.OnchainTxHash}, &g)
	if g.Status != protocol.TransactionStatusSuccess {
		t.Fatalf("registration tx %+v", g)
	}
	var env xdr.TransactionEnvelope
	if err := xdr.SafeUnmarshalBase64(g.EnvelopeXDR, &env); err != nil {
		t.Fatal(err)
	}
	op := env.Operations()[0].Body.MustInvokeHostFunctionOp()
	args := op.HostFunction.MustInvokeContract()
	contract, _ := strkey.Encode(strkey.VersionByteContract, args.ContractAddress.ContractId[:])
	if contract != sb.RegistryContract || args.FunctionName != "register" || len(args.Args) != 5 ||
		string(args.Args[1].MustStr()) != "llmprompts" || args.Args[2].MustI128().Lo != 1_000_000 ||
		env.SourceAccount().ToAccountId().Address() != sb.Demo.Address {
		t.Fatalf("register call %+v", args)
	}
	if env.V1.Tx.Ext.V != 1 || env.V1.Tx.Ext.SorobanData == nil || env.Fee() <= 100 {
		t.Error("a Soroban transaction carries SorobanTransactionData and a resource fee")
	}

	// A registration still pending is not on chain yet.
	mustJSON(t, get(t, sb.APIURL+"/resources/agentpromptpack/meta").body, &m)
	rpcResult(t, sb, "getTransaction", map[string]string{"hash": *m.OnchainTxHash}, &g)
	if m.OnchainStatus != "pending" || g.Status != protocol.TransactionStatusNotFound {
		t.Fatalf("pending registration: %s %+v", m.OnchainStatus, g)
	}
}

func TestRPCContractIDs(t *testing.T) {
	sb, _ := start(t, "")
	usdc := xdr.MustNewCreditAsset("USDC", sb.USDCIssuer)
	id, err := usdc.ContractID(sb.Passphrase)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := strkey.Encode(strkey.VersionByteContract, id[:])
	if sb.USDCContractID != want || !strings.HasPrefix(sb.RegistryContract, "C") || !strkey.IsValidContractAddress(sb.RegistryContract) {
		t.Fatalf("usdc %s (want the SAC id %s), registry %s", sb.USDCContractID, want, sb.RegistryContract)
	}
	// Deterministic: a second sandbox has the same ids, keys and transactions.
	sb2, _ := start(t, "")
	s1, f1 := sb.Transactions()
	s2, f2 := sb2.Transactions()
	if sb2.USDCContractID != sb.USDCContractID || sb2.RegistryContract != sb.RegistryContract || sb2.Demo != sb.Demo || s1 != s2 || f1 != f2 {
		t.Fatal("seeding is not deterministic")
	}
	if len(sb.Accounts()) != 11 || sb.Accounts()[0] != sb.Demo || sb.Accounts()[10].Name != "missing" {
		t.Fatalf("accounts %v", sb.Accounts())
	}
	if _, ok := sb.Account("nobody"); ok {
		t.Fatal("unknown account name found")
	}
}

func TestRPCErrors(t *testing.T) {
	sb, _ := start(t, "")
	tests := []struct {
		name, body string
		code       int
		msg        string
	}{
		{"unknown method", string(rpcBody("simulateTransaction2", nil)), -32601, "method not found"},
		{"not found hash", "", 0, ""},
		{"short hash", string(rpcBody("getTransaction", map[string]string{"hash": "abc"})), -32602, "unexpected hash length (3)"},
		{"bad hex", string(rpcBody("getTransaction", map[string]string{"hash": strings.Repeat("z", 64)})), -32602, "incorrect hash"},
		{"positional params", string(rpcBody("getTransaction", []string{"x"})), -32602, "invalid parameters"},
		{"wrong param type", string(rpcBody("getTransaction", map[string]int{"hash": 1})), -32602, "invalid parameters"},
		{"bad xdrFormat", string(rpcBody("getTransaction", map[string]string{"hash": strings.Repeat("a", 64), "xdrFormat": "yaml"})), -32602, "xdrFormat"},
		{"parse error", `{"jsonrpc":`, -32700, "invalid JSON"},
		{"no version", `{"id":1,"method":"getHealth"}`, -32600, "invalid version"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.name == "not found hash" {
				var g protocol.GetTransactionResponse
				rpcResult(t, sb, "getTransaction", map[string]string{"hash": strings.Repeat("ab", 32)}, &g)
				if g.Status != protocol.TransactionStatusNotFound || g.LatestLedger != 1000 || g.OldestLedger != 2 || g.EnvelopeXDR != "" {
					t.Fatalf("%+v", g)
				}
				return
			}
			r := rpcPost(t, sb, []byte(tt.body))
			var env struct {
				Error *rpcError
			}
			mustJSON(t, r.body, &env)
			if r.status != 200 || env.Error == nil || env.Error.Code != tt.code || !strings.Contains(env.Error.Message, tt.msg) {
				t.Fatalf("%d %s", r.status, r.body)
			}
		})
	}
}

func TestRPCTransport(t *testing.T) {
	sb, _ := start(t, "")
	if r := do(t, "GET", sb.RPCURL, nil, nil); r.status != 405 {
		t.Errorf("GET: %d", r.status)
	}
	if r := do(t, "POST", sb.RPCURL, rpcBody("getHealth", nil), map[string]string{"Content-Type": "text/plain"}); r.status != 415 {
		t.Errorf("text/plain: %d", r.status)
	}
	if r := do(t, "POST", sb.RPCURL+"/rpc", rpcBody("getHealth", nil), map[string]string{"Content-Type": "application/json"}); r.status != 404 {
		t.Errorf("other path: %d", r.status)
	}
	if r := rpcPost(t, sb, []byte(`{"jsonrpc":"2.0","method":"getHealth"}`)); r.status != 204 || len(r.body) != 0 {
		t.Errorf("notification: %d %s", r.status, r.body)
	}
	sb.ResetCounts()
	batch := `[{"jsonrpc":"2.0","id":"a","method":"getNetwork"},{"jsonrpc":"2.0","method":"getHealth"},{"jsonrpc":"2.0","id":2,"method":"nope"}]`
	r := rpcPost(t, sb, []byte(batch))
	var out []struct {
		ID     json.RawMessage
		Result *protocol.GetNetworkResponse
		Error  *rpcError
	}
	mustJSON(t, r.body, &out)
	if len(out) != 2 || string(out[0].ID) != `"a"` || out[0].Result.Passphrase != sb.Passphrase || out[1].Error.Code != -32601 {
		t.Fatalf("batch: %s", r.body)
	}
	if sb.Count("rpc", "getHealth") != 1 || sb.Count("rpc", "getNetwork") != 1 || sb.Count("rpc", "nope") != 1 {
		t.Errorf("batch calls are counted per method: %d %d", sb.Count("rpc", "getHealth"), sb.Count("rpc", "getNetwork"))
	}
}
