package tools

import (
	"context"
	"math/big"
	"os"
	"path/filepath"
	"testing"

	"github.com/stellar/go-stellar-sdk/keypair"

	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/internal/clients/x402"
	"github.com/mindvault/mcp-endpoint/internal/ledger"
)

// TestApprovePaymentHoldsTheOperatorsControls: right before signing, the payee of the very
// requirement about to be signed passes the lists again, and the switch is read: a pause, or a
// switch that cannot be read (fail closed), refuses the payment.
func TestApprovePaymentHoldsTheOperatorsControls(t *testing.T) {
	ctx := context.Background()
	denied, other := keypair.MustRandom().Address(), keypair.MustRandom().Address()
	corrupt := filepath.Join(t.TempDir(), "pause.json")
	if err := os.WriteFile(corrupt, []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, payee, code string
		allowed           []string
		store             func() ledger.Store
	}{
		{name: "control", payee: other},
		{name: "denied payee", payee: denied, code: errmap.CodePayeeNotAllowed},
		{name: "outside the allow list", payee: other, allowed: []string{denied}, code: errmap.CodePayeeNotAllowed},
		{name: "paused", payee: other, code: errmap.CodeSpendingPaused, store: func() ledger.Store {
			s := ledger.NewMemory()
			_, _ = s.Set(ctx, true, "ops")
			return s
		}},
		{name: "switch unreadable", payee: other, code: errmap.CodeServerError, store: func() ledger.Store { return ledger.NewMemory(corrupt) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, kp := fakeDeps(t)
			d.Config.PayeesDenied, d.Config.PayeesAllowed = []string{denied}, tc.allowed
			if tc.store != nil {
				d.Ledger = tc.store()
			}
			c := &Call{Deps: d}
			_, err := c.approvePayment(ctx, payment{payer: kp.Address(), balance: big.NewInt(10)}, x402.Quote{Amount: big.NewInt(1), PayTo: tc.payee}, &attempt{d: c})
			f, _ := errmap.FactsOf(err)
			if (tc.code == "") != (err == nil) || f.Code != tc.code || (err != nil && f.StateChanged != errmap.StateNo) {
				t.Fatalf("got %v (%+v), want code %q", err, f, tc.code)
			}
		})
	}
}
