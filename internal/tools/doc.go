// Package tools holds the endpoint's tools: each is declared once, in its own file, with its texts,
// kind, declared policies, request, output and handler, and the shared machinery binds it to the
// clients, applies its policies around the handler (the mainnet confirmation, dry runs, guards, the
// user's confirmation) and turns what the handler returns into a result or an errmap failure. The
// tool definitions are generated at build time, so no schema is reflected at start;
// docs/tools.md "Where the code is" says where each tool and each piece of the machinery lives.
package tools

//go:generate env UPDATE_DEFINITIONS=1 go test -count=1 -run ^TestGeneratedDefinitions$ .
