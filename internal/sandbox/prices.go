package sandbox

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"
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

// syncCatalog plays the API's event listener: the catalog takes the on-chain price of a
// registered resource whose entry changed since the sandbox started (a direct set_price)
// once CatalogSync has passed since that change. Before that, /meta and the catalog show the
// old price and the paywall answers 409 price_mismatch, as the real API does for up to 30 s.
// An entry the seed wrote (before the first ledger) is left alone: a test that sets its chain
// price directly keeps the mismatch it made.
func (s *Sandbox) syncCatalog() {
	now := s.now()
	s.world.cat.Lock()
	defer s.world.cat.Unlock()
	defer s.lockChain()()
	for _, res := range s.world.resources {
		if res.onchain != "registered" {
			continue
		}
		e, ok := s.world.reg.byID[res.id]
		if !ok || int64(e.UpdatedAt) < s.t0.Unix() || now.Before(time.Unix(int64(e.UpdatedAt), 0).Add(s.syncDelay)) {
			continue
		}
		if p, err := parseStroops(res.price); err == nil && p != e.Price {
			res.price = usdcDecimal(e.Price)
		}
	}
}
