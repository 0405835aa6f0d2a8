package validate

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// Head, Tail and Inner are argument groups as package requests declares them: Head opens a
// request and carries a cross-field rule, Tail closes it and embeds Inner in turn.
type Head struct {
	ResourceID string `json:"resourceId" validate:"required,resourceid" jsonschema_description:"the resource"`
}

func (h *Head) CrossCheck() []Issue { return reserved(h.ResourceID) }

type Tail struct {
	Profile *string `json:"profile,omitempty" validate:"omitnil,profile" jsonschema_description:"who signs"`
	Inner
}

type Inner struct {
	Confirm bool `json:"confirm,omitempty" jsonschema_description:"say yes"`
}

// grouped and flat declare the same arguments, once through groups and once field by field.
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

func (f *flat) CrossCheck() []Issue { return reserved(f.ResourceID) }

func reserved(id string) []Issue {
	if id == "reserved" {
		return []Issue{{Path: "/resourceId", Rule: "reserved", Message: "is reserved"}}
	}
	return nil
}

// TestEmbeddedGroupsAreFlat: a request built from embedded groups accepts the same arguments in
// the same order, with the same rules, and reports the same issues at the same paths in the same
// order as the same request written field by field, and decodes to the same values (that it
// advertises the same schema is internal/gen/schemagen's TestGroupsAdvertiseTheFlatSchema).
func TestEmbeddedGroupsAreFlat(t *testing.T) {
	g, f := For[grouped](), For[flat]()
	if !reflect.DeepEqual(g.Arguments(), f.Arguments()) {
		t.Fatalf("arguments differ:\n grouped %+v\n flat    %+v", g.Arguments(), f.Arguments())
	}
	if strings.Join(g.Names(), ",") != strings.Join(f.Names(), ",") {
		t.Fatalf("names differ: %v vs %v", g.Names(), f.Names())
	}
	for _, args := range []string{
		`{}`,
		`{"resourceId":" a ","tags":["X","x"],"profile":" p ","confirm":true}`,
		`{"resourceId":"a b","tags":["ok","no way","c"],"limit":0,"profile":"..","confirm":"yes","zz":1}`,
		`{"confirm":null,"profile":5,"limit":10,"tags":[1],"resourceId":""}`,
		`{"resourceId":"reserved","tags":[]}`,
		`{"resourceId":"a","tags":[],"resourceId":"b"}`,
	} {
		gv, gi := Decode[grouped](json.RawMessage(args))
		fv, fi := Decode[flat](json.RawMessage(args))
		if !reflect.DeepEqual(gi, fi) {
			t.Errorf("%s: issues differ:\n grouped %+v\n flat    %+v", args, gi, fi)
		}
		gj, _ := json.Marshal(gv)
		fj, _ := json.Marshal(fv)
		if string(gj) != string(fj) {
			t.Errorf("%s: values differ: %s vs %s", args, gj, fj)
		}
	}
	if _, issues := Decode[grouped](json.RawMessage(`{"resourceId":"reserved","tags":[]}`)); len(issues) != 1 || issues[0].Rule != "reserved" {
		t.Errorf("the group's cross-field rule did not run: %+v", issues)
	}
}

type hidden struct{ Confirm bool }

type badGroups struct {
	name string
	typ  reflect.Type
	want string
}

// TestEmbeddedGroupsRefused: groups the decoder could not fill, or that declare an argument
// twice, fail when the model is compiled rather than at a call.
func TestEmbeddedGroupsRefused(t *testing.T) {
	type unexported struct{ hidden }
	type pointer struct{ *Inner }
	type twice struct {
		Inner
		Confirm bool `json:"confirm,omitempty"`
	}
	for _, tc := range []badGroups{
		{"unexported group", reflect.TypeFor[unexported](), "exported struct"},
		{"pointer group", reflect.TypeFor[pointer](), "exported struct"},
		{"argument twice", reflect.TypeFor[twice](), "declared twice"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := compile(tc.typ); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("compile = %v, want an error about %q", err, tc.want)
			}
		})
	}
}
