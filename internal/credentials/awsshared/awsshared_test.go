package awsshared_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/mindvault/mcp-endpoint/internal/credentials"
	"github.com/mindvault/mcp-endpoint/internal/credentials/awsshared"
	"github.com/mindvault/mcp-endpoint/internal/testkit/smtest"
)

// TestLocalBuildsReadTheSharedConfig: the loader local builds inject reaches Secrets Manager
// with credentials found only in a shared credentials file (~/.aws/credentials), which the
// deployed build's environment loader does not read: without the file the SDK would find no
// credentials (instance metadata is off) and sign nothing. The fake counts the request.
func TestLocalBuildsReadTheSharedConfig(t *testing.T) {
	srv := smtest.New()
	defer srv.Close()
	srv.Setenv(t)
	file := filepath.Join(t.TempDir(), "credentials")
	if err := os.WriteFile(file, []byte("[dev]\naws_access_key_id = AKIDSHARED\naws_secret_access_key = shared-secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("AWS_ACCESS_KEY_ID", "")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "")
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", file)
	t.Setenv("AWS_PROFILE", "dev")
	srv.Put("mindvault/local/alice", `{"secretKey":"SB5QFV3HFDTDXPH3NAOXKQNLNV3DI5KUBB2HJYQAN7WKLRXNXPBSUQ6S"}`)

	if _, err := credentials.Open("secretsmanager:mindvault/local/", nil, "default"); err == nil {
		t.Fatal("the environment loader opened a store without credentials in the environment")
	}
	store, err := credentials.OpenWith("secretsmanager:mindvault/local/", nil, "default", awsshared.Load)
	if err != nil {
		t.Fatal(err)
	}
	p, err := store.Get(context.Background(), "alice")
	if err != nil || p.Name != "alice" {
		t.Fatalf("profile %+v %v", p, err)
	}
	if n := srv.Count(smtest.OpGetSecretValue); n != 1 {
		t.Fatalf("the fake received %d GetSecretValue requests, want 1", n)
	}
}
