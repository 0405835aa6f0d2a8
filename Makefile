# MindVault MCP endpoint. `make run` serves it locally; `make test` is everything CI runs.
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
GO ?= go

# The repository root is where this Makefile lives, not the directory make runs in: `sam build`
# runs `make --makefile <repo>/Makefile build-McpFunction` from a scratch copy of CodeUri.
ROOT         := $(patsubst %/,%,$(dir $(abspath $(firstword $(MAKEFILE_LIST)))))
TOOLS        := $(ROOT)/.tools
BIN          := $(ROOT)/bin
RIE_VERSION  := v0.0.0-20261030222936-bef5c4ba774d
RIE          := $(TOOLS)/bin/aws-lambda-rie
# MINDVAULT_ADDR in the environment is honoured, as docs/operations.md says; ADDR= on the command line wins.
ADDR         ?= $(or $(MINDVAULT_ADDR),127.0.0.1:8080)
FUZZTIME     ?= 30s
# Long steps say what they do, how long they should take on this machine's caches (cold or
# warm), and print a line with the elapsed time every 15 s while they run (infra/progress.sh).
PROGRESS     := bash $(ROOT)/infra/progress.sh
ESTIMATE     := GO=$(GO) bash $(ROOT)/infra/estimate.sh
# The deployed binary's flags (docs/operations.md "Binary size"). validator_novalidatefn drops
# validator's one MethodByName call, which otherwise keeps every exported method of every type
# alive (all of the Stellar xdr package): 3.4 MB of the arm64 binary; registration refuses the
# validateFn rule it removes. -l compiles the Stellar SDK, the AWS SDK, the downstream
# clients, the tool handlers, the ledger, the credential stores, the confirmation and the
# configuration without inlining: about 0.5 MB less code on paths that run a few times per tool
# call, next to network round trips, per secret read or once at start; the per-request path
# (protocol, validation, redaction, auth) keeps it.
LAMBDA_GCFLAGS := -gcflags='github.com/stellar/...=-l' -gcflags='github.com/aws/aws-sdk-go-v2/...=-l' -gcflags='github.com/aws/smithy-go/...=-l' -gcflags='github.com/mindvault/mcp-endpoint/internal/clients/...=-l' -gcflags='github.com/mindvault/mcp-endpoint/internal/tools/...=-l' -gcflags='github.com/mindvault/mcp-endpoint/internal/ledger/...=-l' -gcflags='github.com/mindvault/mcp-endpoint/internal/credentials/...=-l' -gcflags='github.com/mindvault/mcp-endpoint/internal/confirm/...=-l' -gcflags='github.com/mindvault/mcp-endpoint/internal/config/...=-l'
LAMBDA_FLAGS := -tags lambda.norpc,validator_novalidatefn -trimpath -ldflags='-s -w' $(LAMBDA_GCFLAGS)

.PHONY: print-lambda-flags docs run sandbox spending-pause spending-resume spending-status test check unit dynalite test-lambda test-template test-conformance build build-host invoke bench fuzz deploy deploy-check clean build-McpFunction

## run: serve the endpoint on http://$(ADDR)/mcp (the local build, on the offline sandbox by default)
run:
	@$(PROGRESS) "building bin/mindvault-local" "$$($(ESTIMATE) build)" -- $(GO) build -o $(BIN)/mindvault-local ./cmd/mindvault-local
	@# The binary prints the banner (the URL, the network, how to connect) once it has accepted the
	@# configuration and bound the address; a configuration it cannot serve is one line and exit 2.
	@STELLAR_NETWORK=$${STELLAR_NETWORK:-sandbox} MINDVAULT_ADDR=$(ADDR) exec $(BIN)/mindvault-local

## spending-pause, spending-resume, spending-status: pause, resume or show all spending of the deployment whose ledger the environment names (MINDVAULT_LEDGER, MINDVAULT_LEDGER_ENDPOINT, AWS_REGION, AWS_PROFILE; MINDVAULT_PAUSE_FILE with the memory ledger)
define spending
@$(PROGRESS) "building bin/mindvault-local" "$$($(ESTIMATE) build)" -- $(GO) build -o $(BIN)/mindvault-local ./cmd/mindvault-local
@$(BIN)/mindvault-local spending $(patsubst spending-%,%,$@)
endef
spending-pause:
	$(spending)
spending-resume:
	$(spending)
spending-status:
	$(spending)

## sandbox: serve the sandbox simulators alone on loopback and print the environment that points the Lambda binary at them
sandbox:
	@$(PROGRESS) "building bin/mindvault-local" "$$($(ESTIMATE) build)" -- $(GO) build -o $(BIN)/mindvault-local ./cmd/mindvault-local
	@exec $(BIN)/mindvault-local -sandbox

## test: everything CI runs
# Each step says what it does and how long it took; the steps run in this order and stop at
# the first failure.
TEST_STEPS := check:formatting,vet,tidy unit:unit_and_integration_tests test-lambda:Lambda_events_through_the_emulator test-conformance:MCP_conformance_suite_and_client_smoke_tests
test:
	@start=$$(date +%s); for s in $(TEST_STEPS); do \
	  target=$${s%%:*}; what=$${s#*:}; t0=$$(date +%s); \
	  echo "== make test: $$target ($${what//_/ })"; \
	  $(MAKE) --no-print-directory $$target || { echo "== make test: $$target FAILED after $$(( $$(date +%s) - t0 )) s"; exit 1; }; \
	  echo "== make test: $$target done in $$(( $$(date +%s) - t0 )) s"; \
	done; echo "make test: all steps passed in $$(( $$(date +%s) - start )) s"

# gofmt, go vet, and go.mod/go.sum as `go mod tidy` would leave them. vet runs without the
# tag node (what `go test ./...` compiles on a machine without Node) and with it (the files
# that need Node too: docs/operations.md "Tests").
check:
	@out=$$(gofmt -l . | grep -v '^.tools/' || true); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	@$(PROGRESS) "go vet ./..." "$$($(ESTIMATE) vet)" -- $(GO) vet ./...
	@$(PROGRESS) "go vet -tags node ./..." "a few seconds after the first" -- $(GO) vet -tags node ./...
	@$(GO) mod tidy -diff || { echo "go.mod/go.sum are not tidy: run go mod tidy and commit the result" >&2; exit 1; }

# Unit and integration tests, fuzz seed corpora, the template check (infra) included, and,
# through the tag node, the tests that need Node (dynalite: docs/operations.md "Tests").
unit: dynalite
	@$(PROGRESS) "go test -tags node ./... (test/e2e, the endpoint through the wire against the sandbox, is the longest)" "$$($(ESTIMATE) test)" -- $(GO) test -count=1 -tags node ./...

## dynalite: install the DynamoDB-compatible server the tests under the tag node start (internal/ledger, test/e2e)
# Pinned by its package-lock.json and installed beside it; npm ci runs again only when
# node_modules is missing or older than package.json or the lock file.
DYNALITE_DIR := $(ROOT)/internal/ledger/testdata/dynalite
dynalite: $(DYNALITE_DIR)/node_modules/.package-lock.json

$(DYNALITE_DIR)/node_modules/.package-lock.json: $(DYNALITE_DIR)/package.json $(DYNALITE_DIR)/package-lock.json
	@command -v npm >/dev/null || { echo "make dynalite: npm not found (Node 20 or later with npm installs dynalite for the tests under the tag node: internal/ledger, test/e2e)" >&2; exit 1; }
	@$(PROGRESS) "npm ci (dynalite, for the tests under the tag node)" "a few seconds from npm's cache, up to a minute without it" -- npm ci --prefix $(DYNALITE_DIR) --no-audit --no-fund
	@touch $@

test-template:
	$(GO) test -count=1 -run Template ./infra/

## build-host: the bootstrap for this machine, used by the emulator
build-host:
	@$(PROGRESS) "building bin/bootstrap with the deployed flags" "$$(LAMBDA_FLAGS="$(LAMBDA_FLAGS)" $(ESTIMATE) lambda)" -- env CGO_ENABLED=0 $(GO) build $(LAMBDA_FLAGS) -o $(BIN)/bootstrap ./functions/mcp

$(RIE):
	@$(PROGRESS) "installing the Lambda Runtime Interface Emulator into .tools/" "once: about 30-60 s" -- env CGO_ENABLED=0 GOBIN=$(TOOLS)/bin $(GO) install -trimpath -ldflags='-s -w' github.com/aws/aws-lambda-runtime-interface-emulator/cmd/aws-lambda-rie@$(RIE_VERSION)

## test-lambda: every events/*.json through the Lambda Runtime Interface Emulator, against goldens
AUTH_EVENT_TOKENS := 0582d1b6b444d51fc3448383b0adb43ba6fa34759495fb30b880e9609480aa98:alice
OAUTH_EVENT_RESOURCE := https://abcdefghijklmnopqrstuvwxyz012345.lambda-url.us-east-1.on.aws/mcp

test-lambda: build-host $(RIE)
	@$(PROGRESS) "events/*.json through the emulator" "about 10-60 s" -- $(GO) run ./infra/invoke -rie $(RIE) -bootstrap $(BIN)/bootstrap -events events -golden events/golden
	@# The same function with inbound auth on (the Lambda default): sha256("alice-event-token") bound to alice.
	@$(PROGRESS) "events/auth/*.json through the emulator" "about 10-60 s" -- $(GO) run ./infra/invoke -rie $(RIE) -bootstrap $(BIN)/bootstrap -events events/auth -golden events/auth/golden \
	  -env MINDVAULT_AUTH=tokens -env MINDVAULT_ACCESS_TOKENS=$(AUTH_EVENT_TOKENS)
	@# OAuth mode: the harness runs a loopback issuer, mints the tokens the events name and checks the
	@# function fetched the issuer's keys once across the warm invocations and logged no token.
	@$(PROGRESS) "events/oauth/*.json through the emulator" "about 10-60 s" -- $(GO) run ./infra/invoke -rie $(RIE) -bootstrap $(BIN)/bootstrap -events events/oauth -golden events/oauth/golden \
	  -oauth-tokens events/oauth/issuer/tokens.json -oauth-jwks-fetches 1 -env MINDVAULT_RESOURCE_URL=$(OAUTH_EVENT_RESOURCE)
	@# The deployed binary has no sandbox: STELLAR_NETWORK=sandbox is a -32603 naming the variable.
	@$(PROGRESS) "events/no-sandbox/*.json through the emulator" "about 10-60 s" -- $(GO) run ./infra/invoke -rie $(RIE) -bootstrap $(BIN)/bootstrap -events events/no-sandbox -golden events/no-sandbox/golden \
	  -env STELLAR_NETWORK=sandbox

## invoke: one event through the emulator, printing the response (make invoke EVENT=events/x.json [SANDBOX=1])
# The argument is checked before anything is built, so a typo costs no compile. SANDBOX=1 starts
# the sandbox simulators and points the real bootstrap at them (testnet settings, demo profile).
invoke:
	@test -n "$(EVENT)" || { echo "usage: make invoke EVENT=events/<name>.json [SANDBOX=1] (an event file, or a folder of them)" >&2; exit 2; }
	@test -e "$(EVENT)" || { echo "make invoke: $(EVENT) does not exist; the events are in events/" >&2; exit 2; }
	@$(MAKE) --no-print-directory build-host $(RIE)
	$(GO) run ./infra/invoke -rie $(RIE) -bootstrap $(BIN)/bootstrap -events $(EVENT) -print$(if $(SANDBOX), -sandbox)

## test-conformance: the official MCP conformance suite and client smoke tests (Node 22 from npm)
test-conformance:
	bash test/conformance/run.sh

## build: the arm64 bootstrap deployed to Lambda
build:
	@$(PROGRESS) "building bin/arm64/bootstrap" "cold cache: about 2-4 minutes on 2 cores; warm: about 30 s" -- env CGO_ENABLED=0 GOOS=linux GOARCH=arm64 $(GO) build $(LAMBDA_FLAGS) -o $(BIN)/arm64/bootstrap ./functions/mcp
	@ls -l $(BIN)/arm64/bootstrap

# sam build (BuildMethod: makefile) calls this target with ARTIFACTS_DIR set, from a scratch copy
# of CodeUri (functions/mcp only, so nothing else of the tree is copied); it builds from ROOT.
build-McpFunction:
	@test -n "$(ARTIFACTS_DIR)" || { echo "build-McpFunction is the target sam build calls: set ARTIFACTS_DIR to the output folder (make build-McpFunction ARTIFACTS_DIR=/tmp/out), or use make build" >&2; exit 2; }
	cd $(ROOT) && CGO_ENABLED=0 GOOS=linux GOARCH=arm64 $(GO) build $(LAMBDA_FLAGS) -o $(abspath $(ARTIFACTS_DIR))/bootstrap ./functions/mcp

## bench: measured, never asserted (see test/bench/RESULTS.md)
bench:
	GO="$(GO)" LAMBDA_FLAGS="$(LAMBDA_FLAGS)" bash test/bench/run.sh

# print-lambda-flags: the deployed binary's build flags, expanded (test/bench/run.sh run on its own)
print-lambda-flags:
	@echo "$(LAMBDA_FLAGS)"

## fuzz: every fuzz target for FUZZTIME each
fuzz:
	@for pkg in $$($(GO) list ./...); do \
	  for f in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz' || true); do \
	    echo "== $$pkg $$f"; $(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) $$pkg; \
	  done; \
	done

## deploy: sam build && sam deploy (needs the sam CLI and AWS credentials; not run in CI)
deploy:
	sam build && sam deploy --guided

## deploy-check: the post-deploy checks against a deployment (make deploy-check URL=https://…/mcp [TOKEN=…] [PROFILE=…] [RESOURCE=…]; docs/deploy.md)
# The token reaches the checker through the environment (make exports command-line variables),
# never in its arguments or in make's echo of the command.
deploy-check:
	@test -n "$(URL)" || { echo "usage: make deploy-check URL=https://<id>.lambda-url.<region>.on.aws/mcp [TOKEN=<bearer token>] [PROFILE=<profile>] [RESOURCE=<resource id>] (URL is the stack's McpUrl output)" >&2; exit 2; }
	@$(GO) run ./infra/deploycheck -url '$(URL)'$(if $(PROFILE), -profile '$(PROFILE)')$(if $(RESOURCE), -resource '$(RESOURCE)')

clean:
	rm -rf $(BIN)

## docs: regenerate everything a tool or error change touches: the tool definitions (internal/tools/definitions_gen.go), the README and docs tables, and the event goldens
docs:
	$(GO) generate ./internal/tools/
	UPDATE_README=1 $(GO) test -count=1 -run DocsAreCurrent ./internal/gen/docs/
	UPDATE_GOLDEN=1 $(MAKE) --no-print-directory test-lambda
