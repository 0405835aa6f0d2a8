package errmap

// Needs says who must act before a failed call can succeed when no call an agent can make
// will do: the user (fund the wallet, approve a higher price, give a real email, confirm a
// mainnet call) or the operator (a setting, a broken downstream contract). An agent's loop
// stops at a diagnostic with needs and asks; retry then says what helps once the person acted.
type Needs string

// The people a failure can need.
const (
	NeedsUser     Needs = "user"
	NeedsOperator Needs = "operator"
)

// codeNeeds is who must act for each code that only a person can resolve; a code absent here
// is one an agent can recover from by itself (a retry, a wait, a correction) or that needs
// nothing (a conflict that is already the wanted state).
var codeNeeds = map[string]Needs{
	CodePaymentRequired:        NeedsUser,
	CodePaymentRejected:        NeedsUser,
	CodePaymentSimFailed:       NeedsUser,
	CodeInsufficientUSDC:       NeedsUser,
	CodeInsufficientBalance:    NeedsUser,
	CodeTrustlineMissing:       NeedsUser,
	CodePriceAboveCap:          NeedsUser,
	CodePriceChanged:           NeedsUser,
	CodeConfirmationDeclined:   NeedsUser,
	CodeConfirmationStale:      NeedsUser,
	CodeMainnetNotConfirmed:    NeedsUser,
	CodeUnauthorized:           NeedsUser,
	CodeForbidden:              NeedsUser,
	CodeContractUnauthorized:   NeedsUser,
	CodeTxBadAuth:              NeedsUser,
	CodeCredentialsMissing:     NeedsUser,
	CodeAccountMissing:         NeedsUser,
	CodeUnexpectedTransaction:  NeedsOperator,
	CodeDeliveryTooLarge:       NeedsOperator,
	CodeReadOnlyStore:          NeedsOperator,
	CodeProfileNotAllowed:      NeedsOperator,
	CodeUnsupportedRequirement: NeedsOperator,
	CodeFeesNotSponsored:       NeedsOperator,
	CodePayeeMismatch:          NeedsOperator,
	CodePayeeNotAllowed:        NeedsOperator,
	CodeResourceDenied:         NeedsOperator,
	CodeSpendingPaused:         NeedsOperator,
	CodeContractError:          NeedsOperator,
	CodeContractMissing:        NeedsOperator,
	CodeStateArchived:          NeedsOperator,
	CodeHostError:              NeedsOperator,
	CodeRPCError:               NeedsOperator,
}

// needsFor is who must act on a failure: the tool's own word (Facts.Needs), else the code's.
// A failure whose state changed needs a look first, which an agent can take itself.
func needsFor(f *Facts, code string, state State) Needs {
	if f.Needs != "" {
		return f.Needs
	}
	if state != StateNo {
		return ""
	}
	return codeNeeds[code]
}

// NeedsOf is the default Needs of a code (the public code list shows it).
func NeedsOf(code string) Needs { return codeNeeds[code] }
