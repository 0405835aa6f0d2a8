#!/usr/bin/env bash
# make bench: measure, never assert. Runs the handler benchmarks (ours beside the official Go
# SDK peer and a null handler) into bench/out.txt, benchstat when it installs, then
# bench/cmd/benchreport for cold start (beside a trivial handler on the same runtime path,
# bench/cmd/floor), binary size by module, downstream round trips and a bounded loopback load
# (ours, the Go SDK peer and the null handler, each its own process), and writes
# bench/RESULTS.md with the targets in its headline. Everything binds 127.0.0.1 and stops by
# itself; the whole run takes about 3-4 minutes on 2 cores.
#
# Knobs (environment): BENCH_COUNT (5), BENCH_TIME (1s), COLD_N (15), LOAD_DURATION (5s),
# LOAD_MAX (20000), LOAD_CLIENTS (2).
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$PWD
GO=${GO:-go}
TOOLS=$ROOT/.tools
RIE=$TOOLS/bin/aws-lambda-rie
RIE_VERSION=v0.0.0-20261030222936-bef5c4ba774d                     # as in the Makefile
BENCHSTAT_VERSION=v0.0.0-20260908200009-22c9c6c9d4da               # golang.org/x/perf
BENCH_COUNT=${BENCH_COUNT:-5}
BENCH_TIME=${BENCH_TIME:-1s}
COLD_N=${COLD_N:-15}
LOAD_DURATION=${LOAD_DURATION:-5s}
LOAD_MAX=${LOAD_MAX:-20000}
LOAD_CLIENTS=${LOAD_CLIENTS:-2}

start=$(date +%s)
loadavg_before=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || true) # before this run's own builds
work=$(mktemp -d "${TMPDIR:-/tmp}/mindvault-bench-XXXXXX")
trap 'rm -rf "$work"' EXIT

step() { echo "== $* ($(($(date +%s) - start))s)"; }

step "tools"
mkdir -p "$TOOLS/bin"
if [ ! -x "$RIE" ]; then
	CGO_ENABLED=0 GOBIN=$TOOLS/bin $GO install -trimpath -ldflags='-s -w' \
		"github.com/aws/aws-lambda-runtime-interface-emulator/cmd/aws-lambda-rie@$RIE_VERSION"
fi
BENCHSTAT=$TOOLS/bin/benchstat
if [ ! -x "$BENCHSTAT" ]; then
	# Its own module at a pinned version: never a go.mod dependency of the endpoint.
	GOBIN=$TOOLS/bin $GO install "golang.org/x/perf/cmd/benchstat@$BENCHSTAT_VERSION" ||
		echo "benchstat did not install; RESULTS.md will have the medians only"
fi

step "builds"
# The host bootstrap with the Lambda flags (what make build-host builds), in a private
# folder so a concurrent make build-host cannot swap it mid-measurement.
CGO_ENABLED=0 $GO build -tags lambda.norpc -trimpath -ldflags='-s -w' -o "$work/bootstrap" ./functions/mcp
# The trivial handler the cold start is compared with, built the same way.
CGO_ENABLED=0 $GO build -tags lambda.norpc -trimpath -ldflags='-s -w' -o "$work/floor" ./bench/cmd/floor
# The deployed artifact, for its size, and the same build with its symbol table, for the size by module.
CGO_ENABLED=0 GOOS=linux GOARCH=arm64 $GO build -tags lambda.norpc -trimpath -ldflags='-s -w' -o "$work/bootstrap-arm64" ./functions/mcp
CGO_ENABLED=0 GOOS=linux GOARCH=arm64 $GO build -tags lambda.norpc -trimpath -ldflags='-w' -o "$work/bootstrap-arm64-syms" ./functions/mcp
$GO build -o "$work/peer" ./bench/cmd/peer
$GO build -o "$work/benchreport" ./bench/cmd/benchreport

BENCH_CMD="$GO test -run '^\$' -bench . -benchmem -count $BENCH_COUNT -benchtime $BENCH_TIME ./bench/"
step "handler benchmarks: $BENCH_CMD > bench/out.txt"
$GO test -run '^$' -bench . -benchmem -count "$BENCH_COUNT" -benchtime "$BENCH_TIME" ./bench/ > bench/out.txt
grep -E '^(Benchmark|ok|PASS|FAIL)' bench/out.txt | tail -n 12

stat_args=()
if [ -x "$BENCHSTAT" ]; then
	"$BENCHSTAT" -col /impl bench/out.txt > bench/benchstat.txt
	stat_args=(-benchstat bench/benchstat.txt)
fi

step "cold start, sizes, round trips, load"
"$work/benchreport" \
	-bench-out bench/out.txt "${stat_args[@]}" -out bench/RESULTS.md -loadavg-before "$loadavg_before" \
	-command "make bench  →  $BENCH_CMD; bench/cmd/benchreport -cold-n $COLD_N -clients $LOAD_CLIENTS -load-duration $LOAD_DURATION -load-max $LOAD_MAX" \
	-rie "$RIE" -bootstrap "$work/bootstrap" -arm64 "$work/bootstrap-arm64" -arm64-syms "$work/bootstrap-arm64-syms" \
	-floor "$work/floor" -peer "$work/peer" -go "$GO" -event events/tools-list-legacy.json \
	-cold-n "$COLD_N" -clients "$LOAD_CLIENTS" -load-duration "$LOAD_DURATION" -load-max "$LOAD_MAX" \
	2> >(tee bench/measure.txt >&2)

step "done: bench/RESULTS.md (raw: bench/out.txt, bench/benchstat.txt, bench/measure.txt)"
