package e2e_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/mindvault/mcp-endpoint/internal/server"
	"github.com/mindvault/mcp-endpoint/internal/server/funcurl"
	"github.com/mindvault/mcp-endpoint/internal/testkit/schemacheck"
)

// card is what the tests read of a served server card.
type card struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	Remotes []struct {
		URL     string `json:"url"`
		Headers []struct {
			Name     string `json:"name"`
			IsSecret bool   `json:"isSecret"`
		} `json:"headers"`
	} `json:"remotes"`
	Meta struct {
		Tools []struct {
			Name        string          `json:"name"`
			Annotations json.RawMessage `json:"annotations"`
		} `json:"io.github.mindvault/tools"`
	} `json:"_meta"`
}

// checkCard asserts a served card: the headers the extension asks for (media type, CORS,
// caching, an ETag that a revalidation answers with 304), valid against the copied schema,
// named and versioned as the code, with the tools tools/list serves and their annotations,
// and none of the secrets.
func checkCard(t *testing.T, status int, h http.Header, body string, wantURL string, tools map[string]json.RawMessage, secrets ...string) card {
	t.Helper()
	if status != 200 || h.Get("Content-Type") != server.CardMediaType || h.Get("Access-Control-Allow-Origin") != "*" ||
		!strings.Contains(h.Get("Cache-Control"), "max-age=") || h.Get("ETag") == "" {
		t.Fatalf("card answer %d %v", status, h)
	}
	schema, err := os.ReadFile("testdata/server-card.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := schemacheck.ValidateAt(schema, "/$defs/ServerCard", []byte(body)); err != nil {
		t.Fatalf("the card is not a valid server card: %v\n%s", err, body)
	}
	var c card
	if err := json.Unmarshal([]byte(body), &c); err != nil {
		t.Fatal(err)
	}
	if c.Name != server.RegistryName || c.Version != server.Version || len(c.Remotes) != 1 || c.Remotes[0].URL != wantURL {
		t.Fatalf("card identity or remote: %s", body)
	}
	var names []string
	for _, tl := range c.Meta.Tools {
		names = append(names, tl.Name)
		var a map[string]any
		if json.Unmarshal(tl.Annotations, &a) != nil || a["readOnlyHint"] == nil || a["destructiveHint"] == nil {
			t.Errorf("tool %s has no annotations: %s", tl.Name, tl.Annotations)
		}
	}
	if len(tools) == 0 || len(names) != len(tools) {
		t.Fatalf("card tools %v, tools/list serves %d", names, len(tools))
	}
	for n := range tools {
		if !slices.Contains(names, n) {
			t.Errorf("tools/list serves %s, the card does not name it", n)
		}
	}
	for _, s := range secrets {
		if strings.Contains(body, s) {
			t.Errorf("the card holds a secret: %s", body)
		}
	}
	return c
}

// TestServerCard: the endpoint serves its server card without auth, over loopback from the
// local server and through the Function URL event path, built from the tools it serves.
func TestServerCard(t *testing.T) {
	t.Run("local server over loopback", func(t *testing.T) {
		e := newEnv(t, authVars(tokenAll))     // e.schemas: the tools tools/list serves, with the token
		srv := httptest.NewServer(e.b.Handler) // 127.0.0.1
		t.Cleanup(srv.Close)
		get := func(etag string) *http.Response {
			req, _ := http.NewRequest(http.MethodGet, srv.URL+server.CardPath, nil)
			req.Header.Set("Accept", server.CardMediaType)
			if etag != "" {
				req.Header.Set("If-None-Match", etag)
			}
			resp, err := srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			return resp
		}
		resp := get("") // no token
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		tools := e.schemas
		c := checkCard(t, resp.StatusCode, resp.Header, string(body), "https://mcp.example.org/mcp", tools, tokenAll, tokenAlice, digest(tokenAll))
		if h := c.Remotes[0].Headers; len(h) != 1 || h[0].Name != "Authorization" || !h[0].IsSecret {
			t.Errorf("the remote does not ask for the Authorization header: %s", body)
		}
		again := get(resp.Header.Get("ETag"))
		again.Body.Close()
		if again.StatusCode != http.StatusNotModified {
			t.Errorf("revalidation: %d, want 304", again.StatusCode)
		}
		// The MCP path itself still needs the token.
		post, _ := http.Post(srv.URL+"/mcp", "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		post.Body.Close()
		if post.StatusCode != http.StatusUnauthorized {
			t.Errorf("POST /mcp without a token: %d, want 401", post.StatusCode)
		}
	})
	t.Run("Function URL event", func(t *testing.T) {
		// Lambda defaults to tokens: the card needs none.
		vars := map[string]string{"MINDVAULT_TOOLSETS": "catalog", "MINDVAULT_ACCESS_TOKENS": digest(tokenAll) + ":*"}
		b := server.Boot(func(k string) string { return vars[k] }, true, io.Discard)
		if b.Err != nil {
			t.Fatal(b.Err)
		}
		handler := funcurl.Handler(b.Handler)
		event := func(method, body string, headers map[string]string) events.LambdaFunctionURLResponse {
			var ev events.LambdaFunctionURLRequest
			ev.RawPath, ev.Body, ev.Headers = server.CardPath, body, headers
			if method == http.MethodPost {
				ev.RawPath = "/mcp"
			}
			ev.RequestContext.HTTP.Method = method
			ev.RequestContext.DomainName = "abcdefghij.lambda-url.us-east-1.on.aws"
			resp, err := handler(context.Background(), ev)
			if err != nil {
				t.Fatal(err)
			}
			return resp
		}
		resp := event(http.MethodGet, "", map[string]string{"accept": server.CardMediaType})
		h := http.Header{}
		for k, v := range resp.Headers {
			h.Set(k, v)
		}
		// A deployment narrowed to the catalog toolset: the card lists what its tools/list does.
		listed := event(http.MethodPost, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, map[string]string{
			"content-type": "application/json", "accept": "application/json, text/event-stream", "authorization": "Bearer " + tokenAll,
			"mcp-protocol-version": "2025-06-18"})
		var list struct {
			Result struct {
				Tools []struct {
					Name string `json:"name"`
				} `json:"tools"`
			} `json:"result"`
		}
		_ = json.Unmarshal([]byte(listed.Body), &list)
		catalog := map[string]json.RawMessage{}
		for _, tl := range list.Result.Tools {
			catalog[tl.Name] = nil
		}
		checkCard(t, resp.StatusCode, h, resp.Body, "https://abcdefghij.lambda-url.us-east-1.on.aws/mcp", catalog)
	})
}

// TestServerJSON: the committed server.json is valid against the MCP Registry's schema, and
// names the server and its version as the code does.
func TestServerJSON(t *testing.T) {
	schema, err := os.ReadFile("testdata/server.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile("../../server.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := schemacheck.Validate(schema, doc); err != nil {
		t.Fatalf("server.json is not valid against the registry's schema: %v", err)
	}
	var s struct {
		Schema      string `json:"$schema"`
		Name        string `json:"name"`
		Version     string `json:"version"`
		Description string `json:"description"`
		Remotes     []struct {
			URL string `json:"url"`
		} `json:"remotes"`
	}
	if err := json.Unmarshal(doc, &s); err != nil {
		t.Fatal(err)
	}
	var id struct {
		ID string `json:"$id"`
	}
	_ = json.Unmarshal(schema, &id)
	if s.Schema != id.ID || s.Name != server.RegistryName || s.Version != server.Version || s.Description != server.Description ||
		len(s.Remotes) != 1 || !strings.HasSuffix(s.Remotes[0].URL, ".on.aws/mcp") {
		t.Fatalf("server.json says %+v; the code is %s %s, the schema %s", s, server.RegistryName, server.Version, id.ID)
	}
}
