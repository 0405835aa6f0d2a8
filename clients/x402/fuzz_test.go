package x402

import (
	"encoding/base64"
	"net/http"
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
