package confirm

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/mindvault/mcp-endpoint/internal/credentials"
	"github.com/mindvault/mcp-endpoint/internal/redact"
)

// Mode is the MINDVAULT_CONFIRM policy.
type Mode string

// The policies.
const (
	Auto   Mode = "auto"
	Always Mode = "always"
	Off    Mode = "off"
)

// Environment variables read by Load.
const (
	EnvMode      = "MINDVAULT_CONFIRM"
	EnvKey       = "MINDVAULT_CONFIRM_KEY"
	EnvKeySecret = "MINDVAULT_CONFIRM_KEY_SECRET"
)

// MinKeyBytes is the shortest key accepted: HMAC-SHA256's own block of strength.
const MinKeyBytes = 32

// Settings are the process-wide policy and requestState key; a nil Settings never asks.
type Settings struct {
	mode Mode
	key  redact.Secret // never formatted or logged by accident
	// generated, when set, is the process's own key, made on first use (a start pays nothing).
	generated *generatedKey
	Source    string // where the key came from (a variable name, or "generated")
	Note      string // why the endpoint will not ask although the policy says it may; logged once
	now       func() time.Time
}

// NewSettings are Settings with an explicit policy and key (tests, and Load).
func NewSettings(mode Mode, key []byte) *Settings {
	return &Settings{mode: mode, key: redact.NewSecret(string(key)), now: time.Now}
}

// Mode returns the policy; a nil Settings is Off.
func (k *Settings) Mode() Mode {
	if k == nil {
		return Off
	}
	return k.mode
}

// CanAsk reports whether the policy allows asking and a key can sign the state.
func (k *Settings) CanAsk() bool {
	return k != nil && k.mode != Off && (k.generated != nil || len(k.key.Reveal()) >= MinKeyBytes)
}

// signingKey is the configured key, or the process's own drawn on first use; empty when there
// is none. A generated key redact could not register is never used, so Seal fails rather
// than letting the call proceed unasked.
func (k *Settings) signingKey() []byte {
	key := k.key
	if k.generated != nil {
		key = k.generated.get()
	}
	return []byte(key.Reveal())
}

// generatedKey is a key made once, on first use.
type generatedKey struct {
	once sync.Once
	key  redact.Secret
}

func (g *generatedKey) get() redact.Secret {
	g.once.Do(func() {
		key := make([]byte, MinKeyBytes)
		_, _ = rand.Read(key) // never fails: the runtime crashes rather than return an error
		if registerKey(key) == nil {
			g.key = redact.NewSecret(string(key))
		}
	})
	return g.key
}

// Load reads the policy and the key once per process. Under Lambda (lambda), where instances
// cannot share a generated key, a missing key turns the confirmation off (Note says so);
// elsewhere one is generated on first use. Errors name the variable, never its value, and
// leave Settings that never ask. load reads MINDVAULT_CONFIRM_KEY_SECRET (nil: the environment).
func Load(ctx context.Context, getenv func(string) string, lambda bool, load credentials.AWSConfigLoader) (*Settings, error) {
	k := NewSettings(Auto, nil)
	off := func(format string, a ...any) (*Settings, error) {
		k.mode = Off
		return k, fmt.Errorf(format, a...)
	}
	switch m := Mode(strings.ToLower(strings.TrimSpace(getenv(EnvMode)))); m {
	case "":
	case Auto, Always, Off:
		k.mode = m
	default:
		return off("%s: must be auto, always or off", EnvMode)
	}
	if k.mode == Off {
		return k, nil
	}
	inline, secret := strings.TrimSpace(getenv(EnvKey)), strings.TrimSpace(getenv(EnvKeySecret))
	var text, from string
	switch {
	case inline != "" && secret != "":
		return off("%s and %s are both set; set one", EnvKey, EnvKeySecret)
	case inline != "":
		text, from = inline, EnvKey
	case secret != "":
		ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		v, err := credentials.LoadSecretString(ctx, "confirmation key secret", secret, load)
		if err == nil {
			err = redact.Register(v, strings.TrimSpace(v))
		}
		if err != nil {
			return off("%s: %w", EnvKeySecret, err)
		}
		text, from = strings.TrimSpace(v), EnvKeySecret
	case lambda:
		k.Note = fmt.Sprintf("%s is %s but neither %s nor %s is set, so the endpoint never asks the user to confirm; "+
			"the argument guards (maxPriceUsdc, maxFeeUsdc, confirmMainnet, dryRun) apply", EnvMode, k.mode, EnvKey, EnvKeySecret)
		return k, nil
	default:
		// Drawn on first use (signingKey): most processes never ask.
		k.generated, k.Source = &generatedKey{}, "generated"
		return k, nil
	}
	key, err := decodeKey(text)
	if err != nil {
		return off("%s: %w", from, err)
	}
	k.key, k.Source = redact.NewSecret(string(key)), from
	return k, registerKey(key)
}

// decodeKey accepts standard or URL base64, padded or not.
func decodeKey(text string) ([]byte, error) {
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(text); err == nil {
			if len(b) < MinKeyBytes {
				return nil, fmt.Errorf("must be base64 of at least %d random bytes (it holds %d)", MinKeyBytes, len(b))
			}
			return b, nil
		}
	}
	return nil, errors.New("must be base64 of at least 32 random bytes")
}

// registerKey makes every spelling of the key's bytes redactable, whatever form it was given in.
func registerKey(key []byte) error {
	return redact.Register(base64.StdEncoding.EncodeToString(key), base64.RawURLEncoding.EncodeToString(key), string(key))
}
