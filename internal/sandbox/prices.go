package sandbox

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
)

// SetPrice changes a resource's price the way its publisher would: the API's listed price
// and, for a registered resource, its on-chain entry with it, so the paywall asks the new
// price instead of answering price_mismatch. price is a USDC decimal ("2.5"). Tests use it to
// change a price between two calls (a purchase the user approved at the old price).
func (s *Sandbox) SetPrice(id, price string) error {
	units, err := parseStroops(price)
	if err != nil || units <= 0 {
		return fmt.Errorf("price %q is not a positive USDC amount", price)
	}
	s.world.cat.Lock()
	defer s.world.cat.Unlock()
	res, ok := s.world.byID[id]
	if !ok {
		return fmt.Errorf("no resource %q", id)
	}
	res.price = usdcDecimal(units)
	unlock := s.lockChain()
	defer unlock()
	if e, ok := s.world.reg.byID[id]; ok {
		e.Price = units
	}
	return nil
}

// apiSetPrice is POST /sandbox/resources/{id}/price {"price": "2.5"}: SetPrice over HTTP, for
// test clients outside the process (the TypeScript smoke scripts). It exists on the sandbox
// only; the real API changes prices through its publisher routes.
func (s *Sandbox) apiSetPrice(w http.ResponseWriter, r *http.Request, params []string) {
	var body struct {
		Price string `json:"price"`
	}
	raw, _ := io.ReadAll(io.LimitReader(r.Body, 4096))
	if json.Unmarshal(raw, &body) != nil {
		apiError(w, http.StatusBadRequest, "body must be {\"price\": \"<USDC>\"}")
		return
	}
	if err := s.SetPrice(params[0], body.Price); err != nil {
		apiError(w, http.StatusBadRequest, err.Error())
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"id": params[0], "price": body.Price})
}
