package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

func TestNormalise(t *testing.T) {
	b64 := base64.StdEncoding.EncodeToString([]byte(`{"b":1,"a":"x"}`))
	cases := []struct {
		name    string
		raw     string
		want    string // exact golden text; "" when an error is expected
		wantErr string
	}{
		{
			name: "json body indented, keys sorted, volatile headers dropped",
			raw:  `{"statusCode":200,"headers":{"content-type":"application/json","date":"Mon","x-amzn-requestid":"r"},"body":"{\"z\":1,\"a\":{\"n\":12345678901234567890}}","isBase64Encoded":false}`,
			want: `{
  "statusCode": 200,
  "headers": {
    "content-type": "application/json"
  },
  "isBase64Encoded": false,
  "body": {
    "a": {
      "n": 12345678901234567890
    },
    "z": 1
  }
}
`,
		},
		{
			name: "empty body (202 to a notification)",
			raw:  `{"statusCode":202,"headers":{},"body":"","isBase64Encoded":false}`,
			want: `{
  "statusCode": 202,
  "headers": {},
  "isBase64Encoded": false
}
`,
		},
		{
			name: "base64 body decoded",
			raw:  `{"statusCode":200,"body":"` + b64 + `","isBase64Encoded":true}`,
			want: `{
  "statusCode": 200,
  "headers": {},
  "isBase64Encoded": true,
  "body": {
    "a": "x",
    "b": 1
  }
}
`,
		},
		{
			name: "text body kept as text, HTML not escaped",
			raw:  `{"statusCode":404,"headers":{"content-type":"text/plain"},"body":"<not found>"}`,
			want: `{
  "statusCode": 404,
  "headers": {
    "content-type": "text/plain"
  },
  "isBase64Encoded": false,
  "bodyText": "<not found>"
}
`,
		},
		{
			name: "multi-value headers folded",
			raw:  `{"statusCode":200,"multiValueHeaders":{"Vary":["a","b"]},"body":""}`,
			want: `{
  "statusCode": 200,
  "headers": {
    "vary": "a, b"
  },
  "isBase64Encoded": false
}
`,
		},
		{name: "no statusCode", raw: `{"body":"{}"}`, wantErr: "without statusCode"},
		{name: "unknown field", raw: `{"statusCode":200,"body":"","surprise":1}`, wantErr: "surprise"},
		{name: "upper-case header", raw: `{"statusCode":200,"headers":{"Content-Type":"application/json"}}`, wantErr: "not lower-case"},
		{name: "bad base64", raw: `{"statusCode":200,"body":"%%%","isBase64Encoded":true}`, wantErr: "does not decode"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := normalise([]byte(tc.raw))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want it to contain %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Fatalf("got:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}

// fakeRIE stands in for the emulator's Invoke API; it records what it was sent.
type fakeRIE struct {
	status int
	body   string
	gotID  string
	gotReq []byte
}

func (f *fakeRIE) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != invokePath {
		http.Error(w, "wrong route", http.StatusNotFound)
		return
	}
	f.gotID = r.Header.Get("X-Amzn-RequestId")
	f.gotReq, _ = io.ReadAll(r.Body)
	w.WriteHeader(f.status)
	_, _ = io.WriteString(w, f.body)
}

func newFake(t *testing.T, f *fakeRIE) *emulator {
	t.Helper()
	srv := httptest.NewServer(f) // httptest binds 127.0.0.1
	t.Cleanup(srv.Close)
	return &emulator{url: srv.URL + invokePath, client: srv.Client(), exited: make(chan struct{})}
}

// TestInvokeDetectsFailures covers the ways RIE reports a failed invoke (docs/operations.md
// "Lambda events and the emulator"): only a 200 with a response document is a success.
func TestInvokeDetectsFailures(t *testing.T) {
	ok := `{"statusCode":200,"headers":{},"body":"{}"}`
	cases := []struct {
		name    string
		status  int
		body    string
		wantErr string
	}{
		{"response document", 200, ok, ""},
		{"handler returned an error", 200, `{"errorMessage":"boom","errorType":"errorString"}`, `errorType "errorString"`},
		{"handler panicked", 502, `{"errorMessage":"nil map","errorType":"Runtime.ExitError"}`, "HTTP 502"},
		{"timeout", 200, `Task timed out after 2.00 seconds`, "not a JSON object"},
		{"emulator rejected the invoke", 400, `{"errorType":"Runtime.Unavailable"}`, "HTTP 400"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeRIE{status: tc.status, body: tc.body}
			em := newFake(t, f)
			event := []byte(`{"version":"2.0","rawPath":"/mcp"}`)
			got, err := em.invoke(context.Background(), event, "invoke-x")
			if f.gotID != "invoke-x" {
				t.Errorf("X-Amzn-RequestId = %q, want invoke-x", f.gotID)
			}
			if !bytes.Equal(f.gotReq, event) {
				t.Errorf("event sent as %q, want it verbatim", f.gotReq)
			}
			if tc.wantErr == "" {
				if err != nil || string(got) != ok {
					t.Fatalf("got %q, %v; want the document", got, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("err = %v, want it to contain %q", err, tc.wantErr)
			}
		})
	}
}

// TestRunEventGoldens: compare mode never writes, update mode writes, a mismatch names the
// changed line, a missing golden is a failure.
func TestRunEventGoldens(t *testing.T) {
	dir := t.TempDir()
	eventPath := filepath.Join(dir, "e.json")
	if err := os.WriteFile(eventPath, []byte(`{"version":"2.0"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	goldenDir := filepath.Join(dir, "golden")
	goldenPath := filepath.Join(goldenDir, "e.json")
	respond := func(version string) *emulator {
		return newFake(t, &fakeRIE{status: 200, body: `{"statusCode":200,"body":"{\"version\":\"` + version + `\"}"}`})
	}
	var out bytes.Buffer
	ctx := context.Background()

	compare := options{golden: goldenDir, timeout: time.Minute}
	if err := respond("1").runEvent(ctx, eventPath, "e", compare, &out); err == nil || !strings.Contains(err.Error(), "no golden") {
		t.Fatalf("missing golden: err = %v", err)
	}
	if _, err := os.Stat(goldenPath); !os.IsNotExist(err) {
		t.Fatalf("compare mode created the golden (stat err %v)", err)
	}

	update := options{golden: goldenDir, update: true, timeout: time.Minute}
	if err := respond("1").runEvent(ctx, eventPath, "e", update, &out); err != nil {
		t.Fatalf("update: %v", err)
	}
	written, err := os.ReadFile(goldenPath)
	if err != nil || !strings.Contains(string(written), `"version": "1"`) {
		t.Fatalf("golden after update = %q, %v", written, err)
	}

	if err := respond("1").runEvent(ctx, eventPath, "e", compare, &out); err != nil {
		t.Fatalf("same response: %v", err)
	}
	err = respond("2").runEvent(ctx, eventPath, "e", compare, &out)
	if err == nil || !strings.Contains(err.Error(), `-     "version": "1"`) || !strings.Contains(err.Error(), `+     "version": "2"`) {
		t.Fatalf("mismatch: err = %v", err)
	}
	if again, _ := os.ReadFile(goldenPath); !bytes.Equal(again, written) {
		t.Fatal("compare mode rewrote the golden")
	}

	out.Reset()
	if err := respond("3").runEvent(ctx, eventPath, "e", options{print: true, timeout: time.Minute}, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "== e\n") || !strings.Contains(out.String(), `"version": "3"`) {
		t.Fatalf("print mode output %q", out.String())
	}
}

func TestDiff(t *testing.T) {
	cases := []struct {
		name, a, b string
		want       []string
		notWant    []string
	}{
		{"changed line with context", "1\n2\n3\n4\n5\n6\n7\n8", "1\n2\n3\n4\nX\n6\n7\n8",
			[]string{"  3", "- 5", "+ X", "  7"}, []string{"  1", "  2", "  8"}},
		{"added line", "a\nb", "a\nb\nc", []string{"+ c"}, []string{"- "}},
		{"removed line", "a\nb\nc", "a\nc", []string{"- b"}, []string{"+ "}},
		{"two hunks are separated", "1\n2\n3\n4\n5\n6\n7\n8\n9\n10", "X\n2\n3\n4\n5\n6\n7\n8\n9\nY",
			[]string{"- 1", "+ X", "...", "- 10", "+ Y"}, []string{"  5"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := diff(tc.a, tc.b)
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("diff lacks %q:\n%s", w, got)
				}
			}
			for _, w := range tc.notWant {
				if strings.Contains(got, w) {
					t.Errorf("diff has %q:\n%s", w, got)
				}
			}
		})
	}
}

func TestListEventsAndOrphans(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"b.json", "a.json", "notes.txt", "golden/a.json", "golden/gone.json"} {
		p := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	files, err := listEvents(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json")}
	if strings.Join(files, ",") != strings.Join(want, ",") {
		t.Fatalf("events = %v, want %v (sorted, *.json only, golden/ not read)", files, want)
	}
	if one, err := listEvents(want[1]); err != nil || len(one) != 1 || one[0] != want[1] {
		t.Fatalf("single file: %v, %v", one, err)
	}
	if _, err := listEvents(filepath.Join(dir, "golden", "..", "missing")); err == nil {
		t.Fatal("missing path accepted")
	}
	empty := t.TempDir()
	if _, err := listEvents(empty); err == nil {
		t.Fatal("directory without events accepted")
	}
	if got := orphanGoldens(filepath.Join(dir, "golden"), files); strings.Join(got, ",") != "gone" {
		t.Fatalf("orphans = %v, want [gone]", got)
	}
}

// TestEmulatorEnv: the function sees the sam-local variables and the endpoint's settings, and
// nothing from the caller's shell except PATH, so a developer's MINDVAULT_* or real AWS
// credentials cannot leak into the goldens or the function.
func TestEmulatorEnv(t *testing.T) {
	t.Setenv("MINDVAULT_AUTH", "tokens")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "real-secret")
	t.Setenv("SOME_SHELL_VAR", "x")
	env := map[string]string{}
	for _, kv := range emulatorEnv([]string{"STELLAR_NETWORK=mainnet", "EXTRA=1"}) {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	want := map[string]string{
		"AWS_SAM_LOCAL":               "true",
		"AWS_LAMBDA_FUNCTION_HANDLER": "bootstrap",
		"AWS_LAMBDA_LOG_FORMAT":       "JSON",
		"AWS_LAMBDA_LOG_LEVEL":        "INFO",
		"AWS_LAMBDA_FUNCTION_TIMEOUT": "30",
		"AWS_REGION":                  "us-east-1",
		"AWS_ACCESS_KEY_ID":           "defaultkey",
		"AWS_SECRET_ACCESS_KEY":       "defaultsecret",
		"MINDVAULT_AUTH":              "none",
		"STELLAR_NETWORK":             "mainnet", // -env overrides a default
		"EXTRA":                       "1",
	}
	for k, v := range want {
		if env[k] != v {
			t.Errorf("%s = %q, want %q", k, env[k], v)
		}
	}
	if _, ok := env["SOME_SHELL_VAR"]; ok {
		t.Error("caller's environment leaked into the function")
	}
	if _, ok := env["AWS_LAMBDA_RUNTIME_API"]; ok {
		t.Error("AWS_LAMBDA_RUNTIME_API must be left to RIE")
	}
}

func TestSummaryLine(t *testing.T) {
	line := summary([]result{{name: "a"}, {name: "b", err: io.EOF}, {name: "c"}}, 2)
	if line != "2 passed, 3 failed" {
		t.Fatalf("summary = %q", line)
	}
	// CI parses this exact shape.
	if !regexp.MustCompile(`^\d+ passed, \d+ failed$`).MatchString(summary(nil, 0)) {
		t.Fatalf("summary(nil) = %q", summary(nil, 0))
	}
}

func TestRequestIDStable(t *testing.T) {
	if a, b := requestID("tools-list-modern"), requestID("tools-list-modern"); a != b || a == requestID("tools-list-legacy") {
		t.Fatalf("request ids %q %q are not stable per event and distinct across events", a, b)
	}
}

// TestOAuthRun: an -oauth-tokens run mints the tokens events name (for the audience the
// function checks, with relative times), fails on a name the file lacks, and fails the run
// when a minted token reaches the function log or the key set was fetched an unexpected
// number of times.
func TestOAuthRun(t *testing.T) {
	dir := t.TempDir()
	tokens := filepath.Join(dir, "tokens.json")
	spec := `{"reader": {"claims": {"sub": "u1", "scope": "mindvault:read", "exp": -60}}, "unsigned": {"alg": "none", "claims": {"sub": "u2"}}}`
	if err := os.WriteFile(tokens, []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := startIssuer(options{oauthTokens: tokens}); err == nil {
		t.Fatal("a run without an audience must be refused")
	}
	run, err := startIssuer(options{oauthTokens: tokens, env: []string{"MINDVAULT_RESOURCE_URL=https://r.example/mcp"}})
	if err != nil {
		t.Fatal(err)
	}
	defer run.iss.Close()
	event := []byte(`{"headers":{"authorization":"Bearer {{oauth:reader}}","x":"{{oauth:unsigned}}"}}`)
	got, minted, err := run.iss.Expand(event, run.specs, run.audience)
	if err != nil || len(minted) != 2 || bytes.Contains(got, []byte("{{oauth:")) {
		t.Fatalf("expand: %v, %d minted: %s", err, len(minted), got)
	}
	parts := strings.Split(minted[0], ".")
	if len(parts) != 3 || parts[2] == "" || !strings.HasSuffix(minted[1], ".") {
		t.Fatalf("minted %q", minted)
	}
	payload, _ := base64.RawURLEncoding.DecodeString(parts[1])
	var claims struct {
		Iss, Aud, Sub string
		Exp           int64
	}
	if err := json.Unmarshal(payload, &claims); err != nil || claims.Iss != run.iss.URL || claims.Aud != "https://r.example/mcp" || claims.Sub != "u1" {
		t.Fatalf("claims %s", payload)
	}
	if d := time.Until(time.Unix(claims.Exp, 0)); d > 0 || d < -5*time.Minute {
		t.Fatalf("exp -60 gave a token expiring in %s", d)
	}
	if _, _, err := run.iss.Expand([]byte(`{{oauth:missing}}`), run.specs, run.audience); err == nil {
		t.Fatal("an unknown token name must fail the event")
	}

	run.minted = minted
	logPath := filepath.Join(dir, "rie.log")
	_ = os.WriteFile(logPath, []byte("START\n{\"message\":\"mcp request\"}\n"), 0o644)
	if r := run.check(logPath, 0); len(r) != 0 {
		t.Fatalf("a clean log failed: %v", r)
	}
	_ = os.WriteFile(logPath, []byte("oops "+minted[0]+"\n"), 0o644)
	if r := run.check(logPath, 0); len(r) != 1 || r[0].name != "oauth/log" {
		t.Fatalf("a token in the log was not caught: %v", r)
	}
	_ = os.WriteFile(logPath, nil, 0o644)
	if r := run.check(logPath, 1); len(r) != 1 || r[0].name != "oauth/jwks" {
		t.Fatalf("no JWKS fetch was not caught: %v", r)
	}
}
