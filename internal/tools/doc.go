// Package tools holds the endpoint's tools, each declared once in its own file (texts, kind,
// policies, request, output and handler), and the machinery that binds them to the clients,
// applies their policies around the handler (the mainnet confirmation, dry runs, the user's
// confirmation) and turns what it returns into a result or an errmap failure.
package tools

//go:generate env UPDATE_DEFINITIONS=1 go test -count=1 -run ^TestGeneratedDefinitions$ .
