package tools

import (
	"net/http"
	"strings"
	"testing"

	rpc "github.com/stellar/go-stellar-sdk/protocols/rpc"
	"github.com/stellar/go-stellar-sdk/xdr"

	"github.com/mindvault/mcp-endpoint/errmap"
)

// TestTxStatus: an applied transaction gets its result code, close time and explorer link, one
// not found is a success with the RPC's ledger window, and an RPC failure is mapped.
func TestTxStatus(t *testing.T) {
	hash := strings.Repeat("ab", 32)
	okXDR, err := xdr.MarshalBase64(xdr.TransactionResult{Result: xdr.TransactionResultResult{Code: xdr.TransactionResultCodeTxSuccess, Results: &[]xdr.OperationResult{}}})
	if err != nil {
		t.Fatal(err)
	}
	applied := &rpc.GetTransactionResponse{LedgerCloseTime: 1_767_225_600,
		TransactionDetails: rpc.TransactionDetails{Status: rpc.TransactionStatusSuccess, Ledger: 42, ApplicationOrder: 3, ResultXDR: okXDR}}
	missing := &rpc.GetTransactionResponse{OldestLedger: 10, LatestLedger: 99,
		TransactionDetails: rpc.TransactionDetails{Status: rpc.TransactionStatusNotFound}}
	for _, tc := range []struct {
		name  string
		args  string
		tx    *rpc.GetTransactionResponse
		err   error
		calls int32
		want  readWant
	}{
		{name: "applied, prefixed upper-case hash", args: `{"txHash":"sha256:` + strings.ToUpper(hash) + `"}`, tx: applied, calls: 1, want: readWant{out: map[string]any{
			"status": "SUCCESS", "hash": hash, "ledger": 42, "applicationOrder": 3, "resultCode": "txSUCCESS",
			"ledgerCloseTime": "2026-01-01T00:00:00Z", "explorerUrl": "https://stellar.expert/explorer/testnet/tx/" + hash}}},
		{name: "not found", args: `{"txHash":"` + hash + `"}`, tx: missing, calls: 1, want: readWant{out: map[string]any{
			"status": "NOT_FOUND", "oldestLedger": 10, "latestLedger": 99, "ledger": nil, "explorerUrl": nil}}},
		{name: "malformed hash asks nothing", args: `{"txHash":"abc"}`,
			want: readWant{code: errmap.CodeInvalidArguments, category: "validation", state: "no"}},
		{name: "RPC down", args: `{"txHash":"` + hash + `"}`, err: fakeFailure(errmap.SourceRPC, http.StatusServiceUnavailable, ""), calls: 1,
			want: readWant{code: errmap.CodeServerError, category: "server", state: "no"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, _ := fakeDeps(t)
			chain := &txRPC{tx: tc.tx, err: tc.err}
			d.RPC = chain
			checkRead(t, callTool(t, txStatus.Define(d), tc.args), tc.want)
			if chain.calls.Load() != tc.calls {
				t.Fatalf("RPC saw %d calls, want %d", chain.calls.Load(), tc.calls)
			}
		})
	}
}
