package awsshared_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
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

	if _, err := credentials.Open("secretsmanager:mindvault/local/", nil, "default", nil); err == nil {
		t.Fatal("the environment loader opened a store without credentials in the environment")
	}
	store, err := credentials.Open("secretsmanager:mindvault/local/", nil, "default", awsshared.Load)
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

// TestNoCredentialsFailsFastWithoutInstanceMetadata: with no credentials anywhere, the local
// loader says so at once and never asks the instance-metadata service, which outside AWS is a
// non-loopback address that answers nothing (here a loopback stand-in counts any request).
// AWS_EC2_METADATA_DISABLED=false is the explicit way back to the SDK's default.
func TestNoCredentialsFailsFastWithoutInstanceMetadata(t *testing.T) {
	var asked atomic.Int32
	imds := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		http.NotFound(w, r)
	}))
	defer imds.Close()
	missing := filepath.Join(t.TempDir(), "none")
	for k, v := range map[string]string{
		"AWS_ACCESS_KEY_ID": "", "AWS_SECRET_ACCESS_KEY": "", "AWS_SESSION_TOKEN": "", "AWS_PROFILE": "", "AWS_DEFAULT_PROFILE": "",
		"AWS_SHARED_CREDENTIALS_FILE": missing, "AWS_CONFIG_FILE": missing, "AWS_WEB_IDENTITY_TOKEN_FILE": "",
		"AWS_CONTAINER_CREDENTIALS_RELATIVE_URI": "", "AWS_CONTAINER_CREDENTIALS_FULL_URI": "",
		"AWS_EC2_METADATA_SERVICE_ENDPOINT": imds.URL, "AWS_EC2_METADATA_DISABLED": "",
	} {
		t.Setenv(k, v)
	}
	_, err := awsshared.Load(context.Background())
	if err == nil || !strings.HasPrefix(err.Error(), "no AWS credentials found: set AWS_PROFILE") {
		t.Fatalf("Load without credentials = %v, want \"no AWS credentials found: set AWS_PROFILE ...\"", err)
	}
	if n := asked.Load(); n != 0 {
		t.Fatalf("the loader asked the instance-metadata service %d times", n)
	}
	// The opt-in reaches the stand-in, which proves the stand-in is where the SDK would ask.
	t.Setenv("AWS_EC2_METADATA_DISABLED", "false")
	if _, err := awsshared.Load(context.Background()); err == nil {
		t.Fatal("a 404 from instance metadata gave credentials")
	}
	if asked.Load() == 0 {
		t.Fatal("with AWS_EC2_METADATA_DISABLED=false the loader did not ask instance metadata")
	}
}
