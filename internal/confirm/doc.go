// Package confirm asks the user behind an agent to approve each payment and state-changing call,
// without a session, through the multi-round-trip tools/call of the 2026-07-28 revision: it holds
// the policy and the signing key (MINDVAULT_CONFIRM, MINDVAULT_CONFIRM_KEY), the Approval that
// round 1 asks for and round 2 must match, and the signed requestState that carries it between the
// two requests. When it asks and what round 2 refuses are docs/tools.md "The user's confirmation";
// the wire is docs/protocol.md "Asking the user".
package confirm
