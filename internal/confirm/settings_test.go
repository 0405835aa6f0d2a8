package confirm

import (
	"context"
	"encoding/base64"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mindvault/mcp-endpoint/internal/redact"
	"github.com/mindvault/mcp-endpoint/internal/testkit/smtest"
)

func TestLoad(t *testing.T) {
	key := base64.StdEncoding.EncodeToString([]byte("0123456789abcdef0123456789abcdef-load"))
	short := base64.StdEncoding.EncodeToString([]byte("too short"))
	cases := []struct {
		name    string
		env     map[string]string
		lambda  bool
		mode    Mode
		canAsk  bool
		source  string
		err     string // substring of the error; "" none
		noteHas string
	}{
		{"default auto, local: a generated key", nil, false, Auto, true, "generated", "", ""},
		{"always with a key", map[string]string{EnvMode: " Always ", EnvKey: key}, true, Always, true, EnvKey, "", ""},
		{"url base64 without padding", map[string]string{EnvKey: base64.RawURLEncoding.EncodeToString([]byte("0123456789abcdef0123456789abcdef-load"))}, true, Auto, true, EnvKey, "", ""},
		{"off needs no key", map[string]string{EnvMode: "off"}, true, Off, false, "", "", ""},
		{"lambda without a key never asks", nil, true, Auto, false, "", "", "never asks"},
		{"unknown mode", map[string]string{EnvMode: "sometimes"}, false, Off, false, "", EnvMode, ""},
		{"a short key", map[string]string{EnvKey: short}, false, Off, false, "", EnvKey + ": must be base64 of at least 32", ""},
		{"not base64", map[string]string{EnvKey: "not base64 at all!"}, false, Off, false, "", EnvKey, ""},
		{"both set", map[string]string{EnvKey: key, EnvKeySecret: "x"}, false, Off, false, "", "set one", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			k, err := Load(context.Background(), func(v string) string { return tc.env[v] }, tc.lambda, nil)
			if (err != nil) != (tc.err != "") || (err != nil && !strings.Contains(err.Error(), tc.err)) {
				t.Fatalf("err = %v, want %q", err, tc.err)
			}
			if err != nil && (strings.Contains(err.Error(), short) || strings.Contains(err.Error(), key)) {
				t.Errorf("the error shows the key: %v", err)
			}
			if k.Mode() != tc.mode || k.CanAsk() != tc.canAsk || k.Source != tc.source {
				t.Errorf("mode %s canAsk %v source %q; want %s %v %q", k.Mode(), k.CanAsk(), k.Source, tc.mode, tc.canAsk, tc.source)
			}
			if !strings.Contains(k.Note, tc.noteHas) || (tc.noteHas == "" && k.Note != "") {
				t.Errorf("note %q, want %q", k.Note, tc.noteHas)
			}
			if k.generated != nil && !k.generated.key.IsZero() {
				t.Error("the process's own key was drawn at Load; it is made on first use")
			}
			if k.CanAsk() && redact.Unregistered([]string{base64.StdEncoding.EncodeToString(k.signingKey())}) != nil {
				t.Error("the key is not registered for redaction")
			}
		})
	}
}

// TestGeneratedKeySignsOnFirstUse: a local process's own key is drawn when a requestState is
// first sealed, registered for redaction before it signs anything, and the same key then
// opens what it sealed.
func TestGeneratedKeySignsOnFirstUse(t *testing.T) {
	k, err := Load(context.Background(), func(string) string { return "" }, false, nil)
	if err != nil || !k.CanAsk() || k.Source != "generated" {
		t.Fatalf("err %v, canAsk %v, source %q", err, k.CanAsk(), k.Source)
	}
	b := Binding{Tool: "mindvault_buy", ArgsHash: "h", Network: "testnet"}
	a := Approval{Kind: Payment, Network: "testnet", Amount: "10000000"}
	state, err := k.Seal(b, a)
	if err != nil {
		t.Fatal(err)
	}
	key := []byte(k.generated.key.Reveal())
	if len(key) < MinKeyBytes || redact.Unregistered([]string{base64.RawURLEncoding.EncodeToString(key)}) != nil {
		t.Fatalf("the generated key (%d bytes) is not registered for redaction", len(key))
	}
	if got, err := k.Open(state, b); err != nil || got.Amount != a.Amount {
		t.Fatalf("Open of its own state: %+v, %v", got, err)
	}
	if _, err := k.WithClock(k.now).Open(state, b); err != nil {
		t.Fatalf("a copy of the settings uses another key: %v", err)
	}
	other, _ := Load(context.Background(), func(string) string { return "" }, false, nil)
	if _, err := other.Open(state, b); err == nil {
		t.Fatal("another process's generated key opened this state")
	}
}

func TestLoadKeySecret(t *testing.T) {
	srv := smtest.New()
	defer srv.Close()
	srv.Setenv(t)
	value := base64.StdEncoding.EncodeToString([]byte("a key held in Secrets Manager, 32+ bytes"))
	srv.Put("mindvault/confirm-key", value+"\n")
	k, err := Load(context.Background(), func(v string) string {
		return map[string]string{EnvKeySecret: "mindvault/confirm-key"}[v]
	}, true, nil)
	if err != nil || !k.CanAsk() || k.Source != EnvKeySecret {
		t.Fatalf("err %v, settings %+v", err, k)
	}
	if redact.Unregistered([]string{value}) != nil {
		t.Error("the secret's value is not registered for redaction")
	}
	k, err = Load(context.Background(), func(v string) string { return map[string]string{EnvKeySecret: "missing"}[v] }, true, nil)
	if err == nil || !strings.Contains(err.Error(), EnvKeySecret) || k.CanAsk() {
		t.Fatalf("a missing secret: err %v, canAsk %v", err, k.CanAsk())
	}
}

// TestSettingsNeverFormatItsKey: Settings printed or logged whole shows no byte of its key.
func TestSettingsNeverFormatItsKey(t *testing.T) {
	key := []byte("0123456789abcdef0123456789abcdef")
	k := NewSettings(Always, key)
	for _, out := range []string{fmt.Sprintf("%v %+v %#v", *k, *k, *k), fmt.Sprintf("%+v", k)} {
		if strings.Contains(out, string(key)) || strings.Contains(out, fmt.Sprintf("%x", key[:8])) || strings.Contains(out, fmt.Sprint(key[:8])[1:12]) {
			t.Errorf("the key was formatted: %s", out)
		}
	}
}

// WithClock returns a copy of k reading time from now (tests of the expiry).
func (k *Settings) WithClock(now func() time.Time) *Settings {
	c := *k
	c.now = now
	return &c
}
