// Package sandbox runs in-process simulators of the endpoint's three downstreams — the
// MindVault API, Stellar Horizon and Stellar RPC — on loopback listeners (127.0.0.1 only).
// They are the offline demo (STELLAR_NETWORK=sandbox) and the integration test bed, so they
// speak the real wire formats: the product's clients run unchanged against them, and this
// package is the only place where downstreams are faked.
//
// State is seeded deterministically: keypairs derive from sha256("mindvault-sandbox/<name>"),
// the catalog and transactions are fixed, and the ledger sequence starts at 1000 when Start
// returns and advances one ledger every 5 s of (Options.Now) time. The chain part of it —
// the vault registry's storage, account sequence numbers and XLM balances (shared by Horizon
// and RPC) and the transactions getTransaction knows — changes as sendTransaction applies
// registry invocations.
//
// # Vault registry
//
// RegistryContract is an in-memory model of the vault-registry Soroban contract
// (downstreams.md; mindvault-reference.md §4), reached through real XDR: simulateTransaction
// and sendTransaction take a base64 v1 TransactionEnvelope with one InvokeHostFunction op of
// type InvokeContract. Functions and ScVal encodings:
//
//	get(id: String) -> Resource                  missing: Error(Contract, #2)
//	exists(id: String) -> Bool
//	count() -> U32                               resources ever registered
//	list(start: U32, limit: U32) -> Vec<Resource>        registration order, limit capped at 20
//	list_page(cursor: U32, limit: U32) -> Map{items: Vec<Resource>, next_cursor: U32 | Void}
//	registry_info() -> Map{name: String, network_id: String (hex sha256 of the passphrase),
//	                       resource_schema_version: U32 2, version: String "1.2.0"}
//	register(creator: Address, id: String, price: I128, metadata: String, tags: Vec<String>)
//	set_price(id, new_price: I128), update_metadata(id, metadata: String),
//	set_tags(id, tags: Vec<String>), set_listed(id, listed: Bool),
//	transfer_ownership(id, new_creator: Address)              writes return Void
//
// Resource is a Map with Symbol keys in Soroban's (byte) order: created_at U64, creator
// Address, id String, listed Bool, metadata String, price I128 (7-decimal USDC units),
// state Vec[Symbol("Listed" | "Delisted")], tags Vec<String>, updated_at U64 (ledger close
// times, unix seconds), verified Bool. Writes require_auth the resource's creator (register:
// the creator argument) and validate as the contract does: id 1-24 of [a-z0-9] (#11), not
// reserved (#16), not registered yet (#1); price > 0 (#3) and ≤ 10^18 units (#17); metadata
// non-empty (#13), ≤ 512 bytes (#4), starting ipfs://, ar://, https://, http://, sha256:,
// sha-256: or 0x (#12); at most 8 tags, trimmed, lower-cased and de-duplicated, each 1-32 of
// [a-z0-9-_] (#5); a caller that is not the creator #6; a transfer to the owner #14.
//
// simulateTransaction runs the call on a copy of the state with the operation's source as the
// invoker; any source works for reads (the all-zero account included). A success has
// transactionData (a footprint of the instance and the DataKey entries touched), a
// minResourceFee and results[0] {xdr: the return value, auth: [] for reads, one
// SorobanCredentialsSourceAccount entry whose root invocation is exactly the call for
// writes}. A failure has only error ("HostError: Error(Contract, #N)" and an event log) and
// events. Simplification: a write simulated by a source that is not the creator fails with
// Error(Contract, #6), where the real host would record an Address-credentials auth entry for
// the creator. Another contract id fails with Error(Storage, MissingValue).
//
// sendTransaction checks what core checks before queueing and answers ERROR with
// errorResultXdr: txMALFORMED (not a v1 envelope with exactly one contract invocation, or no
// SorobanData), txNO_ACCOUNT (a source that is not a seeded account), txBAD_SEQ (sequence ≠ account's + 1),
// txINSUFFICIENT_FEE (fee < 100 + the resource fee), txBAD_AUTH (no valid ed25519 signature
// by the transaction's and operation's source over the network hash). Otherwise it answers
// PENDING, DUPLICATE while the same envelope is pending, or TRY_AGAIN_LATER while another
// transaction from the same account is. An accepted transaction is applied 1 s (Options.Now)
// after it was sent, in the ledger current then; until then getTransaction says NOT_FOUND.
// Applying uses the sequence number and charges the fee even when the call fails: SUCCESS
// (txSUCCESS, meta v4 with the return value) or FAILED (txFAILED, InvokeHostFunction
// TRAPPED, diagnosticEventsXdr whose error event carries Error(Contract, #N) or a host
// error). A write whose operation carries no source-account auth entry for exactly its
// invocation fails with Error(Auth, InvalidAction); one of another contract id with
// Error(Storage, MissingValue). Time bounds and XLM balances are not checked.
//
// The seeded registry holds the catalog's registered resources (creator = the publisher's
// wallet, price = the API price, an ipfs:// metadata pointer, listed, verified) and one
// resource only on chain, "chainonly" (creator, delisted); each has a signed seeded
// transaction. RegistryResource and RegistryIDs show the storage to tests.
//
// # Fault plan
//
// A fault plan (MINDVAULT_SANDBOX_FAULTS, Options.Faults, SetFaults) makes a downstream fail
// on demand, so every failure category of the error taxonomy can be produced. Rules are
// separated by ';'; each rule is a ','-separated list of key=value pairs (whitespace around
// tokens is ignored):
//
//	service=api|horizon|rpc     required
//	target=...                  HTTP: "METHOD /path", * matching one path segment (the method
//	                            may be * too); RPC: a JSON-RPC method name; * (default) = all
//	kind=...                    required, one of:
//	  status     status=N, optional body=<text> sent as is. Default body: API {"error":"..."}
//	             (429: {"error":"Too many requests","code":"RATE_LIMITED","retryAfterSeconds":S});
//	             Horizon a problem+json document of the right type for N; RPC (where status is
//	             an HTTP status, as gateways send) a plain-text line
//	  html       status=N, an nginx-style HTML error page (or body=)
//	  empty      status=N, no body at all
//	  malformed  HTTP 200 with JSON of the wrong shape for that route (an object where the
//	             catalog array belongs, a balances field that is a string, an RPC result of
//	             the wrong type); body= overrides it
//	  rpcerror   rpc only: code=N, optional message=..., a JSON-RPC error object with HTTP 200
//	  delay      delay=<Go duration>: stall that long, then answer normally; the stall ends
//	             early when the client gives up, freeing the handler
//	  drop       close the connection without a response
//	  The chain kinds (rpc only) change what the simulated chain answers; target defaults to
//	  the first method named and must be one of them:
//	  tryagain   sendTransaction answers TRY_AGAIN_LATER (with the hash) without accepting
//	  nocommit   sendTransaction answers PENDING but drops the transaction: getTransaction
//	             stays NOT_FOUND; sending it again once the rule is spent goes through
//	  archived   simulateTransaction answers a restorePreamble {transactionData,
//	             minResourceFee} (and the results when the call succeeds), no error
//	  nocontract simulateTransaction | sendTransaction: HostError: Error(Storage,
//	             MissingValue) for the contract instance; on sendTransaction the accepted
//	             transaction FAILS with it when applied
//	  contracterror  code=N (1-4294967295), simulateTransaction | sendTransaction:
//	             Error(Contract, #N), in simulation or as the applied transaction's failure
//	count=N                     affect N matching requests, then the rule is spent (default: all)
//	retry-after=S               send Retry-After: S (seconds or an HTTP date)
//	header=Name:Value           one extra response header; may repeat
//
// Rules are checked in order and the first unspent rule that matches applies. Examples:
//
//	service=api,target=GET /resources,kind=status,status=503,count=1
//	service=api,target=GET /resources/*/meta,kind=status,status=429,retry-after=2
//	service=horizon,target=GET /accounts/*,kind=html,status=502
//	service=horizon,target=GET /accounts/*,kind=malformed
//	service=horizon,kind=empty,status=504; service=rpc,target=getHealth,kind=drop
//	service=rpc,target=getTransaction,kind=rpcerror,code=-32603,message=data stores are not initialized
//	service=rpc,target=getLatestLedger,kind=delay,delay=30s
//	service=rpc,kind=status,status=429,retry-after=1,header=X-Provider:gateway
//	service=rpc,kind=tryagain,count=2
//	service=rpc,target=sendTransaction,kind=nocommit
//	service=rpc,target=simulateTransaction,kind=archived,count=1
//	service=rpc,kind=nocontract
//	service=rpc,target=simulateTransaction,kind=contracterror,code=23
//	service=rpc,target=sendTransaction,kind=contracterror,code=99,count=1
//
// A value that must contain ',' or ';' cannot use this syntax; the whole plan may then be a
// JSON array of objects with the same keys (numbers may be JSON numbers, header a string or
// an array of strings):
//
//	[{"service":"api","target":"GET /resources","kind":"status","status":500,"body":"{\"error\":\"a, b\"}"}]
//
// An invalid plan is an error naming the rule and the key. Count reports the requests a
// service has seen per target pattern (same matching), faulted or not.
//
// Note for drop: Go's http.Transport silently resends an idempotent request (GET, or one
// with an Idempotency-Key) once when a reused keep-alive connection closes before any
// response byte, so with count=1 such a client may see success on its second try, which is
// also what happens against a real server. Use count=2 or more (or no count) to make the
// drop visible to a client that reuses connections.
package sandbox
