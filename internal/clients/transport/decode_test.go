package transport

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/mindvault/mcp-endpoint/errmap"
)

// TestDecodeJSON: a body is taken only as the one JSON value its route promises; null, the
// other kind of value, nothing or a broken document never decode into a zero value.
func TestDecodeJSON(t *testing.T) {
	cases := []struct {
		body          string
		object, array bool // decodes as an object, as an array
	}{
		{body: `{"id":"a"}`, object: true},
		{body: " \n{}\t", object: true},
		{body: `[{"id":"a"}]`, array: true},
		{body: ` []`, array: true},
		{body: `null`},
		{body: `"a"`},
		{body: `42`},
		{body: ``},
		{body: `{"id":`},
		{body: `[1,`},
	}
	for _, tc := range cases {
		t.Run(tc.body, func(t *testing.T) {
			var o map[string]any
			if err := DecodeObject([]byte(tc.body), &o); (err == nil) != tc.object {
				t.Errorf("DecodeObject: %v, want success %v", err, tc.object)
			}
			var a []any
			if err := DecodeArray([]byte(tc.body), &a); (err == nil) != tc.array {
				t.Errorf("DecodeArray: %v, want success %v", err, tc.array)
			}
		})
	}
}

// TestObject: a 2xx object that the route's check accepts is the answer; any other 2xx body
// is MALFORMED_RESPONSE naming what is wrong, and a non-2xx status is the status failure.
func TestObject(t *testing.T) {
	type doc struct {
		ID string `json:"id"`
	}
	hasID := func(d *doc) bool { return d.ID != "" }
	cases := []struct {
		name   string
		status int
		body   string
		valid  func(*doc) bool
		id     string // the decoded id; "" when the call fails
		code   string // the failure's code
	}{
		{name: "an object the check accepts", status: 200, body: `{"id":"a"}`, valid: hasID, id: "a"},
		{name: "any object without a check", status: 200, body: `{}`, id: ""},
		{name: "an object the check rejects", status: 200, body: `{"id":""}`, valid: hasID, code: errmap.CodeMalformedResponse},
		{name: "an array", status: 200, body: `[]`, valid: hasID, code: errmap.CodeMalformedResponse},
		{name: "null", status: 200, body: `null`, code: errmap.CodeMalformedResponse},
		{name: "a status failure", status: 404, body: `{"id":"a"}`, valid: hasID, code: errmap.CodeNotFound},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				w.WriteHeader(tc.status)
				_, _ = w.Write([]byte(tc.body))
			}))
			t.Cleanup(srv.Close)
			got, err := Object(context.Background(), service(srv.URL), Get("/doc", "GET /doc"), tc.valid, "no document with an id")
			if tc.code == "" {
				if err != nil || got.ID != tc.id {
					t.Fatalf("Object = %+v, %v; want id %q", got, err, tc.id)
				}
				return
			}
			f, ok := errmap.FactsOf(err)
			if got != nil || !ok {
				t.Fatalf("Object = %+v, %v; want a failure", got, err)
			}
			if d := errmap.Map(f).Diagnostic; d.Code != tc.code {
				t.Fatalf("code %s (%+v), want %s", d.Code, f, tc.code)
			}
			if tc.code == errmap.CodeMalformedResponse && f.Detail != "unexpected response shape: no document with an id" {
				t.Fatalf("detail %q", f.Detail)
			}
		})
	}
}
