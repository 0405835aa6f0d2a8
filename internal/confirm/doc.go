// Package confirm asks the user behind an agent to approve each payment and state-changing
// call, without a session, through the multi-round-trip tools/call: it holds the policy and
// the signing key, the Approval round 1 asks for and round 2 must match, and the signed
// requestState that carries it between them (docs/tools.md "The user's confirmation").
package confirm
