package confirm

import (
	"errors"
	"testing"

	"github.com/mindvault/mcp-endpoint/errmap"
)

func facts(t *testing.T, err error) errmap.Facts {
	t.Helper()
	var e *errmap.Error
	if !errors.As(err, &e) {
		t.Fatalf("want an errmap failure, got %v", err)
	}
	return e.Facts
}

// TestApprovedConfirmationAdmitsOnlyWhatWasApproved: round 2 proceeds only when what a confirmation point would pay
// or send is what the user approved; a higher amount is PRICE_CHANGED, anything else that
// differs CONFIRMATION_STALE, with the category of what was approved and nothing changed.
func TestApprovedConfirmationAdmitsOnlyWhatWasApproved(t *testing.T) {
	pay := approval
	write := Approval{Kind: Write, Network: "testnet", Payer: "GSIGNER", Resource: "llmprompts", Contract: "CREG",
		Function: "set_price", Args: []string{"2.5 USDC"}, MaxFee: 20000, Before: "4294967296"}
	edit := func(a Approval, f func(*Approval)) Approval {
		a.Args = append([]string(nil), a.Args...)
		f(&a)
		return a
	}
	cases := []struct {
		name     string
		approved Approval
		now      Approval
		code     string // "" proceeds
	}{
		{"the same payment", pay, pay, ""},
		{"a higher amount", pay, edit(pay, func(a *Approval) { a.Amount = "15000001" }), errmap.CodePriceChanged},
		{"a lower amount", pay, edit(pay, func(a *Approval) { a.Amount = "14999999" }), errmap.CodeConfirmationStale},
		{"another payee", pay, edit(pay, func(a *Approval) { a.Payee = "GOTHER" }), errmap.CodeConfirmationStale},
		{"another asset", pay, edit(pay, func(a *Approval) { a.Asset = "COTHER" }), errmap.CodeConfirmationStale},
		{"another network", pay, edit(pay, func(a *Approval) { a.Network = "stellar:pubnet" }), errmap.CodeConfirmationStale},
		{"another payer", pay, edit(pay, func(a *Approval) { a.Payer = "GOTHER" }), errmap.CodeConfirmationStale},
		{"another resource", pay, edit(pay, func(a *Approval) { a.Resource = "zkprimer" }), errmap.CodeConfirmationStale},
		{"a resource created since", edit(pay, func(a *Approval) { a.Resource = "" }), pay, ""},
		{"an unreadable amount", pay, edit(pay, func(a *Approval) { a.Amount = "1.5" }), errmap.CodeConfirmationStale},
		{"the balance changed (a replay after paying)", pay, edit(pay, func(a *Approval) { a.Before = "985000000" }), errmap.CodeConfirmationStale},
		{"a write instead of a payment", pay, write, errmap.CodeConfirmationStale},
		{"the same write", write, write, ""},
		{"a lower fee", write, edit(write, func(a *Approval) { a.MaxFee = 100 }), ""},
		{"a higher fee", write, edit(write, func(a *Approval) { a.MaxFee = 20001 }), errmap.CodeConfirmationStale},
		{"another function", write, edit(write, func(a *Approval) { a.Function = "set_listed" }), errmap.CodeConfirmationStale},
		{"other arguments", write, edit(write, func(a *Approval) { a.Args[0] = "3 USDC" }), errmap.CodeConfirmationStale},
		{"another contract", write, edit(write, func(a *Approval) { a.Contract = "COTHER" }), errmap.CodeConfirmationStale},
		{"another signer", write, edit(write, func(a *Approval) { a.Payer = "GOTHER" }), errmap.CodeConfirmationStale},
		{"the sequence moved (a replay after sending)", write, edit(write, func(a *Approval) { a.Before = "4294967297" }), errmap.CodeConfirmationStale},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Approved(tc.approved).Approve(Request{Approval: tc.now})
			if tc.code == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			f := facts(t, err)
			cat := errmap.CategoryPayment
			if tc.approved.Kind == Write {
				cat = errmap.CategoryValidation
			}
			if f.Code != tc.code || f.Category != cat || f.ExecutionStarted || f.StateChanged != errmap.StateNo {
				t.Fatalf("facts %+v, want %s/%s with nothing started or changed", f, tc.code, cat)
			}
		})
	}
}

// TestAskingConfirmationFollowsThePolicy: round 1 asks per the MINDVAULT_CONFIRM table — auto: every
// payment and, on mainnet, every write; always: everything; off (and no Confirmation): nothing.
func TestAskingConfirmationFollowsThePolicy(t *testing.T) {
	cases := []struct {
		confirmation *Confirmation
		payment, wr  bool // asks before a payment, before a write
		standsForArg bool
	}{
		{Asking(Auto, false), true, false, true},
		{Asking(Auto, true), true, true, true},
		{Asking(Always, false), true, true, true},
		{Asking(Always, true), true, true, true},
		{Asking(Off, true), false, false, false},
		{nil, false, false, false},
		{Approved(approval), false, false, true},
	}
	for i, tc := range cases {
		for kind, want := range map[Kind]bool{Payment: tc.payment, Write: tc.wr} {
			a := approval
			a.Kind = kind
			asked, err := tc.confirmation.Approve(Request{Approval: a, Title: "t"})
			if asked != want {
				t.Errorf("case %d, %s: asked = %v (%v), want %v", i, kind, asked, err, want)
			}
		}
		if got := tc.confirmation.StandsInForMainnet(); got != tc.standsForArg {
			t.Errorf("case %d: StandsInForMainnet = %v, want %v", i, got, tc.standsForArg)
		}
	}
	if asked, err := (*Confirmation)(nil).Approve(Request{Approval: approval}); asked || err != nil {
		t.Errorf("a nil Confirmation refused: %v", err)
	}
}

func TestDeclined(t *testing.T) {
	w := Approval{Kind: Write, Function: "set_price", Args: []string{"2 USDC"}}
	for _, tc := range []struct {
		a   Approval
		cat errmap.Category
	}{{approval, errmap.CategoryPayment}, {w, errmap.CategoryValidation}} {
		f := facts(t, Declined(tc.a, "declined"))
		if f.Code != errmap.CodeConfirmationDeclined || f.Category != tc.cat || f.StateChanged != errmap.StateNo || f.ExecutionStarted {
			t.Errorf("%s: %+v", tc.a.Kind, f)
		}
		if d := errmap.Map(f).Diagnostic; d.Retry != string(errmap.RetryNo) {
			t.Errorf("%s: retry %s, want no", tc.a.Kind, d.Retry)
		}
	}
}

func TestFormats(t *testing.T) {
	if got := Short("GCYTRL7RDAWOBLGPXD4JN4FAQXR6TOZ42O6VZSVQKN47OHFSRDXOBVQW"); got != "GCYT…BVQW" {
		t.Errorf("Short = %q", got)
	}
	if got := XLM(1234567); got != "0.1234567" {
		t.Errorf("XLM = %q", got)
	}
	if got := XLM(10000000); got != "1" {
		t.Errorf("XLM = %q", got)
	}
}
