package credentials

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stellar/go-stellar-sdk/keypair"

	"github.com/mindvault/mcp-endpoint/errmap"
)

func code(t *testing.T, err error) string {
	t.Helper()
	var e *errmap.Error
	if !errors.As(err, &e) {
		t.Fatalf("want *errmap.Error, got %v", err)
	}
	if e.Facts.Source != errmap.SourceCredentials {
		t.Fatalf("source = %s", e.Facts.Source)
	}
	return e.Facts.Code
}

func TestDirStore(t *testing.T) {
	ctx := context.Background()
	d, err := NewDir(filepath.Join(t.TempDir(), "profiles"))
	if err != nil {
		t.Fatal(err)
	}
	kp := keypair.MustRandom()
	if err := d.Create(ctx, Profile{Name: "alice", SecretKey: kp.Seed()}); err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(d.file("alice"))
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("profile file mode = %v, %v", info.Mode(), err)
	}
	if got := code(t, d.Create(ctx, Profile{Name: "alice", SecretKey: "x"})); got != "PROFILE_EXISTS" {
		t.Errorf("second create: %s", got)
	}
	p, err := d.Get(ctx, "alice")
	if err != nil || p.SecretKey != kp.Seed() {
		t.Fatalf("get: %+v %v", p, err)
	}
	if addr, _ := p.Address(); addr != kp.Address() {
		t.Errorf("address = %s", addr)
	}
	p.APIKey = "mv_" + "ab12"
	if err := d.Update(ctx, p); err != nil {
		t.Fatal(err)
	}
	if q, _ := d.Get(ctx, "alice"); q.APIKey != p.APIKey || q.SecretKey != kp.Seed() {
		t.Errorf("update lost data: %+v", q)
	}
	if got := code(t, d.Update(ctx, Profile{Name: "bob"})); got != "CREDENTIALS_MISSING" {
		t.Errorf("update of a missing profile: %s", got)
	}
	_, err = d.Get(ctx, "nobody")
	if got := code(t, err); got != "CREDENTIALS_MISSING" {
		t.Errorf("missing: %s", got)
	}
	_, err = d.Get(ctx, "../etc/passwd")
	if got := code(t, err); got != "CREDENTIALS_MISSING" {
		t.Errorf("traversal: %s", got)
	}
	names, err := d.List(ctx)
	if err != nil || len(names) != 1 || names[0] != "alice" {
		t.Errorf("list = %v %v (temp files must not show)", names, err)
	}
}

// TestDirConcurrentCreate: many creations of one name, exactly one wins.
func TestDirConcurrentCreate(t *testing.T) {
	d, err := NewDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	const n = 16
	var wg sync.WaitGroup
	errs := make([]error, n)
	seeds := make([]string, n)
	for i := range n {
		seeds[i] = keypair.MustRandom().Seed()
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = d.Create(context.Background(), Profile{Name: "race", SecretKey: seeds[i]})
		}()
	}
	wg.Wait()
	winners := 0
	winner := ""
	for i, err := range errs {
		if err == nil {
			winners++
			winner = seeds[i]
		} else if c := code(t, err); c != "PROFILE_EXISTS" {
			t.Errorf("loser got %s", c)
		}
	}
	if winners != 1 {
		t.Fatalf("%d creations won", winners)
	}
	p, _ := d.Get(context.Background(), "race")
	if p.SecretKey != winner {
		t.Fatal("the stored profile is not the winner's")
	}
}

func TestEnvStore(t *testing.T) {
	ctx := context.Background()
	kp := keypair.MustRandom()
	env := map[string]string{"MINDVAULT_AGENT_SECRET": " " + kp.Seed() + " ", "MINDVAULT_API_KEY": "mv_00"}
	s := NewEnv(func(k string) string { return env[k] }, "default")
	p, err := s.Get(ctx, "default")
	if err != nil || p.SecretKey != kp.Seed() || p.APIKey != "mv_00" {
		t.Fatalf("get: %+v %v", p, err)
	}
	if _, err := s.Get(ctx, "other"); code(t, err) != "CREDENTIALS_MISSING" {
		t.Error("other profile must be missing")
	}
	if code(t, s.Create(ctx, Profile{Name: "x"})) != "READ_ONLY_STORE" || !s.ReadOnly() {
		t.Error("env store must be read-only")
	}
	empty := NewEnv(func(string) string { return "" }, "default")
	if names, _ := empty.List(ctx); len(names) != 0 {
		t.Errorf("empty env lists %v", names)
	}
	if _, err := empty.Get(ctx, "default"); code(t, err) != "CREDENTIALS_MISSING" {
		t.Error("empty env must be missing")
	}
}

func TestFailuresNeverCarrySecrets(t *testing.T) {
	kp := keypair.MustRandom()
	p := Profile{Name: "x", SecretKey: kp.Seed()}
	d, _ := NewDir(t.TempDir())
	for _, err := range []error{Missing(d, "x", "wallet"), Exists(d, "x"), ReadOnlyStore(d)} {
		f := errmap.FromError(err, errmap.Call{Operation: "Op failed", Tool: "t", Secrets: p.Secrets()})
		if containsAny(f.Text, p.Secrets()) {
			t.Fatalf("secret in %q", f.Text)
		}
	}
	if _, err := (Profile{Name: "bad", SecretKey: "SNOTAVALIDSEED"}).Address(); err == nil || containsAny(err.Error(), []string{"SNOTAVALIDSEED"}) {
		t.Fatalf("invalid seed error leaks or is nil: %v", err)
	}
}

func containsAny(s string, subs []string) bool {
	for _, x := range subs {
		if x != "" && len(s) >= len(x) && (func() bool {
			for i := 0; i+len(x) <= len(s); i++ {
				if s[i:i+len(x)] == x {
					return true
				}
			}
			return false
		})() {
			return true
		}
	}
	return false
}

// TestValidName: a profile name is 1-64 characters of A-Z a-z 0-9 . _ - with at least one
// letter or digit — the same rule argument validation applies — so no store ever takes "."
// or ".." as a name.
func TestValidName(t *testing.T) {
	for name, want := range map[string]bool{
		"a": true, "demo": true, "7": true, ".a": true, "a-b_c.d": true, strings.Repeat("a", 64): true,
		"": false, ".": false, "..": false, "-_.": false, "a b": false, "../x": false, strings.Repeat("a", 65): false,
	} {
		if got := ValidName(name); got != want {
			t.Errorf("ValidName(%q) = %v, want %v", name, got, want)
		}
	}
}

// TestDirDiscardOnlyWhatItWrote: the dir store withdraws a claim only while it holds exactly
// what was written; a profile updated since is kept.
func TestDirDiscardOnlyWhatItWrote(t *testing.T) {
	d, err := NewDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	claim := Profile{Name: "claim", SecretKey: keypair.MustRandom().Seed()}
	if err := d.Create(ctx, claim); err != nil {
		t.Fatal(err)
	}
	changed := claim
	changed.APIKey = "mv_" + strings.Repeat("ab", 32)
	if err := d.Update(ctx, changed); err != nil {
		t.Fatal(err)
	}
	if gone, err := d.Discard(ctx, claim); gone || err != nil {
		t.Fatalf("discarded a profile that changed: %v %v", gone, err)
	}
	if p, err := d.Get(ctx, "claim"); err != nil || p.APIKey != changed.APIKey {
		t.Fatalf("the changed profile was not kept intact: %+v %v", p, err)
	}
	if gone, err := d.Discard(ctx, changed); !gone || err != nil {
		t.Fatalf("did not discard its own profile: %v %v", gone, err)
	}
	if _, err := d.Get(ctx, "claim"); err == nil {
		t.Fatal("profile still there after Discard")
	}
	if names, _ := d.List(ctx); len(names) != 0 {
		t.Fatalf("leftovers listed: %v", names)
	}
	if gone, err := d.Discard(ctx, changed); gone || err != nil {
		t.Fatalf("discarding a missing profile: %v %v", gone, err)
	}
}

// TestDirStoreRefusesAMissingParent: a dir: path whose parent does not exist is refused, and
// nothing is created; the last folder of an existing parent is created, mode 0700.
func TestDirStoreRefusesAMissingParent(t *testing.T) {
	base := t.TempDir()
	deep := filepath.Join(base, "nonexistent", "deep")
	if _, err := NewDir(deep); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Fatalf("NewDir(%s) = %v, want a refusal naming the missing parent", deep, err)
	}
	if _, err := os.Stat(filepath.Join(base, "nonexistent")); !os.IsNotExist(err) {
		t.Fatal("the missing parent was created")
	}
	one := filepath.Join(base, "profiles")
	if _, err := NewDir(one); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(one); err != nil || st.Mode().Perm() != 0o700 {
		t.Fatalf("the store folder: %v %v", st, err)
	}
}

// TestOpenNamesTheAcceptedForms: a malformed MINDVAULT_CREDENTIALS says the forms accepted.
func TestOpenNamesTheAcceptedForms(t *testing.T) {
	for _, spec := range []string{"dir", "secretsmanager", "vault:x"} {
		_, err := Open(spec, func(string) string { return "" }, "default", nil)
		if err == nil || !strings.Contains(err.Error(), "dir:<folder>") || !strings.Contains(err.Error(), "secretsmanager:<name prefix>") {
			t.Errorf("Open(%q) = %v", spec, err)
		}
	}
}
