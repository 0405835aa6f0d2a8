#!/usr/bin/env bash
# estimate.sh STEP: one phrase saying how long a long step of `make run` or `make test` takes
# on this machine's caches, for progress.sh to print. The caches decide it: with the Go module
# cache empty every module is downloaded first, and with the build cache cold the Stellar SDK's
# xdr package alone takes minutes to compile on 2 cores; warm, the same step is a link.
# The numbers are measured on a shared 2-core machine (docs/operations.md "How long things
# take"); a busier machine is slower.
set -u
step=${1:-}
GO=${GO:-go}
state=warm
# GOPROXY=off: asking must never download; an error means the module is not in the cache.
dir=$(GOPROXY=off GOFLAGS=-mod=readonly "$GO" list -m -f '{{.Dir}}' github.com/stellar/go-stellar-sdk 2>/dev/null || true)
if [ -z "$dir" ] || [ ! -d "$dir" ]; then
  state=cold-modules
elif [ "$(GOPROXY=off "$GO" list -f '{{.Stale}}' github.com/stellar/go-stellar-sdk/xdr 2>/dev/null)" != false ]; then
  state=cold
fi
case "$step:$state" in
  build:cold-modules) echo "cold caches: downloading the modules, then compiling the Stellar SDK; about 4-5 minutes on 2 cores" ;;
  build:cold)         echo "cold build cache: compiling the Stellar SDK once; about 4 minutes on 2 cores" ;;
  build:warm)         echo "warm cache: about 10-30 s" ;;
  vet:cold-modules)   echo "cold caches: downloading the test modules and type-checking every package; about 7 minutes on 2 cores" ;;
  vet:cold)           echo "cold build cache: type-checking every package; about 6-7 minutes on 2 cores" ;;
  vet:warm)           echo "warm cache: about 20 s to 2.5 minutes, depending on how much changed" ;;
  test:cold*)         echo "cold build cache: compiling every test binary, then the tests; about 3-4 minutes on 2 cores (test/e2e is the longest and reports near the end)" ;;
  test:warm)          echo "warm cache: about 1.5-3 minutes (test/e2e is the longest and reports near the end)" ;;
  lambda:cold*)       echo "cold build cache: the bootstrap with the deployed flags and the emulator; about 2-3 minutes on 2 cores" ;;
  lambda:warm)        echo "warm cache: about 30-60 s" ;;
  *)                  echo "cache $state" ;;
esac
