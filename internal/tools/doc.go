// Package tools holds the tool registry and the tool handlers.
//
// Each tool is a Spec value (its texts, kind, policies and Run) declared in its own file; All
// binds every Spec to the Deps with Define, and Run receives them, so a Spec holds no client
// and a test can bind it to fakes.
//
// A handler is thin: the registry decodes and validates the arguments into the tool's
// request struct (package validate), the handler calls clients and builds the typed output,
// and every failure it returns goes through errmap. Output structs are reflected into the
// advertised outputSchema, and structuredContent is always the marshalled output struct.
// The reflection happens at build time: definitions_gen.go holds every tool's encoded
// tools/list entry, generated from its Spec, request model and output type by
// `go generate ./internal/tools/` (internal/gen/schemagen) and checked by TestGeneratedDefinitions, so a
// process starts without reflecting a schema and the deployed binary has no schema reflector.
// Policy every state-changing tool shares (the mainnet confirmation, what a dry run may skip,
// guards) is declared in the tool's Spec and enforced by Define before the handler runs. So is
// what the advice of its failures needs (Spec.Guide: the role it plays for other tools' advice,
// its traits, its own Next sentences), which all.go declares to errmap before the first failure is mapped:
// errmap, the layer below, names no tool.
//
// Where things are: tool mindvault_x lives in x.go, except that
// browse.go holds mindvault_search too (they share the catalog code) and registry_writes.go
// holds the five vault-registry writes, one row each (writeSpec makes each row a Spec). define.go is the registry machinery
// (Spec, Define, Tool, Registry, results), kinds.go the kinds of tool a Spec names (what it
// reads, whether it changes state), policy.go the policies a Spec declares and Define
// enforces before Run (the mainnet confirmation, dry runs, guards), confirm.go the user's own
// confirmation that Define applies to every state-changing tool on the modern era and
// confirm_seams.go what each tool hands it right before paying or sending, secrets.go the
// per-call secret collector, deps.go what handlers call
// and how they load credentials, helpers.go the small helpers several tools share, and
// all.go what collects the tools this build serves (each file declares its Spec through serve, so a
// new tool touches its own file and the generated definitions) and declares their Guides to errmap. Each tool is tested through the wire, against
// the sandbox, in test/e2e (one file per area: payments, purchases, writes, registry, publish,
// confirmation, the agent's loop), and the shared machinery here (define_test.go, policy_test.go,
// seams_test.go, the definitions); a tool with logic of its own besides has its own x_test.go.
package tools

//go:generate env UPDATE_DEFINITIONS=1 go test -count=1 -run ^TestGeneratedDefinitions$ .
