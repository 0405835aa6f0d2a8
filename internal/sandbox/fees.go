package sandbox

import "fmt"

// baseReserve is the network's base reserve in stroops (0.5 XLM), as getLedgerEntries'
// network config reports it; an account must keep (2 + subentries + sponsoring - sponsored)
// of them.
const baseReserve = 5_000_000

// minBalance is the XLM, in stroops, the account must keep: core refuses a transaction whose
// fee would take the balance below it.
func (a *chainAccount) minBalance() int64 {
	n := 2 + int64(len(a.lines)+len(a.cosigners)) + int64(a.numSponsoring) - int64(a.numSponsored)
	return max(n, 0) * baseReserve
}

// canPayFee reports whether the account can pay a transaction's full fee bid (tx.Fee, not
// the lower fee charged) above its minimum balance, as core checks before queueing it: a
// sponsored wallet with 0 XLM cannot, whatever the sponsor pays for its reserves. x402
// payments are unaffected: the facilitator's own account is their source.
func (a *chainAccount) canPayFee(fee int64) bool {
	return a.native-a.minBalance() >= fee
}

// FundXLM credits an account with XLM (stroops), as a payment from another account would;
// a test uses it to give a new wallet the fee of its first contract write.
func (s *Sandbox) FundXLM(address string, stroopsAmount int64) error {
	if stroopsAmount <= 0 {
		return fmt.Errorf("sandbox: FundXLM: amount must be positive, got %d", stroopsAmount)
	}
	defer s.lockChain()()
	a := s.world.byAddr[address]
	if a == nil {
		return fmt.Errorf("sandbox: FundXLM: no account %s", address)
	}
	a.native += stroopsAmount
	a.lastModified = max(a.lastModified, s.LatestLedger())
	return nil
}

// SetXLM sets an account's XLM balance (stroops), so a test can play a wallet that holds none.
func (s *Sandbox) SetXLM(address string, stroopsAmount int64) error {
	if stroopsAmount < 0 {
		return fmt.Errorf("sandbox: SetXLM: amount must not be negative, got %d", stroopsAmount)
	}
	defer s.lockChain()()
	a := s.world.byAddr[address]
	if a == nil {
		return fmt.Errorf("sandbox: SetXLM: no account %s", address)
	}
	a.native = stroopsAmount
	return nil
}

// XLMBalance is an account's XLM balance in stroops; ok is false when it does not exist.
func (s *Sandbox) XLMBalance(address string) (stroopsAmount int64, ok bool) {
	defer s.lockChain()()
	a := s.world.byAddr[address]
	if a == nil {
		return 0, false
	}
	return a.native, true
}
