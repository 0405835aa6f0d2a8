package e2e_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sort"
	"strings"
	"testing"
)

// wire is an endpoint served over loopback HTTP, as `make run` serves it.
type wire struct {
	t     *testing.T
	url   string
	token string
}

func serveWire(t *testing.T, e *env) *wire {
	t.Helper()
	srv := httptest.NewServer(e.b.Handler) // 127.0.0.1
	t.Cleanup(srv.Close)
	return &wire{t: t, url: srv.URL, token: e.token}
}

// wireAnswer is one JSON-RPC answer, decoded.
type wireAnswer struct {
	status int
	Result struct {
		Tools []struct {
			Name        string `json:"name"`
			Annotations struct {
				ReadOnlyHint bool `json:"readOnlyHint"`
			} `json:"annotations"`
		} `json:"tools"`
		Prompts []struct {
			Name string `json:"name"`
		} `json:"prompts"`
		Instructions string `json:"instructions"`
		CacheScope   string `json:"cacheScope"`
		IsError      bool   `json:"isError"`
	} `json:"result"`
	Error *struct {
		Code    int            `json:"code"`
		Message string         `json:"message"`
		Data    map[string]any `json:"data"`
	} `json:"error"`
}

func (a wireAnswer) tools() []string {
	var out []string
	for _, t := range a.Result.Tools {
		out = append(out, t.Name)
	}
	return out
}

func (a wireAnswer) prompts() []string {
	var out []string
	for _, p := range a.Result.Prompts {
		out = append(out, p.Name)
	}
	return out
}

// post sends body to path with the era's headers (mcpRequest) plus headers.
func (w *wire) post(path, body string, headers ...string) wireAnswer {
	w.t.Helper()
	req := mcpRequest(context.Background(), w.url+path, body, w.token)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		w.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	a := wireAnswer{status: resp.StatusCode}
	if err := json.Unmarshal(raw, &a); err != nil && resp.StatusCode == http.StatusOK {
		w.t.Fatalf("%s: HTTP %d, not JSON-RPC: %s", path, resp.StatusCode, raw)
	}
	return a
}

func listBody(method string) string {
	return `{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":{` + modernMeta + `}}`
}

func mv(names ...string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = "mindvault_" + n
	}
	sort.Strings(out)
	return out
}

// TestToolsetsFromTheEnvironment: MINDVAULT_TOOLSETS and MINDVAULT_READ_ONLY narrow
// tools/list, prompts/list and server/discover, and a disabled tool is -32602 naming the
// setting; a header can narrow further but never re-enable.
func TestToolsetsFromTheEnvironment(t *testing.T) {
	e := newEnv(t, map[string]string{"MINDVAULT_TOOLSETS": "catalog, ops,wallet"})
	w := serveWire(t, e)
	want := mv("browse", "search", "preview", "health", "network_profile", "tx_status", "wallet_info", "list_profiles", "setup_wallet")
	if got := w.post("/mcp", listBody("tools/list")).tools(); !slices.Equal(got, want) {
		t.Fatalf("tools/list %v, want %v", got, want)
	}
	if got := w.post("/mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`).tools(); !slices.Equal(got, want) {
		t.Errorf("legacy tools/list %v, want %v", got, want)
	}
	// The buy and publish walkthroughs name tools of other toolsets; troubleshoot names ops and
	// wallet tools.
	if got := w.post("/mcp", listBody("prompts/list")).prompts(); !slices.Equal(got, []string{"troubleshoot"}) {
		t.Errorf("prompts/list %v, want [troubleshoot]", got)
	}
	d := w.post("/mcp", listBody("server/discover"))
	if ins := d.Result.Instructions; !strings.Contains(ins, "narrowed on this endpoint") || !strings.Contains(ins, "(toolsets catalog, wallet, ops)") ||
		strings.Contains(ins, "buy") || !strings.Contains(ins, "mindvault_network_profile first") {
		t.Errorf("instructions %q", ins)
	}
	if d.Result.CacheScope != "public" {
		t.Errorf("discover cacheScope %q: the list depends on the deployment only", d.Result.CacheScope)
	}

	buy := callBody("mindvault_buy", `{"resourceId":"r1","maxPriceUsdc":"1"}`)
	a := w.post("/mcp", buy)
	if a.Error == nil || a.Error.Code != -32602 || a.Error.Data["setting"] != "MINDVAULT_TOOLSETS" || a.Error.Data["toolset"] != "payments" ||
		a.Error.Message != `Invalid params: params.name: tool "mindvault_buy" is disabled here: its toolset payments is not enabled by MINDVAULT_TOOLSETS=catalog,wallet,ops (tools/list names the tools enabled here)` {
		t.Fatalf("a disabled tool: %+v", a.Error)
	}
	if strings.Contains(a.Error.Message, "unknown tool") {
		t.Errorf("a disabled tool called unknown: %s", a.Error.Message)
	}

	// Narrower only: a header naming payments re-enables nothing; one naming catalog narrows.
	if got := w.post("/mcp", listBody("tools/list"), "X-MindVault-Toolsets", "payments,catalog").tools(); !slices.Equal(got, mv("browse", "search", "preview")) {
		t.Errorf("with X-MindVault-Toolsets payments,catalog: %v", got)
	}
	if a := w.post("/mcp", buy, "X-MindVault-Toolsets", "payments"); a.Error == nil || a.Error.Data["setting"] != "MINDVAULT_TOOLSETS" {
		t.Errorf("a header re-enabled buy: %+v", a)
	}
	if got := w.post("/mcp", listBody("tools/list"), "X-MindVault-Toolsets", "payments"); len(got.tools()) != 0 || got.Result.CacheScope != "private" {
		t.Errorf("header payments over env catalog,wallet,ops: tools %v, cacheScope %q", got.tools(), got.Result.CacheScope)
	}

	ro := serveWire(t, newEnv(t, map[string]string{"MINDVAULT_READ_ONLY": "true"}))
	if a := ro.post("/mcp", listBody("tools/list"), "X-MindVault-Read-Only", "false"); len(a.tools()) == 0 {
		t.Fatal("no tools")
	} else {
		for _, tl := range a.Result.Tools {
			if !tl.Annotations.ReadOnlyHint {
				t.Errorf("MINDVAULT_READ_ONLY lists %s (the header said false, which must not widen)", tl.Name)
			}
		}
	}
	if a := ro.post("/mcp", callBody("mindvault_set_price", `{}`)); a.Error == nil || a.Error.Data["setting"] != "MINDVAULT_READ_ONLY" ||
		!strings.Contains(a.Error.Message, "it is not read-only, and MINDVAULT_READ_ONLY=true serves only read-only tools") {
		t.Errorf("set_price under MINDVAULT_READ_ONLY: %+v", a.Error)
	}
}

// TestToolsetsByPathAndHeader: a remote connector narrows by URL path, any client by header;
// the lists say what is enabled and their cacheScope whether they vary by more than the URL.
func TestToolsetsByPathAndHeader(t *testing.T) {
	e := newEnv(t, nil)
	w := serveWire(t, e)
	full := w.post("/mcp", listBody("tools/list"))
	var readOnly []string
	for _, tl := range full.Result.Tools {
		if tl.Annotations.ReadOnlyHint {
			readOnly = append(readOnly, tl.Name)
		}
	}
	if len(readOnly) == 0 || len(readOnly) == len(full.Result.Tools) {
		t.Fatalf("read-only tools %v of %d: the test needs both kinds", readOnly, len(full.Result.Tools))
	}
	cases := []struct {
		name    string
		path    string
		headers []string
		tools   []string
		prompts []string
		scope   string
	}{
		{"read-only path", "/mcp/readonly", nil, readOnly, []string{"troubleshoot"}, "public"},
		{"toolsets path", "/mcp/x/payments,catalog,wallet", nil, mv("browse", "search", "preview", "buy", "purchase_history", "wallet_info", "list_profiles", "setup_wallet"), []string{"buy"}, "public"},
		{"toolsets and read-only path", "/mcp/x/payments,catalog/readonly", nil, mv("browse", "search", "preview", "purchase_history"), []string{}, "public"},
		{"toolsets header", "/mcp", []string{"X-MindVault-Toolsets", "registry-writes"}, mv("set_price", "set_listed", "set_tags", "update_metadata", "transfer_ownership"), []string{}, "private"},
		{"read-only header", "/mcp", []string{"X-MindVault-Read-Only", "true"}, readOnly, []string{"troubleshoot"}, "private"},
		{"a header over a path", "/mcp/x/catalog", []string{"X-MindVault-Toolsets", "catalog,ops"}, mv("browse", "search", "preview"), []string{}, "public"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := &wire{t: t, url: w.url}
			a := w.post(tc.path, listBody("tools/list"), tc.headers...)
			if got := a.tools(); !slices.Equal(got, tc.tools) || a.Result.CacheScope != tc.scope {
				t.Errorf("tools/list %v (cacheScope %q), want %v (%q)", got, a.Result.CacheScope, tc.tools, tc.scope)
			}
			if got := w.post(tc.path, listBody("prompts/list"), tc.headers...).prompts(); !slices.Equal(got, tc.prompts) && !(len(got) == 0 && len(tc.prompts) == 0) {
				t.Errorf("prompts/list %v, want %v", got, tc.prompts)
			}
			if d := w.post(tc.path, listBody("server/discover"), tc.headers...); !strings.Contains(d.Result.Instructions, "narrowed on this endpoint") || d.Result.CacheScope != tc.scope {
				t.Errorf("server/discover: instructions %q, cacheScope %q", d.Result.Instructions, d.Result.CacheScope)
			}
		})
	}
	if d := w.post("/mcp", listBody("server/discover")); strings.Contains(d.Result.Instructions, "narrowed") || d.Result.CacheScope != "public" {
		t.Errorf("the full surface: %q %q", d.Result.Instructions, d.Result.CacheScope)
	}

	a := w.post("/mcp/readonly", callBody("mindvault_buy", `{}`))
	if a.Error == nil || a.Error.Code != -32602 || a.Error.Data["setting"] != "URL path" || a.Error.Data["path"] != "/mcp/readonly" ||
		!strings.Contains(a.Error.Message, `tool "mindvault_buy" is disabled here: it is not read-only, and the URL path /mcp/readonly serves only read-only tools`) {
		t.Errorf("buy at /mcp/readonly: %+v", a.Error)
	}
	a = w.post("/mcp", callBody("mindvault_buy", `{}`), "X-MindVault-Toolsets", "catalog")
	if a.Error == nil || a.Error.Data["setting"] != "X-MindVault-Toolsets" || !strings.Contains(a.Error.Message, "not enabled by the X-MindVault-Toolsets header") {
		t.Errorf("buy with X-MindVault-Toolsets catalog: %+v", a.Error)
	}
	prompt := `{"jsonrpc":"2.0","id":3,"method":"prompts/get","params":{"name":"buy","arguments":{}}}`
	if a := w.post("/mcp/readonly", prompt); a.Error == nil || a.Error.Code != -32602 || !strings.Contains(a.Error.Message, `prompt "buy" is disabled here`) {
		t.Errorf("the buy prompt at /mcp/readonly: %+v", a.Error)
	}
	if a := w.post("/mcp/readonly", callBody("mindvault_network_profile", "")); a.Error != nil || a.Result.IsError {
		t.Errorf("a read-only tool at /mcp/readonly: %+v", a)
	}
	if a := w.post("/mcp/x/catalog,walet", listBody("tools/list")); a.status != 404 {
		t.Errorf("an unknown toolset in the path: HTTP %d", a.status)
	}
	if a := w.post("/mcp", listBody("tools/list"), "X-MindVault-Toolsets", "walet"); a.status != 400 || a.Error == nil ||
		!strings.Contains(a.Error.Message, `unknown toolset "walet"; the toolsets are catalog, wallet, payments`) {
		t.Errorf("an unknown toolset in a header: HTTP %d %+v", a.status, a.Error)
	}
}

// TestToolsetsUnderOAuth: scopes still apply on top of the surface, and a tool the surface
// disables needs none (it never runs): a read-only token gets -32602 for a payment at
// /mcp/readonly, where at /mcp it gets the 403 step-up.
func TestToolsetsUnderOAuth(t *testing.T) {
	e, iss := oauthEnv(t)
	w := serveWire(t, e)
	w.token = mint(t, iss, iss.Standard("user-demo", oauthResource, "mindvault:read", "demo"))
	buy := callBody("mindvault_buy", `{"resourceId":"r1","maxPriceUsdc":"1"}`)
	req := mcpRequest(context.Background(), w.url+"/mcp", buy, w.token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("a payment with a read token at /mcp: HTTP %d, want the 403 step-up", resp.StatusCode)
	}
	if a := w.post("/mcp/readonly", buy); a.status != 200 || a.Error == nil || a.Error.Data["setting"] != "URL path" {
		t.Errorf("a payment with a read token at /mcp/readonly: HTTP %d %+v", a.status, a.Error)
	}
	if a := w.post("/mcp/readonly", listBody("tools/list")); a.status != 200 || len(a.tools()) == 0 {
		t.Errorf("tools/list at /mcp/readonly under OAuth: HTTP %d", a.status)
	}
}
