// Package sandbox runs in-process simulators of the endpoint's downstreams — the MindVault
// API (with its x402 paywall and an in-process facilitator), Stellar Horizon, Stellar RPC
// and the sponsored-account service — on loopback listeners (127.0.0.1 only).
// They are the offline demo (STELLAR_NETWORK=sandbox in the local build, see package local)
// and the integration test bed, so they speak the real wire formats: the product's clients
// run unchanged against them, and this package is the only place where downstreams are faked.
// Only local builds and tests link it; the deployed Lambda binary does not.
//
// It speaks each protocol through the product's own codec — ScVals with clients/soroban's
// helpers, x402 documents with clients/x402's wire types, the MindVault API's verification
// record with clients/mindvault's — and keeps its own model of each service: the contracts,
// their host-style argument checks and the API's documents the client reads only in part
// (catalog rows, /meta with its nulls). A shared codec is pinned by golden wire tests in its
// own package, since the sandbox's tests cannot catch a bug in it (docs/sandbox.md "What it
// shares with the product").
//
// State is seeded deterministically: keypairs derive from sha256("mindvault-sandbox/<name>"),
// the catalog and transactions are fixed, and the ledger sequence starts at 1000 when Start
// returns and advances one ledger every 5 s of (Options.Now) time. The chain part of it —
// the vault registry's storage, the accounts, their sequence numbers, XLM and USDC balances
// (shared by Horizon and RPC) and the transactions getTransaction knows — changes as
// sendTransaction applies invocations, as x402 payments settle, as the sponsored-account
// service creates accounts and as the API registers resources. The catalog changes through
// the API's publisher and paid routes.
//
// # Vault registry
//
// RegistryContract is an in-memory model of the vault-registry Soroban contract
// (the interface clients/registry calls), reached through real XDR: simulateTransaction
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
// the creator. A contract id that is neither the registry nor the USDC token fails with
// Error(Storage, MissingValue).
//
// sendTransaction checks what core checks before queueing and answers ERROR with
// errorResultXdr: txMALFORMED (not a v1 envelope with exactly one contract invocation, or no
// SorobanData), txNO_ACCOUNT (a source that is not a seeded account), txBAD_SEQ (sequence ≠ account's + 1),
// txINSUFFICIENT_FEE (fee < 100 + the resource fee), txBAD_AUTH (no valid ed25519 signature
// by the transaction's and operation's source over the network hash). Otherwise it answers
// PENDING, DUPLICATE while the same envelope is pending, or TRY_AGAIN_LATER while another
// transaction from the same account is (core queues one per account; this one is not
// accepted). So of many different envelopes on one sequence number sent at once, one is
// PENDING and the others TRY_AGAIN_LATER; once it has applied, the sequence number is used
// and each of them, sent again, is txBAD_SEQ. Every path that submits (sendTransaction, the
// API's registration, the facilitator's settlement) admits under the chain lock against the
// same per-account queue, so no two applied transactions share a source and sequence. An
// accepted transaction is applied 1 s (Options.Now) after it was sent, in the ledger current
// then; until then getTransaction says NOT_FOUND.
// Applying uses the sequence number and charges the fee even when the call fails: SUCCESS
// (txSUCCESS, meta v4 with the return value) or FAILED (txFAILED, InvokeHostFunction
// TRAPPED, diagnosticEventsXdr whose error event carries Error(Contract, #N) or a host
// error). A write whose operation carries no source-account auth entry for exactly its
// invocation fails with Error(Auth, InvalidAction); one of an unknown contract id with
// Error(Storage, MissingValue). Time bounds and XLM balances are not checked.
//
// The seeded registry holds the catalog's registered resources (creator = the publisher's
// wallet, price = the API price, an ipfs:// metadata pointer, listed, verified) and one
// resource only on chain, "chainonly" (creator, delisted); each has a signed seeded
// transaction. RegistryResource and RegistryIDs show the storage to tests.
//
// The API's catalog rows (GET /resources) and /meta carry the registry's current tags for
// the resource ([] when it is not on chain), so tag filters can be tried in the sandbox; the
// real API's rows carry none.
//
// # USDC token
//
// USDCContractID is a model of the Stellar Asset Contract of USDC:USDCIssuer. Its balances
// are the Horizon USDC trustline balances (one state, 7-decimal units); the issuer's balance
// is unlimited (it mints and burns); C addresses hold balances in contract storage.
//
//	balance(id: Address) -> I128       no trustline or no account: Error(Contract, #13)
//	transfer(from: Address, to: Address, amount: I128) -> Void     require_auth(from)
//	decimals() -> U32 7, name() -> String "USDC:<issuer>", symbol() -> String "USDC"
//
// transfer checks, in the SAC's order: amount < 0 #8 (NegativeAmount; 0 is allowed), the
// authorization of from, from's trustline or account #13, from's balance #10 (BalanceError),
// to's trustline #13 (and limit #10). simulateTransaction records when the operation carries
// no auth entries (or authMode is record): results[0].auth has one entry for from —
// SorobanCredentialsSourceAccount when from is the operation's source, otherwise
// SorobanCredentialsAddress with a random nonce, expiration 0 and a void signature, root
// invocation exactly the transfer. With entries attached it enforces, as sendTransaction does
// when it applies: the entry for from must have address credentials, a root invocation that
// is exactly the call, a signature Vec[Map{public_key: Bytes(32), signature: Bytes(64)}] whose
// key is from's and whose ed25519 signature verifies over sha256(HashIdPreimage
// ENVELOPE_TYPE_SOROBAN_AUTHORIZATION{network id, nonce, expiration, invocation})
// (Error(Crypto, InvalidInput) / Error(Auth, InvalidAction) otherwise), an expiration not
// before the ledger (Error(Auth, InvalidInput)) and a nonce with no live entry (Error(Auth,
// ExistingValue), "nonce already exists for address"); no auth is returned. A success has
// transactionData (the instance; the two trustlines and the nonce read-write),
// minResourceFee (a signed transfer stays below 50,000 stroops) and, in events, the transfer
// event: topics ["transfer", from, to, "USDC:<issuer>"], data the i128 amount. An applied
// transfer consumes the nonce, moves the balances (Horizon shows them) and carries the event
// in its meta. Fund credits USDC; USDCBalance reads it.
//
// A consumed nonce is what the host leaves on the network: a temporary ContractData entry of
// the authorizing address itself (an account's own ScAddress), key ScvLedgerKeyNonce{nonce},
// value Void, live until the signature's expiration ledger. While the ledger is at most that
// one the entry exists and any authorization with the nonce fails with Error(Auth,
// ExistingValue) — in enforcing simulation, in the facilitator's verification and
// settlement, and when a transaction applies; after it the entry is gone and the nonce may
// be signed and used again (the old signature has expired with it). getLedgerEntries answers
// that key kind: a live entry with lastModifiedLedgerSeq (the ledger that consumed it) and
// liveUntilLedgerSeq (the expiration), nothing for an unused or expired nonce, as the real
// server leaves out keys it does not find; a key of any other kind is invalid params (-32602),
// since the sandbox keeps no other entries to answer with; more than 200 keys, a key that is
// not LedgerKey XDR or a TTL key are invalid params as on the real server.
//
// # Paid routes (x402 v2, Stellar exact scheme)
//
// GET /resources/{id} and POST /verify-content answer, without PAYMENT-SIGNATURE, 402 with
// body {}, Cache-Control: no-store and PAYMENT-REQUIRED = base64(JSON{x402Version: 2, error:
// "Payment required", resource: {url, description, mimeType}, accepts: [{scheme: "exact",
// network: "stellar:testnet", amount: <7-decimal units>, asset: USDCContractID, payTo,
// maxTimeoutSeconds: 300, extra: {areFeesSponsored: true}}]}). GET /resources/{id} first
// answers 404 {"error":"Resource not found"} or {"error":"Resource not listed"}, and for a
// resource the API says is registered, 503 chain_unavailable when the registry lacks it and
// 409 price_mismatch when the on-chain price differs; payTo is the resource's wallet. Paid,
// a link answers 200 {url: externalUrl or accessUrl, receipt: {paymentId, amount, currency:
// "USDC", paidTo, paidAt}}; a file its bytes with its Content-Type (short text for
// text/markdown and text/plain, a small real PDF, ZIP or PNG; /meta announces their length
// as size) and X-Payment-Id, -Amount, -Recipient. Every settled purchase is recorded, and GET
// /buyers/{address}/payments answers a buyer's as a JSON array, newest first, of {paymentId,
// resourceId, title, amount, currency: "USDC", txHash, paidAt} ([] when there are none, 400
// {"error":"Invalid wallet address"} for something that is not a G address); Purchases
// shows the ledger to tests and FileContent the bytes a file purchase delivers. POST /verify-content costs the agent's fee (0.10) paid to the agent wallet;
// body {content, resourceId?} (strict); 200 {isOriginal, confidence, flags, usage}; content
// containing "copied" (any case) is not original. With resourceId it records the
// verification: verificationStatus verified or rejected, listed = isOriginal. As behind
// @x402/express, the payment is verified before the handler and settled only when it would
// answer 2xx: a 400 (bad body) or 404 (unknown resourceId) charges nothing.
//
// SetPrice changes a resource's price (the listed one and, when registered, the on-chain one
// with it); POST /sandbox/resources/{id}/price {"price": "2.5"} does the same for test
// clients outside the process. It is a control of the simulator, not a MindVault API route.
//
// Every success carries PAYMENT-RESPONSE = base64(JSON{success: true, transaction: <64-hex
// hash>, network, payer}). A refused payment answers 402 with PAYMENT-RESPONSE {success:
// false, errorReason, errorMessage, transaction: "", network, payer} and a fresh
// PAYMENT-REQUIRED whose error is the reason.
//
// The facilitator (Verify documents its rules in order) answers these reasons:
// invalid_payload, invalid_x402_version, unsupported_scheme, network_mismatch,
// invalid_network, invalid_payment_requirements (accepted ≠ the offer), and with the prefix
// invalid_exact_stellar_payload_: malformed, wrong_operation, unsafe_tx_or_op_source,
// wrong_asset, wrong_function_name, facilitator_is_payer, wrong_recipient, wrong_amount,
// no_auth_entries, unsupported_credential_type, facilitator_in_auth, has_subinvocations,
// missing_payer_signature (the payer's entry absent or void), unexpected_pending_signatures,
// fee_below_minimum, simulation_failed (a signature that does not verify, a key that is not
// the payer's, an expired signature, a consumed nonce, a missing trustline #13, ...);
// invalid_exact_stellar_signature_expiration_too_far (past latest + ceil(300/5) + 2);
// insufficient_funds (#10). Settlement re-verifies, then submits the client's operation, auth
// entries and sorobanData in a transaction sourced, sequenced, signed and paid by the
// facilitator account (Account("facilitator"); not in Accounts), checked like sendTransaction
// (while a transaction from the facilitator's account is queued, the settlement is refused
// as settle_exact_stellar_transaction_submission_failed "sendTransaction: TRY_AGAIN_LATER")
// and applied at once in the current ledger: the hash resolves with getTransaction SUCCESS,
// the balances move and the nonce is consumed, so a replay is simulation_failed while the
// nonce's entry lives. Verification, admission and application happen under one hold of the
// chain lock, so of any number of concurrent settlements of one authorization exactly one
// applies and each other is simulation_failed with Error(Auth, ExistingValue).
//
// # Publisher routes
//
// POST /publishers {name, email, walletAddress} (strict) → 201 {id, name, email,
// walletAddress, apiKey: "mv_" + 64 hex, createdAt}; 409 {"error":"Email already
// registered"} (case-insensitive). Bodies are validated like the server's zod schemas: 400
// {"error": {"_errors": [...], "<field>": {"_errors": ["Required" | "Invalid email" | ...]}}}.
// The seeded publishers are "Demo Publisher" (Demo's wallet, demo@mindvault.example, key
// DemoAPIKey) and "Northwind Labs" (creator, hello@northwind.example). Routes with x-api-key
// answer 401 "Missing x-api-key header" or "Invalid API key".
//
// POST /resources {title, description?, price, walletAddress?, externalUrl} (strict) → 201
// the resource (id: "r" + 16 hex, verificationStatus pending, listed false, onchainStatus
// none, resourceType link, walletAddress defaulting to the publisher's). CreatedResources
// counts the resources it created.
//
// Idempotency-Key on POST /resources is kept per publisher (API key) for 24 h (Options.Now)
// from its first use. Authentication and body validation come first: a 401 or 400 claims
// nothing. A key not in use (or older than 24 h) is claimed by the request, which creates
// the resource and keeps its answer. A key whose request completed answers that first
// answer again, byte for byte (201 with the same resource id, as it was then), and creates
// nothing. A key whose request is still in progress answers 409 {"error":"Idempotent request
// already in progress"}. A key used with a different request (other validated fields; order
// and spacing do not count) answers 422 {"error":"Idempotency-Key reused with a different
// request"}, in progress or completed. A delay fault stalls a keyed request after it has
// claimed the key, so the key is in progress for the stall; the creation completes even when
// the client gives up (the stall then ends), as a real server finishes its work, so the
// client's retry with the key receives the resource. Without the header nothing changes: a
// delay fault stalls before the route, and each request creates a resource.
//
// GET /resources/{id}/register/prepare → {unsignedXdr, networkPassphrase, metadata:
// {resourceId, creator, price, title, description}}: register(wallet, id, price units,
// ipfs:// pointer, []) from the resource's wallet with its next sequence number, already
// assembled (footprint, source-account auth, fee = 100 + resource fee); the wallet only
// signs. POST /resources/{id}/register {signedXdr} submits it with sendTransaction's checks
// and applies it at once → 200 {id, onchainStatus: "registered", txHash}; without a body the
// server registers with the wallet's own key (sandbox wallets only). Both answer 404, 403
// "Forbidden: you do not own this resource", 400 "Resource must be verified before
// registering on-chain", 409 {"error":"Resource is already registered on-chain",
// onchainTxHash} or 409 "Registration already in progress" (while the pending registration's
// transaction is still on the network; one the network never received, like the seeded
// agentpromptpack's, has expired and may be registered again), and 502 {error: "On-chain
// registration failed", detail, message, nextSteps, retryEndpoint, retryable, txHash?} when
// the submission is refused (detail "sendTransaction: ERROR txBadAuth") or fails. /meta's
// onchainStatus and onchainTxHash follow (failed when the submission failed on chain or the
// server could not sign), and the registry entry is marked verified.
//
// # Sponsored-account service
//
// SponsorURL: POST /create creates an account in the shared ledger — 0 XLM, its two base
// reserves and its USDC trustline sponsored by the "sponsor" account (num_sponsored 3) — and,
// like a testnet faucet, credits it with FaucetUSDC (100) test USDC minted by the issuer
// (SetFaucet changes the amount; 0 leaves the trustline empty). With a body {"publicKey":
// "G..."} it creates that account, whose key only the caller holds, and answers 200 {publicKey}
// (400 "Account already exists" or "Invalid public key"); without one it generates a random key
// pair and answers 200 {publicKey, secretKey}. Either answer carries {funding: {asset: "USDC",
// issuer, amount: "100.0000000", note}} when the faucet credited anything. SponsoredAccounts
// counts the accounts created. GET /health answers 200 {status: "ok", sponsor, numSponsoring,
// faucetUsdc} and creates nothing. Other paths 404, other methods 405, {"error": "..."} bodies.
//
// # Fault plan
//
// A fault plan (MINDVAULT_SANDBOX_FAULTS, Options.Faults, SetFaults) makes a downstream fail
// on demand, so every failure category of the error taxonomy can be produced. Rules are
// separated by ';'; each rule is a ','-separated list of key=value pairs (whitespace around
// tokens is ignored):
//
//	service=api|horizon|rpc|sponsor  required
//	target=...                  HTTP: "METHOD /path", * matching one path segment (the method
//	                            may be * too); RPC: a JSON-RPC method name; * (default) = all
//	kind=...                    required, one of:
//	  status     status=N, optional body=<text> sent as is. Default body: API {"error":"..."}
//	             (429: {"error":"Too many requests","code":"RATE_LIMITED","retryAfterSeconds":S});
//	             sponsor {"error":"..."};
//	             Horizon a problem+json document of the right type for N; RPC (where status is
//	             an HTTP status, as gateways send) a plain-text line
//	  html       status=N, an nginx-style HTML error page (or body=)
//	  empty      status=N, no body at all
//	  malformed  HTTP 200 with JSON of the wrong shape for that route (an object where the
//	             catalog array belongs, a balances field that is a string, an RPC result of
//	             the wrong type); body= overrides it
//	  rpcerror   rpc only: code=N, optional message=..., a JSON-RPC error object with HTTP 200
//	  delay      delay=<Go duration>: stall that long, then answer normally; the stall ends
//	             early when the client gives up, freeing the handler. API: a POST /resources
//	             with an Idempotency-Key stalls after claiming the key, and creates anyway
//	             (see Publisher routes)
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
//	  The custody kinds (sponsor only, target POST /create, the default) create the account,
//	  but not one whose key only the caller holds:
//	  ownkey     ignore the requested publicKey: generate a key pair and answer {publicKey,
//	             secretKey}, as without a body
//	  cosigner   add a second signer of weight 1 that the service keeps (a random key, its
//	             reserve sponsored too); Horizon lists it before the master key
//	count=N                     affect N matching requests, then the rule is spent (default: all)
//	retry-after=S               send Retry-After: S (seconds or an HTTP date)
//	header=Name:Value           one extra response header; may repeat
//	paid=true|false             api only: match only requests that carry PAYMENT-SIGNATURE
//	                            (true: the paid retry) or only those that do not (false)
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
//	service=api,target=GET /resources/*,kind=status,status=503,paid=true,count=1
//	service=api,target=POST /verify-content,kind=drop,paid=true
//	service=sponsor,target=POST /create,kind=status,status=429,retry-after=5
//	service=sponsor,kind=cosigner,count=1
//
// A value that must contain ',' or ';' cannot use this syntax; the whole plan may then be a
// JSON array of objects with the same keys (numbers may be JSON numbers, header a string or
// an array of strings):
//
//	[{"service":"api","target":"GET /resources","kind":"status","status":500,"body":"{\"error\":\"a, b\"}"}]
//
// An invalid plan is an error naming the rule and the key. Count reports the requests a
// service (api, horizon, rpc, sponsor) has seen per target pattern (same matching), faulted
// or not; GET /resources/* counts unpaid and paid purchases alike. PaidRequests counts the API
// requests that carried PAYMENT-SIGNATURE, so a test can assert that no payment was sent, or
// that it was sent exactly once. A faulted paid request is not settled.
//
// Note for drop: Go's http.Transport silently resends an idempotent request (GET, or one
// with an Idempotency-Key) once when a reused keep-alive connection closes before any
// response byte, so with count=1 such a client may see success on its second try, which is
// also what happens against a real server. Use count=2 or more (or no count) to make the
// drop visible to a client that reuses connections.
package sandbox
