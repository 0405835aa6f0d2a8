package schemagen

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/mindvault/mcp-endpoint/validate"
)

// sample exercises every kind, shape and rule the request models use.
type sample struct {
	ResourceID string   `json:"resourceId" validate:"required,resourceid" jsonschema_description:"the resource"`
	Limit      int      `json:"limit" validate:"min=1,max=100" jsonschema:"default=20"`
	Offset     *int     `json:"offset,omitempty" validate:"omitnil,min=0"`
	Sort       *string  `json:"sort,omitempty" validate:"omitnil,oneof=newest price_asc"`
	Price      *string  `json:"price,omitempty" validate:"omitnil,usdcpos"`
	Account    *string  `json:"account,omitempty" validate:"omitnil,gaccount"`
	TxHash     *string  `json:"txHash,omitempty" validate:"omitnil,txhash"`
	Metadata   *string  `json:"metadata,omitempty" validate:"omitnil,metaptr"`
	Link       *string  `json:"link,omitempty" validate:"omitnil,httpurl"`
	Tags       []string `json:"tags,omitempty" validate:"omitempty,max=8,dive,tag"`
	Email      *string  `json:"email,omitempty" validate:"omitnil,max=254,email"`
	Listed     *bool    `json:"listed,omitempty"`
}

func (sample) DependentRequired() map[string][]string { return map[string][]string{"sort": {"limit"}} }

func TestInputFromTags(t *testing.T) {
	var s struct {
		Type                 string                     `json:"type"`
		Required             []string                   `json:"required"`
		AdditionalProperties *bool                      `json:"additionalProperties"`
		Properties           map[string]json.RawMessage `json:"properties"`
		DependentRequired    map[string][]string        `json:"dependentRequired"`
	}
	m := validate.For[sample]()
	raw, err := Input(m)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	if s.Type != "object" || s.AdditionalProperties == nil || *s.AdditionalProperties {
		t.Fatalf("schema must be a closed object: %s", raw)
	}
	if strings.Join(s.Required, ",") != "resourceId" {
		t.Errorf("required = %v", s.Required)
	}
	if strings.Contains(string(raw), "$ref") || strings.Contains(string(raw), "$defs") {
		t.Errorf("schema must be inlined: %s", raw)
	}
	want := map[string]string{
		"resourceId": `"maxLength":128`,
		"limit":      `"maximum":100`,
		"offset":     `"minimum":0`,
		"sort":       `"enum":["newest","price_asc"]`,
		"tags":       `"maxItems":8`,
		"email":      `"format":"email"`,
		"account":    `"pattern":"^G[A-Z2-7]{55}$"`,
		"link":       `"format":"uri"`,
		"txHash":     `"maxLength":71,"minLength":64`,
		"price":      `"type":["string","number"]`,
	}
	if p := string(s.Properties["price"]); !strings.Contains(p, `"exclusiveMinimum":0`) || !strings.Contains(p, `"maximum":100000000000`) || !strings.Contains(p, `"pattern"`) {
		t.Errorf("price must carry the bounds of both forms: %s", p)
	}
	for prop, frag := range want {
		if !strings.Contains(string(s.Properties[prop]), frag) {
			t.Errorf("property %s lacks %s: %s", prop, frag, s.Properties[prop])
		}
	}
	if !strings.Contains(string(s.Properties["limit"]), `"default":20`) {
		t.Errorf("limit default not advertised: %s", s.Properties["limit"])
	}
	if !strings.Contains(string(s.Properties["tags"]), `"items":{"type":"string","maxLength":32,"minLength":1,"pattern"`) {
		t.Errorf("tag items not constrained: %s", s.Properties["tags"])
	}
	if got := s.DependentRequired["sort"]; len(got) != 1 || got[0] != "limit" {
		t.Errorf("dependentRequired = %v", s.DependentRequired)
	}
	if got, want := len(s.Properties), len(m.Names()); got != want {
		t.Errorf("advertised %d properties, accepts %d", got, want)
	}
}

// Head and Tail are argument groups as package requests declares them.
type Head struct {
	ResourceID string `json:"resourceId" validate:"required,resourceid" jsonschema_description:"the resource"`
}

type Tail struct {
	Profile *string `json:"profile,omitempty" validate:"omitnil,profile" jsonschema_description:"who signs"`
	Inner
}

type Inner struct {
	Confirm bool `json:"confirm,omitempty" jsonschema_description:"say yes"`
}

type grouped struct {
	Head
	Tags  []string `json:"tags" validate:"required,max=2,dive,tag"`
	Limit int      `json:"limit,omitempty" validate:"min=1,max=9" jsonschema:"default=3"`
	Tail
}

type flat struct {
	ResourceID string   `json:"resourceId" validate:"required,resourceid" jsonschema_description:"the resource"`
	Tags       []string `json:"tags" validate:"required,max=2,dive,tag"`
	Limit      int      `json:"limit,omitempty" validate:"min=1,max=9" jsonschema:"default=3"`
	Profile    *string  `json:"profile,omitempty" validate:"omitnil,profile" jsonschema_description:"who signs"`
	Confirm    bool     `json:"confirm,omitempty" jsonschema_description:"say yes"`
}

// TestGroupsAdvertiseTheFlatSchema: a request built from embedded groups advertises exactly
// the schema of the same request written field by field.
func TestGroupsAdvertiseTheFlatSchema(t *testing.T) {
	g, err := Input(validate.For[grouped]())
	if err != nil {
		t.Fatal(err)
	}
	f, err := Input(validate.For[flat]())
	if err != nil {
		t.Fatal(err)
	}
	if string(g) != string(f) {
		t.Fatalf("schemas differ:\n grouped %s\n flat    %s", g, f)
	}
}

func TestOutputIsAClosedObject(t *testing.T) {
	type out struct {
		ID   string `json:"id"`
		Note string `json:"note,omitempty"`
	}
	raw, err := Output(reflect.TypeFor[out]())
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"properties":{"id":{"type":"string"},"note":{"type":"string"}},"additionalProperties":false,"type":"object","required":["id"]}`; string(raw) != want {
		t.Fatalf("output schema %s, want %s", raw, want)
	}
	if _, err := Output(reflect.TypeFor[[]string]()); err == nil {
		t.Fatal("a non-object output must be refused")
	}
}
