// Package sandbox runs in-process simulators of the endpoint's three downstreams — the
// MindVault API, Stellar Horizon and Stellar RPC — on loopback listeners (127.0.0.1 only).
// They are the offline demo (STELLAR_NETWORK=sandbox) and the integration test bed, so they
// speak the real wire formats: the product's clients run unchanged against them, and this
// package is the only place where downstreams are faked.
//
// State is seeded deterministically: keypairs derive from sha256("mindvault-sandbox/<name>"),
// the catalog and transactions are fixed, and the ledger sequence starts at 1000 when Start
// returns and advances one ledger every 5 s of (Options.Now) time.
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
