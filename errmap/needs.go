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

// needsFor is who must act on a failure: the tool's own word (Facts.Needs), else the code's.
// A failure whose state changed needs a look first, which an agent can take itself.
func needsFor(f *Facts, code string, state State) Needs {
	if f.Needs != "" {
		return f.Needs
	}
	if state != StateNo {
		return ""
	}
	return info(code).needs
}
