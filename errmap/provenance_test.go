package errmap

import (
	"net/http"
	"strings"
	"testing"
)

// TestOwnSentencesSurvive: the endpoint's own operation, detail and Next sentences, and every
// Next line Map generates, reach the agent unchanged, even when they read like key=value pairs.
func TestOwnSentencesSurvive(t *testing.T) {
	advice := []string{
		"the env credential store is read-only; configure MINDVAULT_CREDENTIALS=dir:<path> or secretsmanager:<prefix> to create profiles",
		"Set MINDVAULT_API_KEY=<key> (or MINDVAULT_AGENT_SECRET=<seed>) and retry.",
		"Send Authorization: Bearer <token> with a token whose digest is in MINDVAULT_ACCESS_TOKENS.",
		"The operator must grant the function's IAM role the Secrets Manager secretsmanager:GetSecretValue permission.",
		"password: ask the operator; api_key=<the key mindvault_register stored>",
	}
	for _, a := range advice {
		for _, f := range []Facts{
			{Source: SourceCredentials, Operation: "Op failed", Detail: a, Code: CodeReadOnlyStore},
			{Source: SourceCredentials, Operation: "Op failed", Next: a, Code: CodeCredentialsMissing},
			{Source: SourceAPI, Operation: a, Status: 500},
		} {
			got := mapT(t, f)
			if !strings.Contains(got.Text, a) {
				t.Errorf("the product's sentence was changed:\n%s\nwant it to contain %q", got.Text, a)
			}
		}
	}

	// Every generated Next line, for every code, source and outcome, is left alone.
	retry := 7
	for _, c := range Codes() {
		for _, src := range Sources() {
			for _, st := range []State{StateNo, StateYes, StateUnknown} {
				f := Facts{Guides: testGuides, Source: src, Code: c.Code, Tool: "mindvault_register", StateChanged: st,
					TimeoutVar: "MINDVAULT_HTTP_TIMEOUT_MS", AllowedArgs: []string{"name", "email", "api_key"}}
				if st == StateUnknown {
					f.TxHash = strings.Repeat("ab", 32)
					f.PaymentExpiresAt = "2026-01-02T03:04:05Z"
				}
				if c.Category == CategoryRateLimit {
					f.Header = http.Header{"Retry-After": {"7"}}
				}
				got := mapT(t, f)
				if strings.Contains(got.Text, redactedMarker) {
					t.Errorf("%s/%s/%s: the generated text was redacted:\n%s", c.Code, src, st, got.Text)
				}
				if st == StateNo && c.Category == CategoryRateLimit && got.Diagnostic.RetryAfterSeconds != nil && *got.Diagnostic.RetryAfterSeconds != retry {
					t.Errorf("retry after %v", *got.Diagnostic.RetryAfterSeconds)
				}
			}
		}
	}
}

// TestOutsideTextIsShapeRedacted: what came from outside still gets every shape rule.
func TestOutsideTextIsShapeRedacted(t *testing.T) {
	planted := "upstream said api_key=abc123xyz and Authorization: Basic dXNlcjpwYXNz"
	for name, f := range map[string]Facts{
		"upstream detail": {Source: SourceRPC, Operation: "Op failed", UpstreamDetail: planted},
		"body":            {Source: SourceAPI, Operation: "Op failed", Status: 500, Body: []byte(`{"error":"` + planted + `"}`)},
		"registry detail": {Source: SourceRegistry, Operation: "Op failed", UpstreamDetail: planted},
	} {
		got := mapT(t, f)
		for _, s := range []string{"abc123xyz", "dXNlcjpwYXNz"} {
			if strings.Contains(got.Text, s) || strings.Contains(got.Diagnostic.Detail, s) {
				t.Errorf("%s: %q survived:\n%s", name, s, got.Text)
			}
		}
	}
	// A thrown error's text is outside text too.
	got := FromError(errString("dial: token=abc123xyz refused"), Call{Guides: testGuides, Operation: "Op failed"})
	if strings.Contains(got.Text, "abc123xyz") {
		t.Errorf("an error's text is outside text:\n%s", got.Text)
	}
}

const redactedMarker = "[REDACTED]"

type errString string

func (e errString) Error() string { return string(e) }
