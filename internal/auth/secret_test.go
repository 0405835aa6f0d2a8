package auth

import (
	"context"
	"strings"
	"testing"

	"github.com/mindvault/mcp-endpoint/internal/testkit/smtest"
)

func TestLoadTokenSecret(t *testing.T) {
	ctx := context.Background()
	srv := smtest.New()
	defer srv.Close()
	srv.Setenv(t)
	const name = "mindvault/access-tokens"
	srv.Put(name, "# bound tokens\n"+hexDigest("token-a")+":alice|bob\n"+hexDigest("token-b")+":*\n")

	tokens, err := LoadTokenSecret(ctx, name, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(tokens) != 2 || tokens[0].Digest != Digest("token-a") || !tokens[1].all() {
		t.Fatalf("tokens = %+v", tokens)
	}
	if srv.Count(smtest.OpGetSecretValue) != 1 {
		t.Errorf("%d calls", srv.Count(smtest.OpGetSecretValue))
	}

	const badValue = "not-a-digest-but-a-token-value"
	srv.Put("bad", hexDigest("x")+":alice\n"+badValue)
	for _, tc := range []struct {
		name   string
		secret string
		fault  string
		want   []string
	}{
		{"missing", "nope", "", []string{`"nope"`, "ResourceNotFoundException"}},
		{"denied", name, smtest.AccessDenied, []string{`"mindvault/access-tokens"`, "AccessDeniedException"}},
		{"malformed content", "bad", "", []string{`"bad"`, "entry 2"}},
		{"no name", "", "", []string{"no secret name"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.fault != "" {
				srv.Fail(smtest.OpGetSecretValue, tc.fault, 1)
			}
			_, err := LoadTokenSecret(ctx, tc.secret, nil)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			// Neither the value nor the service's own message may appear.
			for _, leak := range []string{badValue, "injected", "can't find", hexDigest("x")} {
				if strings.Contains(err.Error(), leak) {
					t.Errorf("error %q leaks %q", err, leak)
				}
			}
		})
	}
}
