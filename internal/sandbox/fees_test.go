package sandbox

import (
	"testing"

	protocol "github.com/stellar/go-stellar-sdk/protocols/rpc"
	"github.com/stellar/go-stellar-sdk/xdr"

	"github.com/mindvault/mcp-endpoint/internal/clients/soroban"
)

// TestContractWritesPayTheirFee: as on the network, a contract write whose source cannot pay
// its fee bid above its minimum balance is refused at sendTransaction with
// txINSUFFICIENT_BALANCE (nothing queued, the sequence unused), and an applied write charges
// the fee to the source's XLM.
func TestContractWritesPayTheirFee(t *testing.T) {
	sb, clk := start(t, "")
	creator, _ := sb.Account("creator")
	acc := sb.world.byAddr[creator.Address]
	reserve := acc.minBalance() // one USDC trustline, not sponsored: 1.5 XLM
	if reserve != 3*baseReserve {
		t.Fatalf("creator's minimum balance %d, want 3 base reserves", reserve)
	}

	// Exactly the minimum balance: nothing above it for the fee.
	if err := sb.SetXLM(creator.Address, reserve); err != nil {
		t.Fatal(err)
	}
	seq := sequence(t, sb, creator.Address)
	tx := assemble(t, sb, creator, "set_price", soroban.Str("rustguide"), scI128(3_0000000))
	r := send(t, sb, b64(t, tx))
	var res xdr.TransactionResult
	if r.Status != "ERROR" || xdr.SafeUnmarshalBase64(r.ErrorResultXDR, &res) != nil || res.Result.Code != xdr.TransactionResultCodeTxInsufficientBalance {
		t.Fatalf("a write its source cannot pay for: %+v", r)
	}
	if sequence(t, sb, creator.Address) != seq {
		t.Fatal("a refused transaction used its sequence number")
	}
	if e, _ := sb.RegistryResource("rustguide"); e.Price == 3_0000000 {
		t.Fatal("a refused write changed the price")
	}

	// Funded, the same write applies and its fee leaves the balance.
	if err := sb.FundXLM(creator.Address, 1*stroops); err != nil {
		t.Fatal(err)
	}
	before, _ := sb.XLMBalance(creator.Address)
	g := submit(t, sb, clk, tx)
	if g.Status != protocol.TransactionStatusSuccess {
		t.Fatalf("the funded write: %+v", g)
	}
	after, _ := sb.XLMBalance(creator.Address)
	fee := feeCharged(int64(tx.ToXDR().V1.Tx.Ext.SorobanData.ResourceFee))
	if before-after != fee || fee <= 0 {
		t.Fatalf("XLM %d -> %d, want the fee charged (%d stroops)", before, after, fee)
	}
	if err := sb.SetXLM(creator.Address, -1); err == nil {
		t.Fatal("a negative balance was accepted")
	}
}

// TestSponsoredWalletHasNoFeeMoney: a wallet the sponsored-account service creates holds 0 XLM
// and owes no reserve of its own, so it can pay no fee until someone sends it XLM.
func TestSponsoredWalletHasNoFeeMoney(t *testing.T) {
	sb, _ := start(t, "")
	demo := sb.world.byAddr[sb.Demo.Address] // sponsored, 25 XLM
	if demo.minBalance() != 0 || !demo.canPayFee(25*stroops) || demo.canPayFee(25*stroops+1) {
		t.Fatalf("demo: minimum balance %d with %d stroops", demo.minBalance(), demo.native)
	}
}
