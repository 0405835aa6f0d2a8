// Package confirm lets the human behind an agent approve each payment and state-changing
// call, without a session: the policy (MINDVAULT_CONFIRM), the signing key, the signed
// requestState that carries a pending approval between the two requests of a multi-round-trip
// tools/call (SEP-2322, the 2026-07-28 revision), and the Gate a tool's seams consult.
//
// # When the endpoint asks
//
//	MINDVAULT_CONFIRM   asks before
//	auto (default)      every payment (a purchase, a publish's verification fee) and, on
//	                    mainnet, every state-changing call
//	always              every state-changing call, on any network
//	off                 never
//
// It asks only on the modern era, only when the request's client capabilities declare
// elicitation in form mode (an empty elicitation object counts as form), only with a key, and
// never for a dry run. Otherwise the arguments the agent fills in are what guard the user's
// money: maxPriceUsdc, maxFeeUsdc, confirmMainnet and dryRun.
//
// # Round 1: every check, then ask
//
// A tool runs exactly as a real call would — validation, preview, balance, the 402 and its
// price, simulation and fee, the checks on a prepared transaction, the caps — up to the point
// where it would sign or send. There its seam hands the Gate a Request: what would be paid or
// sent (an Approval) and its wording. In round 1 the Gate stops the call with Needed, which the
// tool layer turns into an InputRequiredResult: a form elicitation with one boolean, confirm,
// and a requestState sealed by Keeper.Seal. Nothing was signed for the network or sent.
//
// # requestState
//
// "mv1." + base64url(JSON payload) + "." + base64url(HMAC-SHA256(key, everything before the
// last dot)). The payload binds the tool, a hash of the canonical arguments, the caller (a
// hash of auth.Caller: the bearer token's configured digest, or anonymous), the profile, the
// network, the Approval, the issue and expiry times (5 minutes) and a random nonce. It carries
// nothing secret and nothing the client could not see. Keeper.Open checks the MAC first, in
// constant time (hmac.Equal), then the format, the expiry and every binding: a state signed
// with another key (a rotated one) is refused like an altered one.
//
// The key is MINDVAULT_CONFIRM_KEY (base64 of at least 32 random bytes) or
// MINDVAULT_CONFIRM_KEY_SECRET (the name of a Secrets Manager secret holding the same text).
// Every instance of a deployment must share it, so under Lambda a missing key means the
// endpoint never asks (logged once at start); outside Lambda (make run) a key is generated for
// the process. The key is registered with package redact like every other secret.
//
// # Round 2: verify, then act exactly as approved
//
// The repeated call's requestState is opened and checked against the call: failing that is a
// JSON-RPC -32602 with error.data.code CONFIRMATION_INVALID, and nothing runs. Without an
// answer the call is a fresh round 1. A decline, a cancel or confirm false is
// CONFIRMATION_DECLINED (category payment for a payment, validation for a write; retry no;
// nothing changed). An acceptance runs the tool again with a Gate holding the approval: every
// check runs again, and each seam proceeds only when what it would now pay or send is what was
// approved — a higher amount is PRICE_CHANGED, any other difference CONFIRMATION_STALE, both
// before anything is signed. Accepting on mainnet counts as confirmMainnet: true.
package confirm
