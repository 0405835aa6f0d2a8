package nullrpc

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestNewCutsAroundTheTopLevelID(t *testing.T) {
	for _, tc := range []struct {
		name, response, request, want string
	}{
		{"id first", `{"jsonrpc":"2.0","id":1,"result":{}}` + "\n",
			`{"jsonrpc":"2.0","id":"a","method":"ping"}`, `{"jsonrpc":"2.0","id":"a","result":{}}` + "\n"},
		{"id after a result that holds ids", `{"jsonrpc":"2.0","result":{"id":1,"t":"\"id\":1"},"id":1}`,
			`{"jsonrpc":"2.0","id":99,"method":"x"}`, `{"jsonrpc":"2.0","result":{"id":1,"t":"\"id\":1"},"id":99}`},
		{"whitespace kept", "{ \"jsonrpc\" : \"2.0\" ,\n \"id\" : 1 , \"error\" : {\"code\":-32601} }",
			`{"jsonrpc":"2.0","id":[1],"method":"x"}`, "{ \"jsonrpc\" : \"2.0\" ,\n \"id\" : [1] , \"error\" : {\"code\":-32601} }"},
		{"string id with escapes", `{"jsonrpc":"2.0","id":"x\"y","result":1}`,
			`{"jsonrpc":"2.0","id":"p\u00fcq","method":"x","params":{"id":5}}`, `{"jsonrpc":"2.0","id":"p\u00fcq","result":1}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, err := New([]byte(tc.response))
			if err != nil {
				t.Fatal(err)
			}
			got, ok := a.Respond(nil, []byte(tc.request))
			if !ok || string(got) != tc.want {
				t.Errorf("Respond = %q, %v; want %q", got, ok, tc.want)
			}
		})
	}
}

func TestNewRefusesWhatIsNotAResponse(t *testing.T) {
	for _, response := range []string{
		``, `[1]`, `"id"`, `{"jsonrpc":"2.0","result":1}`, `{"jsonrpc":"2.0","id":1}`,
		`{"jsonrpc":"2.0","id":1,"result":}`, `{"jsonrpc":"2.0","id":1,"result":{}`,
	} {
		if _, err := New([]byte(response)); err == nil {
			t.Errorf("New(%q) accepted it", response)
		}
	}
}

func TestHandlerRefusesWhatIsNotARequest(t *testing.T) {
	a, err := New([]byte(`{"jsonrpc":"2.0","id":1,"result":{}}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		body string
		code int
	}{
		{`{"jsonrpc":"2.0","id":3,"method":"tools/list"}`, http.StatusOK},
		{`{"jsonrpc":"1.0","id":3,"method":"tools/list"}`, http.StatusBadRequest},
		{`{"jsonrpc":"2.0","method":"notifications/initialized"}`, http.StatusBadRequest},
		{`{"jsonrpc":"2.0","id":3,`, http.StatusBadRequest},
	} {
		rec := httptest.NewRecorder()
		a.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(tc.body)))
		body, _ := io.ReadAll(rec.Body)
		if rec.Code != tc.code {
			t.Errorf("%s: HTTP %d (%s), want %d", tc.body, rec.Code, body, tc.code)
		}
		if tc.code == http.StatusOK && (string(body) != `{"jsonrpc":"2.0","id":3,"result":{}}` || rec.Header().Get("Content-Type") != "application/json") {
			t.Errorf("%s: %s %q", tc.body, body, rec.Header().Get("Content-Type"))
		}
	}
}
