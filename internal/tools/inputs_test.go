package tools

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mindvault/mcp-endpoint/internal/gen/schemagen"
	"github.com/mindvault/mcp-endpoint/requests"
	"github.com/mindvault/mcp-endpoint/validate"
)

// issues renders a check's issues as "path rule" pairs, in order.
func issues(m *validate.Model, args string) string {
	var out []string
	for _, is := range m.Check(json.RawMessage(args)) {
		out = append(out, is.Path+" "+is.Rule)
	}
	return strings.Join(out, ", ")
}

// The cross-field rules no tag can say: the price range of browse and search, search's "at
// least one criterion", and publish's two shapes (a new resource, or resourceId alone).
func TestCrossFieldRules(t *testing.T) {
	browse, search, publish := validate.For[BrowseInput](), validate.For[SearchInput](), validate.For[PublishInput]()
	cases := []struct {
		name  string
		model *validate.Model
		args  string
		want  string // "" = accepted
	}{
		{"browse without filters", browse, `{}`, ""},
		{"browse, a range", browse, `{"minPrice":"0.5","maxPrice":"2"}`, ""},
		{"browse, equal bounds", browse, `{"minPrice":"2","maxPrice":"2.0"}`, ""},
		{"browse, bounds compared as numbers", browse, `{"minPrice":"10","maxPrice":"9.5"}`, "/minPrice ltefield"},
		{"browse, one bound", browse, `{"minPrice":"100"}`, ""},
		{"search with nothing", search, `{}`, "/query required_without_all"},
		{"search with only paging", search, `{"limit":5,"offset":5,"sort":"newest"}`, "/query required_without_all"},
		{"search by keyword", search, `{"query":"rust"}`, ""},
		{"search by one filter", search, `{"resourceType":"file"}`, ""},
		{"search by tags", search, `{"tags":["go"]}`, ""},
		{"search by listed false", search, `{"listed":false}`, ""},
		{"search, a reversed range is reported first", search, `{"minPrice":"3","maxPrice":"1"}`, "/minPrice ltefield"},
		{"publish a new resource", publish, `{"title":"T","price":"1.5","externalUrl":"https://x.example/a"}`, ""},
		{"publish a new resource with description", publish, `{"title":"T","description":"d","price":"1.5","externalUrl":"https://x.example/a"}`, ""},
		{"publish, resume", publish, `{"resourceId":"abc123","dryRun":true}`, ""},
		{"publish nothing", publish, `{}`, "/title required_without, /price required_without, /externalUrl required_without"},
		{"publish without a link", publish, `{"title":"T","price":"1"}`, "/externalUrl required_without"},
		{"publish, resume with new fields", publish, `{"resourceId":"abc123","title":"T","description":"d"}`, "/title excluded_with, /description excluded_with"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := issues(tc.model, tc.args); got != tc.want {
				t.Fatalf("issues = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestIntegerBounds: every integer argument is bounded by what the API or the tool takes: the
// catalog offset by 2^53-1, the largest integer the API (JavaScript numbers) reads exactly, so
// int64's maximum never reaches it; the registry's start by the contract's u32; limits and the
// wait by their documented ranges.
func TestIntegerBounds(t *testing.T) {
	browse, search := validate.For[BrowseInput](), validate.For[SearchInput]()
	cases := []struct {
		name  string
		model *validate.Model
		args  string
		want  string
	}{
		{"browse offset 0", browse, `{"offset":0}`, ""},
		{"browse offset at the bound", browse, `{"offset":9007199254740991}`, ""},
		{"browse offset above the bound", browse, `{"offset":9007199254740992}`, "/offset max"},
		{"browse offset of int64's maximum", browse, `{"offset":9223372036854775807}`, "/offset max"},
		{"browse offset beyond int64", browse, `{"offset":92233720368547758070}`, "/offset type"},
		{"browse offset negative", browse, `{"offset":-1}`, "/offset min"},
		{"search offset of int64's maximum", search, `{"query":"q","offset":9223372036854775807}`, "/offset max"},
		{"browse limit above 100", browse, `{"limit":101}`, "/limit max"},
		{"registry start at u32's maximum", validate.For[RegistryListInput](), `{"start":4294967295}`, ""},
		{"registry start above u32", validate.For[RegistryListInput](), `{"start":4294967296}`, "/start max"},
		{"registry limit above the contract's cap", validate.For[RegistryListInput](), `{"limit":21}`, "/limit max"},
		{"purchase history limit", validate.For[PurchaseHistoryInput](), `{"limit":101}`, "/limit max"},
		{"publish status wait", validate.For[PublishStatusInput](), `{"resourceId":"r","waitSeconds":61}`, "/waitSeconds max"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := issues(tc.model, tc.args); got != tc.want {
				t.Fatalf("issues = %q, want %q", got, tc.want)
			}
		})
	}
}

// The policies a tool declares read the request through these interfaces: every request with
// confirmMainnet answers MainnetConfirmed, and the two with dryRun answer DryRunRequested.
func TestPolicyInterfaces(t *testing.T) {
	confirmers := []struct {
		name string
		args string
		req  func(string) (requests.MainnetConfirmer, bool)
	}{
		{"buy", `{"resourceId":"r1","confirmMainnet":true}`, decodeAs[BuyInput]},
		{"publish", `{"resourceId":"r1","confirmMainnet":true}`, decodeAs[PublishInput]},
		{"register", `{"name":"A","email":"a@example.com","confirmMainnet":true}`, decodeAs[RegisterInput]},
		{"register_onchain", `{"resourceId":"r1","confirmMainnet":true}`, decodeAs[RegisterOnchainInput]},
		{"setup_wallet", `{"profile":"p","confirmMainnet":true}`, decodeAs[SetupWalletInput]},
		{"set_price", `{"resourceId":"r1","price":"1","confirmMainnet":true}`, decodeAs[SetPriceInput]},
	}
	for _, c := range confirmers {
		t.Run(c.name, func(t *testing.T) {
			yes, ok := c.req(c.args)
			if !ok || !yes.MainnetConfirmed() {
				t.Fatalf("confirmMainnet true not read (decoded %v)", ok)
			}
			no, ok := c.req(strings.Replace(c.args, `,"confirmMainnet":true`, "", 1))
			if !ok || no.MainnetConfirmed() {
				t.Fatalf("absent confirmMainnet read as true (decoded %v)", ok)
			}
		})
	}
	buy, _ := validate.Decode[BuyInput](json.RawMessage(`{"resourceId":"r1","dryRun":true}`))
	publish, _ := validate.Decode[PublishInput](json.RawMessage(`{"resourceId":"r1"}`))
	if !buy.DryRunRequested() || publish.DryRunRequested() {
		t.Fatal("dryRun misread")
	}
}

func decodeAs[T any](args string) (requests.MainnetConfirmer, bool) {
	v, issues := validate.Decode[T](json.RawMessage(args))
	if issues != nil {
		return nil, false
	}
	mc, ok := any(v).(requests.MainnetConfirmer)
	return mc, ok
}

// PublishInput's schema says what JSON Schema can of the two shapes: a new resource names title,
// price and externalUrl together.
func TestPublishSchemaDependentRequired(t *testing.T) {
	var s struct {
		DependentRequired map[string][]string `json:"dependentRequired"`
	}
	raw, err := schemagen.Input(validate.For[PublishInput]())
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"title": "price,externalUrl", "price": "title,externalUrl", "externalUrl": "title,price"}
	for k, v := range want {
		if got := strings.Join(s.DependentRequired[k], ","); got != v {
			t.Errorf("dependentRequired[%s] = %q, want %q", k, got, v)
		}
	}
}
