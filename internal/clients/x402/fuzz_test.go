package x402

import (
	"encoding/base64"
	"net/http"
	"strings"
	"testing"
)

// FuzzHeaders: no header a server sends can crash the paying client.
func FuzzHeaders(f *testing.F) {
	for _, s := range []string{`{"x402Version":2,"accepts":[{"scheme":"exact"}]}`, `{"x402Version":1}`, `[]`, `{"success":true}`, ``, "\xff"} {
		f.Add(base64.StdEncoding.EncodeToString([]byte(s)), []byte(s))
		f.Add(s, []byte(s))
	}
	f.Fuzz(func(t *testing.T, header string, body []byte) {
		h := http.Header{}
		h.Set("PAYMENT-REQUIRED", header)
		h.Set("PAYMENT-RESPONSE", header)
		if pr, err := ParseRequired(h, body); err == nil {
			_, _, _ = Select(pr, Policy{Network: "stellar:testnet", Asset: usdc})
		}
		_, _ = DecodeSettlement(h)
		_, _ = DecodePayload(header)
	})
}

// FuzzDecodeSettlement: the settlement proof parser never panics, and whatever it accepts
// is consistent (a success names a lower-case 64-hex hash and no error) and survives a
// round trip through the encoder.
func FuzzDecodeSettlement(f *testing.F) {
	for _, s := range []string{
		`{"success":true,"transaction":"` + strings.Repeat("ab", 32) + `","network":"stellar:testnet","payer":"G"}`,
		`{"success":false,"errorReason":"insufficient_funds","transaction":"","network":"stellar:testnet"}`,
		`{"success":true,"success":false}`, `{"success":"true"}`, `{"success":null}`, `[]`, `{}`, `null`, ``,
	} {
		f.Add(base64.StdEncoding.EncodeToString([]byte(s)), false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, value string, legacy bool) {
		name := "PAYMENT-RESPONSE"
		if legacy {
			name = "X-PAYMENT-RESPONSE"
		}
		h := http.Header{}
		h.Set(name, value)
		s, ok := DecodeSettlement(h)
		if !ok {
			if s != nil {
				t.Fatal("a refused header returned a settlement")
			}
			return
		}
		if s.Success && (len(s.Transaction) != 64 || strings.ToLower(s.Transaction) != s.Transaction || s.ErrorReason != "") {
			t.Fatalf("inconsistent success accepted: %+v", s)
		}
		back := http.Header{}
		back.Set("PAYMENT-RESPONSE", EncodeSettlement(*s))
		again, ok := DecodeSettlement(back)
		if !ok || *again != *s {
			t.Fatalf("round trip: %+v -> %+v (%v)", s, again, ok)
		}
	})
}
