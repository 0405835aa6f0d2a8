package testissuer

import (
	"crypto"
	"testing"
)

// TestSharedKeys: issuers started with SharedKeys publish the one key pair under the same ids
// and generate nothing, an issuer without it has keys of its own, and a rotation gives fresh
// keys under new ids without touching the other issuers' keys.
func TestSharedKeys(t *testing.T) {
	start := func(shared bool) *Issuer {
		iss, err := New(Options{SharedKeys: shared})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(iss.Close)
		return iss
	}
	same := func(a, b *Issuer) bool {
		a.mu.Lock()
		defer a.mu.Unlock()
		b.mu.Lock()
		defer b.mu.Unlock()
		for n := range a.keys {
			if !a.keys[n].priv.Public().(interface{ Equal(crypto.PublicKey) bool }).Equal(b.keys[n].priv.Public()) {
				return false
			}
		}
		return len(a.keys) == len(b.keys)
	}
	a, b, own := start(true), start(true), start(false)
	if !same(a, b) {
		t.Fatal("two issuers with SharedKeys publish different keys")
	}
	if same(a, own) {
		t.Fatal("an issuer without SharedKeys publishes the shared keys")
	}
	if err := b.Rotate(); err != nil {
		t.Fatal(err)
	}
	if same(a, b) {
		t.Fatal("a rotation kept the shared keys")
	}
	if got := b.KeyIDs(); got[0] == a.KeyIDs()[0] {
		t.Fatalf("a rotation kept the key ids %v", got)
	}
	if c := start(true); !same(a, c) {
		t.Fatal("a rotation changed the shared keys of the issuers started after it")
	}
}
