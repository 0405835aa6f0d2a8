#!/usr/bin/env bash
# make bench: measure, never assert. Runs the handler benchmarks (ours beside the official Go
# SDK peer and a null handler) into test/bench/out.txt, benchstat when it installs, then
# test/bench/cmd/benchreport for cold start (beside a trivial handler on the same runtime path,
# test/bench/cmd/floor, and locally the Go SDK peer and the null net/http handler), binary size by
# package (and the peer's arm64 size), what ours and the peer answer on the 2026-07-28 era,
# downstream round trips and a bounded loopback load (ours, the Go SDK peer and the
# null handler, each its own process), and writes test/bench/RESULTS.md with the targets in its
# headline and test/bench/notes.md appended. Every binary is built with the Makefile's LAMBDA_FLAGS.
# Everything binds 127.0.0.1 and stops by itself; the whole run takes about 4-5 minutes on 2
# cores.
#
# Knobs (environment): BENCH_COUNT (5), BENCH_TIME (1s), COLD_N (31), LOAD_DURATION (5s),
# LOAD_MAX (20000), LOAD_CLIENTS (2).
set -euo pipefail

cd "$(dirname "$0")/../.."
ROOT=$PWD
GO=${GO:-go}
TOOLS=$ROOT/.tools
RIE=$TOOLS/bin/aws-lambda-rie
RIE_VERSION=v0.0.0-20261030222936-bef5c4ba774d                     # as in the Makefile
BENCHSTAT_VERSION=v0.0.0-20260908200009-22c9c6c9d4da               # golang.org/x/perf
BENCH_COUNT=${BENCH_COUNT:-5}
BENCH_TIME=${BENCH_TIME:-1s}
COLD_N=${COLD_N:-31}
LOAD_DURATION=${LOAD_DURATION:-5s}
LOAD_MAX=${LOAD_MAX:-20000}
LOAD_CLIENTS=${LOAD_CLIENTS:-2}

# The Makefile's LAMBDA_FLAGS, so build tags added there reach every binary measured here. Make
# expands them (they refer to other variables, e.g. $(LAMBDA_GCFLAGS)), so when this script runs
# alone it asks make for them instead of reading the Makefile's text. They are shell words
# (-ldflags='-s -w'): split them as the shell would.
LAMBDA_FLAGS=${LAMBDA_FLAGS:-$(make -s --no-print-directory print-lambda-flags)}
[ -n "$LAMBDA_FLAGS" ] || { echo "run.sh: no LAMBDA_FLAGS in the environment or from make print-lambda-flags" >&2; exit 2; }
eval "lambda_flags=($LAMBDA_FLAGS)"
# The same flags keeping the symbol table: -s dropped from -ldflags, whichever form it takes.
symbol_flags=()
next_is_ldflags=
for f in "${lambda_flags[@]}"; do
	if [ -n "$next_is_ldflags" ]; then
		f=$(tr ' ' '\n' <<<"$f" | grep -vx -- '-s' | paste -sd' ')
		next_is_ldflags=
	elif [ "$f" = -ldflags ]; then
		next_is_ldflags=1
	elif [[ $f == -ldflags=* ]]; then
		f=-ldflags=$(tr ' ' '\n' <<<"${f#-ldflags=}" | grep -vx -- '-s' | paste -sd' ')
	fi
	symbol_flags+=("$f")
done

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

step "builds (LAMBDA_FLAGS: $LAMBDA_FLAGS)"
# The host bootstrap with the Lambda flags (what make build-host builds), in a private
# folder so a concurrent make build-host cannot swap it mid-measurement.
CGO_ENABLED=0 $GO build "${lambda_flags[@]}" -o "$work/bootstrap" ./functions/mcp
# The floors and the peer, built the same way so that only the code differs: the trivial
# aws-lambda-go handler, the null net/http handler and the Go SDK peer.
for cmd in floor null peer; do
	CGO_ENABLED=0 $GO build "${lambda_flags[@]}" -o "$work/$cmd" "./test/bench/cmd/$cmd"
done
# The deployed artifact, for its size; the same build with its symbol table and its package
# list, for the size by package.
CGO_ENABLED=0 GOOS=linux GOARCH=arm64 $GO build "${lambda_flags[@]}" -o "$work/bootstrap-arm64" ./functions/mcp
CGO_ENABLED=0 GOOS=linux GOARCH=arm64 $GO build "${symbol_flags[@]}" -o "$work/bootstrap-arm64-syms" ./functions/mcp
# The Go SDK peer for the same target with the same flags: what a server on the SDK alone weighs.
CGO_ENABLED=0 GOOS=linux GOARCH=arm64 $GO build "${lambda_flags[@]}" -o "$work/peer-arm64" ./test/bench/cmd/peer
CGO_ENABLED=0 GOOS=linux GOARCH=arm64 $GO list -deps "${lambda_flags[@]}" \
	-f '{{.ImportPath}}{{"\t"}}{{if .Module}}{{.Module.Path}}{{else}}std{{end}}' ./functions/mcp > "$work/arm64-packages.txt"
$GO build -o "$work/benchreport" ./test/bench/cmd/benchreport

BENCH_CMD="$GO test -run '^\$' -bench . -benchmem -count $BENCH_COUNT -benchtime $BENCH_TIME ./test/bench/"
step "handler benchmarks: $BENCH_CMD > test/bench/out.txt"
$GO test -run '^$' -bench . -benchmem -count "$BENCH_COUNT" -benchtime "$BENCH_TIME" ./test/bench/ > test/bench/out.txt
grep -E '^(Benchmark|ok|PASS|FAIL)' test/bench/out.txt | tail -n 12

stat_args=()
if [ -x "$BENCHSTAT" ]; then
	"$BENCHSTAT" -col /impl test/bench/out.txt > test/bench/benchstat.txt
	stat_args=(-benchstat test/bench/benchstat.txt)
fi

step "cold start, sizes, round trips, load"
"$work/benchreport" \
	-bench-out test/bench/out.txt "${stat_args[@]}" -out test/bench/RESULTS.md -loadavg-before "$loadavg_before" \
	-command "make bench  →  $BENCH_CMD; test/bench/cmd/benchreport -cold-n $COLD_N -clients $LOAD_CLIENTS -load-duration $LOAD_DURATION -load-max $LOAD_MAX" \
	-rie "$RIE" -bootstrap "$work/bootstrap" -arm64 "$work/bootstrap-arm64" -arm64-syms "$work/bootstrap-arm64-syms" \
	-floor "$work/floor" -null "$work/null" -peer "$work/peer" -peer-arm64 "$work/peer-arm64" -go "$GO" -event events/tools-list-legacy.json \
	-pkg-list "$work/arm64-packages.txt" -lambda-flags "$LAMBDA_FLAGS" \
	-cold-n "$COLD_N" -clients "$LOAD_CLIENTS" -load-duration "$LOAD_DURATION" -load-max "$LOAD_MAX" \
	2> >(tee test/bench/measure.txt >&2)

step "done: test/bench/RESULTS.md (raw: test/bench/out.txt, test/bench/benchstat.txt, test/bench/measure.txt)"
