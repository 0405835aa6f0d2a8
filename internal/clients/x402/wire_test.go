package x402

import (
	"encoding/json"
	"math/big"
	"net/http"
	"testing"
)

// The x402 v2 documents as the protocol spells them (Stellar exact scheme), written out by
// hand: the wire types must encode to exactly these and decode from them. The sandbox's paywall
// shares these types, so its tests cannot catch a wrong field name; these can.
const (
	wirePayTo       = "GBMXKFL3FJA75ZIMXQGUIRM2WTLR7T6HWUIA7IKKHN2Y56RC37Q4HJ6S"
	wireHash        = "d666bcd218a1b0925ee01d0ccbe4d900bc269f4fe9fcff2f7c0740214c9833e6"
	wireResource    = `{"url":"https://api.example/resources/rustguide","description":"Rust Ownership Field Guide","mimeType":"application/pdf"}`
	wireRequirement = `{"scheme":"exact","network":"stellar:testnet","amount":"15000000","asset":"` + usdc + `","payTo":"` + wirePayTo + `","maxTimeoutSeconds":300,"extra":{"areFeesSponsored":true}}`
	wireRequired    = `{"x402Version":2,"error":"Payment required","resource":` + wireResource + `,"accepts":[` + wireRequirement + `]}`
	wirePayload     = `{"x402Version":2,"resource":` + wireResource + `,"accepted":` + wireRequirement + `,"payload":{"transaction":"AAAAAgAAAAA="}}`
	wireSettled     = `{"success":true,"transaction":"` + wireHash + `","network":"stellar:testnet","payer":"` + wirePayTo + `"}`
	wireRefused     = `{"success":false,"transaction":"","network":"stellar:testnet","payer":"` + wirePayTo + `","errorReason":"insufficient_funds","errorMessage":"balance too low"}`
)

// TestWireDocuments: each document, both directions.
func TestWireDocuments(t *testing.T) {
	requirement := Requirement{Scheme: "exact", Network: "stellar:testnet", Amount: "15000000", Asset: usdc, PayTo: wirePayTo,
		MaxTimeoutSeconds: 300, Extra: map[string]any{"areFeesSponsored": true}}
	payload := Payload{X402Version: 2, Resource: json.RawMessage(wireResource), Accepted: json.RawMessage(wireRequirement)}
	payload.Payload.Transaction = "AAAAAgAAAAA="
	settled := Settlement{Success: true, Transaction: wireHash, Network: "stellar:testnet", Payer: wirePayTo}
	refused := Settlement{Network: "stellar:testnet", Payer: wirePayTo, ErrorReason: "insufficient_funds", ErrorMessage: "balance too low"}

	encode := []struct {
		name string
		got  func() (string, error)
		want string
	}{
		{"requirement", func() (string, error) { b, err := json.Marshal(requirement); return string(b), err }, wireRequirement},
		{"PAYMENT-REQUIRED", func() (string, error) {
			b, err := json.Marshal(Required{X402Version: 2, Error: "Payment required", Resource: json.RawMessage(wireResource),
				Accepts: []json.RawMessage{json.RawMessage(wireRequirement)}})
			return string(b), err
		}, wireRequired},
		{"PAYMENT-SIGNATURE", func() (string, error) { return payload.Encode() }, b64(wirePayload)},
		{"PAYMENT-RESPONSE settled", func() (string, error) { return EncodeSettlement(settled), nil }, b64(wireSettled)},
		{"PAYMENT-RESPONSE refused", func() (string, error) { return EncodeSettlement(refused), nil }, b64(wireRefused)},
	}
	for _, c := range encode {
		t.Run("encode "+c.name, func(t *testing.T) {
			got, err := c.got()
			if err != nil || got != c.want {
				t.Fatalf("got %s (%v)\nwant %s", got, err, c.want)
			}
		})
	}

	t.Run("decode PAYMENT-REQUIRED", func(t *testing.T) {
		pr, err := ParseRequired(http.Header{"Payment-Required": {b64(wireRequired)}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		r, amount, err := Select(pr, Policy{Network: "stellar:testnet", Asset: usdc})
		if err != nil {
			t.Fatal(err)
		}
		if amount.Cmp(big.NewInt(15000000)) != 0 || r.PayTo != wirePayTo || r.MaxTimeoutSeconds != 300 || r.Scheme != "exact" ||
			string(r.Raw) != wireRequirement || string(pr.Resource) != wireResource || pr.Error != "Payment required" {
			t.Fatalf("decoded %+v, amount %v, resource %s", r, amount, pr.Resource)
		}
	})
	t.Run("decode PAYMENT-SIGNATURE", func(t *testing.T) {
		p, err := DecodePayload(b64(wirePayload))
		if err != nil {
			t.Fatal(err)
		}
		if p.X402Version != 2 || p.Payload.Transaction != "AAAAAgAAAAA=" || string(p.Accepted) != wireRequirement || string(p.Resource) != wireResource {
			t.Fatalf("decoded %+v", p)
		}
	})
	for _, c := range []struct {
		name, doc string
		want      Settlement
	}{{"settled", wireSettled, settled}, {"refused", wireRefused, refused}} {
		t.Run("decode PAYMENT-RESPONSE "+c.name, func(t *testing.T) {
			s, ok := DecodeSettlement(http.Header{"Payment-Response": {b64(c.doc)}})
			if !ok || *s != c.want {
				t.Fatalf("decoded %+v (%v), want %+v", s, ok, c.want)
			}
		})
	}
}
