package sandbox

import (
	"archive/zip"
	"bytes"
	"encoding/hex"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// The MindVault API's paid routes behind the x402 paywall (facilitator.go).

// apiBuy is GET /resources/{id}. Before any 402: 404 for an unknown or unlisted resource;
// for a resource the API says is registered, 503 chain_unavailable when the registry does
// not have it and 409 price_mismatch when the on-chain price differs from the API's.
func (s *Sandbox) apiBuy(w http.ResponseWriter, r *http.Request, params []string) {
	s.syncCatalog()
	s.world.cat.RLock()
	res, ok := s.world.byID[params[0]]
	var cp resource
	if ok {
		cp = *res
	}
	s.world.cat.RUnlock()
	switch {
	case !ok:
		apiError(w, http.StatusNotFound, "Resource not found")
		return
	case !cp.listed:
		apiError(w, http.StatusNotFound, "Resource not listed")
		return
	}
	price, err := parseStroops(cp.price)
	if err != nil {
		apiError(w, http.StatusInternalServerError, "Internal server error")
		return
	}
	if cp.onchain == "registered" {
		entry, found := s.RegistryResource(cp.id)
		switch {
		case !found:
			writeJSON(w, http.StatusServiceUnavailable, map[string]string{"error": "chain_unavailable",
				"message": "The resource's on-chain record could not be read", "resourceId": cp.id})
			return
		case entry.Price != price:
			writeJSON(w, http.StatusConflict, map[string]string{"error": "price_mismatch",
				"message":    fmt.Sprintf("The listed price (%s USDC) differs from the on-chain price (%s USDC)", cp.price, usdcDecimal(entry.Price)),
				"resourceId": cp.id})
			return
		}
	}
	mimeType := "application/json"
	if cp.kind == "file" {
		mimeType = cp.mime
	}
	o := s.newOffer(r.URL.Path, cp.title, mimeType, price, cp.wallet)
	header, ok := s.paymentSignature(w, r, o)
	if !ok {
		return
	}
	st, ok := s.settlePayment(w, o, header)
	if !ok {
		return
	}
	paymentID := uuidFrom(st.Transaction)
	s.recordPurchase(st.Payer, &cp, paymentID, st.Transaction)
	if cp.kind == "link" {
		writeJSON(w, http.StatusOK, map[string]any{"url": s.deliveredURL(&cp), "receipt": map[string]string{
			"paymentId": paymentID, "amount": cp.price, "currency": "USDC", "paidTo": cp.wallet, "paidAt": jsTime(s.now()),
		}})
		return
	}
	body, ext := fileContent(&cp)
	h := w.Header()
	h.Set("Content-Type", cp.mime)
	h.Set("Content-Length", strconv.Itoa(len(body)))
	h.Set("Content-Disposition", `attachment; filename="`+cp.id+ext+`"`)
	h.Set("X-Payment-Id", paymentID)
	h.Set("X-Payment-Amount", cp.price+" USDC") // amount and currency in one value, as the real server sends it
	h.Set("X-Payment-Recipient", cp.wallet)
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
}

// FileContent returns the bytes and media type a paid purchase of the file resource id
// delivers, so tests can check what a buyer received against the seller's own bytes.
func (s *Sandbox) FileContent(id string) (body []byte, mimeType string, ok bool) {
	s.world.cat.RLock()
	defer s.world.cat.RUnlock()
	r, found := s.world.byID[id]
	if !found || r.kind != "file" {
		return nil, "", false
	}
	body, _ = fileContent(r)
	return body, r.mime, true
}

// uuidFrom shapes a settlement hash as a v4-style UUID, the receipt's payment id.
func uuidFrom(hash string) string {
	b, err := hex.DecodeString(hash)
	if err != nil || len(b) < 16 {
		b = make([]byte, 16)
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	x := hex.EncodeToString(b[:16])
	return x[:8] + "-" + x[8:12] + "-" + x[12:16] + "-" + x[16:20] + "-" + x[20:]
}

// fileContent is a file resource's bytes and file extension: short text for text/markdown and
// text/plain, a small but real PDF, ZIP or PNG otherwise. Deterministic per resource.
func fileContent(r *resource) ([]byte, string) {
	switch r.mime {
	case "text/markdown":
		return []byte("# " + r.title + "\n\n" + r.description + "\n\n- Sandbox copy of `" + r.id + "`.\n- Published by " + r.publisher + ".\n"), ".md"
	case "text/plain":
		return []byte(r.title + "\n\n" + r.description + "\n"), ".txt"
	case "application/pdf":
		text := strings.NewReplacer(`\`, `\\`, "(", `\(`, ")", `\)`).Replace(r.title)
		stream := "BT /F1 18 Tf 72 720 Td (" + text + ") Tj ET"
		return []byte("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n" +
			"1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n" +
			"2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1 >> endobj\n" +
			"3 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >> endobj\n" +
			"4 0 obj << /Length " + strconv.Itoa(len(stream)) + " >>\nstream\n" + stream + "\nendstream endobj\n" +
			"5 0 obj << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> endobj\n" +
			"trailer << /Root 1 0 R >>\n%%EOF\n"), ".pdf"
	case "application/zip":
		var buf bytes.Buffer
		zw := zip.NewWriter(&buf)
		for _, f := range []struct{ name, body string }{
			{"README.md", "# " + r.title + "\n\n" + r.description + "\n"},
			{"prompts/research.txt", "You are a careful research agent. Cite sources.\n"},
		} {
			fw, err := zw.CreateHeader(&zip.FileHeader{Name: f.name, Method: zip.Deflate, Modified: r.created})
			if err == nil {
				_, _ = fw.Write([]byte(f.body))
			}
		}
		_ = zw.Close()
		return buf.Bytes(), ".zip"
	case "image/png":
		img := image.NewRGBA(image.Rect(0, 0, 16, 16))
		for y := range 16 {
			for x := range 16 {
				img.Set(x, y, color.RGBA{uint8(16 * x), uint8(16 * y), uint8(len(r.id) * 9), 255})
			}
		}
		var buf bytes.Buffer
		_ = png.Encode(&buf, img)
		return buf.Bytes(), ".png"
	}
	return []byte(r.title + "\n"), ""
}

// apiVerifyContent is POST /verify-content: paid (the agent's fee, to the agent's wallet).
// As behind @x402/express, the payment is verified first, then the handler runs; a 4xx from
// the handler (bad body, unknown resource) is not settled, so nothing is charged.
func (s *Sandbox) apiVerifyContent(w http.ResponseWriter, r *http.Request, _ []string) {
	fee, _ := parseStroops(verificationFee)
	o := s.newOffer(r.URL.Path, "AI content originality verification", "application/json", fee, s.world.byName["agent"].Address)
	header, ok := s.paymentSignature(w, r, o)
	if !ok || !s.checkPayment(w, o, header) {
		return
	}
	body, ok := readZodBody(w, r, []zodField{
		{name: "content", check: minLen},
		{name: "resourceId", optional: true},
	})
	if !ok {
		return
	}
	id, withResource := body["resourceId"]
	if withResource {
		s.world.cat.RLock()
		_, found := s.world.byID[id]
		s.world.cat.RUnlock()
		if !found {
			apiError(w, http.StatusNotFound, "Resource not found")
			return
		}
	}
	if _, ok := s.settlePayment(w, o, header); !ok {
		return
	}
	v := judge(body["content"], s.now())
	if withResource {
		s.world.cat.Lock()
		if res := s.world.byID[id]; res != nil {
			res.check = v
			res.status = "rejected"
			if v.original {
				res.status = "verified"
			}
			res.listed = v.original
		}
		s.world.cat.Unlock()
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"isOriginal": v.original, "confidence": v.confidence, "flags": v.flags,
		"usage": map[string]any{"promptTokens": 1480, "completionTokens": 212, "totalTokens": 1692,
			"estimatedCostUsd": 0.0004, "model": "gpt-4o-mini"},
	})
}

// judge is the sandbox's verification agent: content containing "copied" (any case) is a
// near-duplicate; anything else is original.
func judge(content string, now time.Time) *verification {
	if containsFold(content, "copied") {
		return &verification{original: false, confidence: 0.88, flags: []string{"near-duplicate of an existing resource"}, checked: now}
	}
	return &verification{original: true, confidence: 0.93, flags: []string{}, checked: now}
}
