#!/usr/bin/env bash
# estimate.sh STEP: one phrase saying how long a long step of `make run` or `make test` takes
# on this machine's caches, for progress.sh to print. The caches decide it: with the Go module
# cache empty every module is downloaded first, and with the build cache cold the Stellar SDK's
# xdr package alone takes minutes to compile on 2 cores; warm, the same step is a link.
# STEP lambda checks the cache for the deployed flags (LAMBDA_FLAGS in the environment): they
# compile the SDKs apart from the ordinary build, so a warm `make run` can leave them cold.
# The numbers were measured on a shared 2-core machine, cold and warm (docs/operations.md "How
# long things take"); a busier machine is slower.
set -u
step=${1:-}
GO=${GO:-go}
flags=()
if [ "$step" = lambda ] && [ -n "${LAMBDA_FLAGS:-}" ]; then
  eval "flags=($LAMBDA_FLAGS)"
fi
state=warm
# GOPROXY=off: asking must never download; an error means the module is not in the cache.
dir=$(GOPROXY=off GOFLAGS=-mod=readonly "$GO" list -m -f '{{.Dir}}' github.com/stellar/go-stellar-sdk 2>/dev/null || true)
if [ -z "$dir" ] || [ ! -d "$dir" ]; then
  state=cold-modules
elif [ "$(GOPROXY=off "$GO" list "${flags[@]}" -f '{{.Stale}}' github.com/stellar/go-stellar-sdk/xdr 2>/dev/null)" != false ]; then
  state=cold
fi
case "$step:$state" in
  build:cold-modules) echo "cold caches: downloading the modules, then compiling the Stellar SDK; about 4-5 minutes on 2 cores" ;;
  build:cold)         echo "cold build cache: compiling the Stellar SDK once; about 4 minutes on 2 cores" ;;
  build:warm)         echo "warm cache: a few seconds, 10-30 s to relink after a change" ;;
  vet:cold-modules)   echo "cold caches: downloading every module, then type-checking every package; about 7-9 minutes on 2 cores" ;;
  vet:cold)           echo "cold build cache: type-checking every package; about 7-9 minutes on 2 cores" ;;
  vet:warm)           echo "warm cache: a few seconds, up to 2.5 minutes after many changes" ;;
  test:cold*)         echo "cold build cache: compiling every test binary, then the tests; about 4-6 minutes on 2 cores (test/e2e is the longest and reports near the end)" ;;
  test:warm)          echo "warm cache: about 1.5-3.5 minutes, the upper end when the test binaries are not compiled yet (test/e2e is the longest and reports near the end)" ;;
  lambda:cold*)       echo "cold for the deployed flags: compiling the SDKs without inlining; about 2.5-3 minutes on 2 cores" ;;
  lambda:warm)        echo "warm cache: a few seconds, about 30 s to relink after a change" ;;
  *)                  echo "cache $state" ;;
esac
