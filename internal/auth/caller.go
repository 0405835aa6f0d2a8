package auth

import (
	"context"
	"encoding/hex"
)

// AnonymousCaller is the identity of every caller when inbound auth is off: the endpoint
// cannot tell them apart.
const AnonymousCaller = "anonymous"

// Caller is a stable identity of the authenticated caller, for binding something the
// endpoint hands out to the caller it was handed to (a human confirmation's requestState):
// "token:" and the configured digest of the bearer token in mode tokens, "sub:" and the verified
// access token's subject in mode oauth, AnonymousCaller in
// mode none, "" for a context the middleware never saw. The digest is what the operator
// configured, never the token, and a token's profiles come with it (one digest, one list).
// The value is an identity, not a secret, but callers should still hash it before showing it.
func Caller(ctx context.Context) string {
	g, ok := ctx.Value(grantKey{}).(grant)
	if !ok {
		return ""
	}
	return g.caller
}

func tokenCaller(t Token) string { return "token:" + hex.EncodeToString(t.Digest[:]) }
