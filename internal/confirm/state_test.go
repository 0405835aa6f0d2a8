package confirm

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

var (
	keyA = bytes.Repeat([]byte{0xA5}, 32)
	keyB = bytes.Repeat([]byte{0x5A}, 32)
	t0   = time.Date(2026, 8, 1, 12, 0, 0, 0, time.UTC)
)

func settingsAt(key []byte, now time.Time) *Settings {
	return NewSettings(Auto, key).WithClock(func() time.Time { return now })
}

var (
	bound = Binding{Tool: "mindvault_buy", ArgsHash: ArgsHash("mindvault_buy", []byte(`{"resourceId":"rustguide"}`)),
		Caller: "token:abc", Profile: "demo", Network: "testnet"}
	approval = Approval{Kind: Payment, Network: "stellar:testnet", Payer: "GPAYER", Amount: "15000000",
		Asset: "CUSDC", Payee: "GPAYEE", Resource: "rustguide", Before: "1000000000"}
)

func reasonOf(err error) Reason {
	var inv *InvalidState
	if errors.As(err, &inv) {
		return inv.Reason
	}
	return ""
}

func TestSealOpenRoundTrip(t *testing.T) {
	k := settingsAt(keyA, t0)
	state, err := k.Seal(bound, approval)
	if err != nil {
		t.Fatal(err)
	}
	got, err := k.Open(state, bound)
	if err != nil {
		t.Fatal(err)
	}
	if got.Amount != approval.Amount || got.Payee != approval.Payee || got.Kind != Payment {
		t.Fatalf("opened %+v, want %+v", got, approval)
	}
	again, _ := k.Seal(bound, approval)
	if again == state {
		t.Error("two states of the same approval are equal: the nonce is missing")
	}
	for _, secret := range []string{"token:abc", string(keyA)} {
		if strings.Contains(state, secret) || strings.Contains(decodedPayload(t, state), secret) {
			t.Errorf("the state carries %q", secret)
		}
	}
}

func decodedPayload(t *testing.T, state string) string {
	t.Helper()
	parts := strings.Split(state, ".")
	b, err := b64.DecodeString(parts[1])
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestTamperEveryByte: changing any bit of any byte, dropping any byte or adding one makes the
// state fail verification; nothing in it can be edited.
func TestTamperEveryByte(t *testing.T) {
	k := settingsAt(keyA, t0)
	state, err := k.Seal(bound, approval)
	if err != nil {
		t.Fatal(err)
	}
	check := func(what, s string) {
		t.Helper()
		if s == state {
			return
		}
		if _, err := k.Open(s, bound); err == nil {
			t.Fatalf("%s was accepted", what)
		} else if r := reasonOf(err); r != ReasonSignature && r != ReasonMalformed {
			t.Fatalf("%s refused for %q, want a signature or format refusal", what, r)
		}
	}
	b := []byte(state)
	for i := range b {
		for bit := 0; bit < 8; bit++ {
			c := bytes.Clone(b)
			c[i] ^= 1 << bit
			check("flipping bit "+itoa(bit)+" of byte "+itoa(i), string(c))
		}
		check("dropping byte "+itoa(i), state[:i]+state[i+1:])
		check("inserting before byte "+itoa(i), state[:i]+"A"+state[i:])
	}
	check("appending", state+"A")
	check("appending a dot", state+".")
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func TestOpenRefuses(t *testing.T) {
	k := settingsAt(keyA, t0)
	state, err := k.Seal(bound, approval)
	if err != nil {
		t.Fatal(err)
	}
	other := func(f func(*Binding)) Binding {
		b := bound
		f(&b)
		return b
	}
	cases := []struct {
		name     string
		settings *Settings
		state    string
		b        Binding
		want     Reason
	}{
		{"just before expiry", settingsAt(keyA, t0.Add(TTL-time.Second)), state, bound, ""},
		{"at expiry", settingsAt(keyA, t0.Add(TTL)), state, bound, ReasonExpired},
		{"long after", settingsAt(keyA, t0.Add(24*time.Hour)), state, bound, ReasonExpired},
		{"rotated key", settingsAt(keyB, t0), state, bound, ReasonSignature},
		{"no key", settingsAt(nil, t0), state, bound, ReasonNoKey},
		{"nil settings", nil, state, bound, ReasonNoKey},
		{"another tool", k, state, other(func(b *Binding) { b.Tool = "mindvault_publish" }), ReasonOtherCall},
		{"other arguments", k, state, other(func(b *Binding) { b.ArgsHash = ArgsHash("mindvault_buy", []byte(`{"resourceId":"zkprimer"}`)) }), ReasonOtherCall},
		{"another caller", k, state, other(func(b *Binding) { b.Caller = "token:def" }), ReasonOtherCall},
		{"anonymous caller", k, state, other(func(b *Binding) { b.Caller = "anonymous" }), ReasonOtherCall},
		{"another profile", k, state, other(func(b *Binding) { b.Profile = "alice" }), ReasonOtherCall},
		{"another network", k, state, other(func(b *Binding) { b.Network = "mainnet" }), ReasonOtherCall},
		{"empty", k, "", bound, ReasonMalformed},
		{"another version", k, "mv2." + state[4:], bound, ReasonMalformed},
		{"no signature", k, state[:strings.LastIndexByte(state, '.')], bound, ReasonMalformed},
		{"only the prefix", k, "mv1.", bound, ReasonMalformed},
		{"oversized", k, state + strings.Repeat("A", MaxStateBytes), bound, ReasonMalformed},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.settings.Open(tc.state, tc.b)
			if got := reasonOf(err); got != tc.want || (tc.want == "" && err != nil) {
				t.Fatalf("Open: %v (reason %q), want reason %q", err, got, tc.want)
			}
		})
	}
}

// TestOpenRefusesSignedNonsense: even a payload signed with the right key is refused when it
// is not one this version writes (a future version, unknown fields, trailing data, a lifetime
// longer than TTL), so a format change can never be read as an approval.
func TestOpenRefusesSignedNonsense(t *testing.T) {
	k := settingsAt(keyA, t0)
	good := payload{V: Version, Binding: Binding{Tool: bound.Tool, ArgsHash: bound.ArgsHash, Caller: callerDigest(bound.Caller), Profile: bound.Profile,
		Network: bound.Network}, Approved: approval, Issued: t0.Unix(), Expires: t0.Add(TTL).Unix(), Nonce: "n"}
	sign := func(body string) string {
		signed := prefix + b64.EncodeToString([]byte(body))
		return signed + "." + b64.EncodeToString(mac(k.signingKey(), signed))
	}
	enc := func(p payload) string { b, _ := json.Marshal(p); return string(b) }
	if _, err := k.Open(sign(enc(good)), bound); err != nil {
		t.Fatalf("the well-formed control was refused: %v", err)
	}
	v2, long := good, good
	v2.V = 2
	long.Expires = t0.Add(24 * time.Hour).Unix()
	for name, body := range map[string]string{
		"version 2":       enc(v2),
		"unknown field":   strings.TrimSuffix(enc(good), "}") + `,"extra":1}`,
		"trailing data":   enc(good) + `{}`,
		"not an object":   `[]`,
		"a long life":     enc(long),
		"not JSON at all": "mv1",
	} {
		if _, err := k.Open(sign(body), bound); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestSealNeedsAKey(t *testing.T) {
	for _, k := range []*Settings{nil, settingsAt(nil, t0), settingsAt(keyA[:16], t0), NewSettings(Off, keyA)} {
		if _, err := k.Seal(bound, approval); err == nil {
			t.Errorf("%+v sealed a state", k)
		}
	}
}
