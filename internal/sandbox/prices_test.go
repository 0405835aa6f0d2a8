package sandbox

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stellar/go-stellar-sdk/xdr"

	"github.com/mindvault/mcp-endpoint/internal/clients/soroban"
)

// TestCatalogCatchesUpWithChainPrice: after a direct set_price on chain the API keeps the old
// price, and the paywall answers 409 price_mismatch, until CatalogSync has passed (the real
// API's listener polls every 30 s); then the catalog, /meta and the paywall agree again.
func TestCatalogCatchesUpWithChainPrice(t *testing.T) {
	sb, clk := start(t, "")
	clk.advance(2 * ledgerSeconds * time.Second) // the write lands after the seeded state
	unlock := sb.lockChain()
	_, err := sb.world.invokeTx(sb.world.byName["creator"], "set_price", []xdr.ScVal{soroban.Str("zkprimer"), scI128(70000000)}, sb.LatestLedger())
	unlock()
	if err != nil {
		t.Fatal(err)
	}
	price := func() string {
		var m metaBody
		if err := json.Unmarshal(get(t, sb.APIURL+"/resources/zkprimer/meta").body, &m); err != nil {
			t.Fatal(err)
		}
		return m.Price
	}
	if p := price(); p != "6.25" {
		t.Fatalf("right after the write the catalog says %s, want the old 6.25", p)
	}
	if r := get(t, sb.APIURL+"/resources/zkprimer"); r.status != 409 {
		t.Fatalf("the paywall before the sync: %d %s", r.status, r.body)
	}
	clk.advance(DefaultCatalogSync - 2*ledgerSeconds*time.Second)
	if p := price(); p != "6.25" {
		t.Fatalf("before 30 s the catalog says %s", p)
	}
	clk.advance(2 * ledgerSeconds * time.Second)
	if p := price(); p != "7.00" {
		t.Fatalf("after 30 s the catalog says %s, want 7.00", p)
	}
	if r := get(t, sb.APIURL+"/resources/zkprimer"); r.status != 402 {
		t.Fatalf("the paywall after the sync: %d %s", r.status, r.body)
	}
}
