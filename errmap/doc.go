// Package errmap is the one failure taxonomy of the MindVault MCP endpoint (docs/errors.md).
//
// Every failure an agent sees passes through Map, a pure function (no I/O, no clock, no
// environment; it reads only the process-wide set of known secrets, to redact them) from Facts
// to a Failure: a three-line text
//
//	<operation>: <detail>
//	Source: <label> · Category: <category> · Code: <CODE>[ · HTTP <status>]
//	Next: <one imperative recovery step>
//
// and the Diagnostic that travels in _meta["io.mindvault/error"]. Handlers never format error
// text themselves: clients return *Error (Facts plus cause), handlers call FromError, argument
// validation calls Validation. Codes() is the public code list (the README is generated from it).
//
// # Who classifies what
//
// Map holds the taxonomy; each downstream's specifics live with its client, which reads its
// service's answers and hands Map classified facts (a code, what the service said, the
// value-free Upstream facts), never a format Map would have to know:
//
//   - clients/horizon: problem documents (title and extras.result_codes) and the result-code
//     table (op_underfunded, tx_bad_seq, ...); a Horizon 404 is a missing account.
//   - clients/registry: the vault-registry error table (numbers, names, codes); failed
//     transactions' contract numbers.
//   - clients/soroban: simulation error strings (Error(Contract, #N) through the called
//     contract's table, Error(Storage, MissingValue), archived state, other host errors).
//   - clients/x402: the USDC token's error table and settlement reasons.
//   - clients/stellarrpc: JSON-RPC error objects and their codes.
//   - clients/mindvault: the API's {error} and zod bodies, its chain_unavailable and
//     price_mismatch codes, and the retryAfterSeconds of a 429.
//
// The transport applies a service's reader (transport.Service.ReadError) to every error
// answer; a body no client read stays in Facts.Body, and Map reads it with the one generic
// reader (ReadBody): the first non-empty string of error, message, detail, reason, title, or
// the first message of a nested error object.
//
// # Classification order
//
// The first rule that applies decides the code; the code decides the category:
//
//  1. Facts.Code (if documented) and Facts.Category (if valid) override everything below. An
//     explicit category without a code keeps the derived code when it belongs to that category,
//     else takes the category's generic code.
//  2. Facts.Issues present → INVALID_ARGUMENTS (jsonrpcCode -32602); else transport:
//     TransportTimeout → TIMEOUT, TransportNetwork → NETWORK_ERROR, TransportCancelled →
//     CANCELLED.
//  3. The HTTP status table (docs/errors.md "HTTP status table"), the same for every source.
//     "≥ 500 server" is taken literally, so 600–999 are server too; a status outside 100–999
//     counts as absent.
//
// # Detail
//
// In order: the issues of a validation failure; Facts.Detail, the endpoint's own sentence (a
// client or tool that writes one has read what the service said, or chose to say more);
// Facts.UpstreamDetail, what the service said as its client read it (or a thrown error's
// text); the generic reading of Facts.Body; "response body is not JSON (status N)" /
// "response body is too large to read (status N)" / "no response body"; the code's short
// phrase ("request timed out"). Only the first 64 KiB of a body is read; JSON is decoded in
// body order with bounded depth. Non-JSON bodies are described, never quoted, because
// upstream bodies are never echoed, and clients hand over only the value-free parts of what
// they parse (never raw simulation event logs, which carry call arguments).
//
// Every string that leaves is made one line (control and format characters removed, whitespace
// collapsed, invalid UTF-8 replaced), redacted, then bounded in runes (detail 300, operation 200),
// in that order, so a cut can never leave half a secret.
//
// Provenance decides the redaction rules. Operation, Detail and Next are the endpoint's own
// sentences: only the exact values and the shapes that never occur in prose (seeds, mv_ keys)
// are removed, so advice such as "configure MINDVAULT_CREDENTIALS=dir:<path>" reaches the
// agent intact. Everything that came from outside — the body, headers, the Upstream facts,
// UpstreamDetail (a downstream's message, a thrown error's text; FromError puts an error's
// own text there) — gets every shape rule as well. A client that quotes a
// downstream must therefore use UpstreamDetail, never Detail. A validation line 1 as a whole stays
// within 300 runes; what does not fit is counted as "and N more".
//
// # Next, retry, state
//
// Facts.Next wins. Otherwise the line is advise(code, tool, state, facts) (next.go):
// stateChanged "unknown" gives the how-to-find-out sentence (mindvault_tx_status with the hash;
// the payment expiry before paying again), "yes" says to check the current state first;
// otherwise the code's sentence where the category's would mislead, else the category's, each
// refined for the failing tool (an unknown profile, a publisher's API key, a creator's
// signature, an id to confirm) and naming what the facts hold (the contract error's name, the
// contract's price maximum, the creator in Facts.Advice, the timeout variable, the accepted
// arguments). Every sentence is one imperative sentence that never sends the agent back to the
// failing tool with nothing changed, never tells a buyer to register on chain, says "no action
// needed" only for ALREADY_REGISTERED and ALREADY_OWNER, and names an operator-only setting only
// as "ask the operator to ..."; endpoint/advice_test.go checks every (code, tool) pair.
//
// Retry is the category's verdict, except: stateChanged "yes" or "unknown" → "no" (a blind retry
// could pay or write twice; Next says what to do instead), and UNSUPPORTED_REQUIREMENT and
// FEES_NOT_SPONSORED → "no" (no caller action fixes them), and UNEXPECTED_TRANSACTION → "no"
// (only the service that prepared the transaction can fix it). An empty StateChanged means "no",
// unless TxHash or PaymentExpiresAt is set (documented as "sent, outcome unknown"): then
// "unknown". An unrecognised value is treated as "unknown".
//
// nextAction is NextAction, the recovery step as a tool call an agent can make as is (for an
// unknown transaction outcome, mindvault_tx_status with the hash; see TxStatusAction). It is
// kept only when the tool name has the tool-name shape, there are at most eight arguments with
// argument-name shapes, every value is one bounded line that redaction leaves untouched (a
// secret never becomes an argument) and a txHash is a transaction hash (normalised to 64
// lower-case hex); otherwise it is dropped whole, because half a call is a guess.
//
// retryAfterSeconds comes from Retry-After as delta-seconds (fractions round up); an HTTP-date
// is left out, because converting it needs a clock. Without the header, Facts.RetryAfter (a
// wait the service stated in its body) is used, and for rate_limit the X-RateLimit-Reset / RateLimit-Reset
// seconds; a rate_limit failure with none of these still says how long to wait:
// DefaultRetryAfterSeconds (5), and its Next line says the service named no wait. The
// rate-limit numbers limit, remaining and resetSeconds go to upstream whenever the headers
// carry them. Headers are read case-insensitively and deterministically.
//
// # Upstream and secrets
//
// upstream holds only: resultCodes, contractError and contractErrorName (registry, or the USDC
// token's number and name), x402Reason, rpcCode (all from Facts.Upstream), limit, remaining,
// resetSeconds. Tokens and names are admitted only in code shape and only if redaction leaves
// them untouched.
//
// Redaction (Redact, Redactor; the rules live in package redact) replaces with [REDACTED]:
// exact known secrets of six characters or more — every value of the process-wide registry
// plus Facts.Secrets, in all their encoded and escaped forms, and their first eight characters
// or more wherever they appear (so Map reads that registry: the same facts can map to more
// redaction once a secret is registered, never less); Stellar secret seeds, found as runs of
// the base32 alphabet so a seed glued to other characters is still caught, while G/C ids
// (56 characters, never starting with S) and muxed M-addresses (69) stay visible; mv_ API keys;
// Bearer tokens; authorization values (with their scheme word); values of keys naming a secret
// (x-api-key, api_key, apikey, secret, client_secret, token, access_token, password, private_key,
// signature, ...) after "=", ":" or a JSON colon; passwords in URLs. 64-hex transaction hashes
// stay visible. Over-redacting prose such as "token: expired" is accepted as the price of never
// leaking.
//
// # Codes and sources
//
// Facts.Code must be a documented code. An undocumented one is ignored (the derived code is
// used) rather than panicking, because Map must never panic; callers assert IsCode on their
// explicit codes in their own tests. An empty or unknown Source is reported as "request" (the
// endpoint's own layer), so the diagnostic only ever names documented sources. The timeout
// Next line names Facts.TimeoutVar, the setting that bounds the call: the transport sets its
// service's, the registry's write wait sets MINDVAULT_WRITE_WAIT_MS; without one the line
// names no setting rather than guess.
//
// # Changing a failure
//
// A caller that learns more about a failure it passes on (the tool that knows a resource was
// created, the client that knows a payment may have left) uses the constructors of edit.go
// (MarkStateChanged, MarkPending, MarkPaymentPending, MarkStarted, WithDetail, WithNext,
// WithNextAction, With): each returns a new *Error with a copy of the facts and the old error
// in its chain, so a failure value never changes under someone else holding it.
//
// FromError treats context.DeadlineExceeded, os.ErrDeadlineExceeded, ETIMEDOUT and net.Error
// timeouts as timeouts; refused, reset, aborted, unreachable, broken-pipe, unexpected-EOF and
// TLS/certificate errors as network failures. context.Canceled (without a deadline in the
// chain) is CANCELLED: the caller went away, which is neither a slow service nor a broken
// link, and must never read as a TIMEOUT in logs or metrics. The same holds when Call.Cancelled
// says the request's context was cancelled and the error carries no downstream answer (a
// poll loop that gave up, a transport error the client classified as a timeout).
//
// INVALID_REQUEST, UNKNOWN_NAME and INTERNAL_ERROR describe the MCP request itself; the
// protocol layer puts them, with their category and CodeRetry verdict, in the error.data of
// its JSON-RPC errors, so those carry the same facts as a tool result's diagnostic.
//
// The diagnostic's jsonrpcCode (-32602) is set for INVALID_ARGUMENTS only: policy refusals are
// not protocol errors (docs/protocol.md "Which failure goes to which channel"). Stellar RPC codes
// go to upstream.rpcCode instead.
package errmap
