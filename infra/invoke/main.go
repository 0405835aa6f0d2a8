// Command invoke runs Function URL events through the AWS Lambda Runtime Interface Emulator against
// a built bootstrap, `sam local invoke` without Docker: it compares each response with its golden
// (-golden), rewrites the goldens (-update) or prints the responses (-print), and ends with "N
// passed, N failed". -sandbox points the function at simulators started in this process;
// -oauth-tokens runs a loopback OAuth issuer and mints the {{oauth:NAME}} tokens of the events just
// before each is sent (docs/operations.md "Lambda events and the emulator").
package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/mindvault/mcp-endpoint/internal/sandbox"
	"github.com/mindvault/mcp-endpoint/internal/server/local"
	"github.com/mindvault/mcp-endpoint/internal/testkit/testissuer"
)

// invokePath is RIE's Invoke API route for the single function it hosts.
const invokePath = "/2015-03-31/functions/function/invocations"

// functionTimeout is the AWS_LAMBDA_FUNCTION_TIMEOUT given to RIE, in seconds.
const functionTimeout = 30

type options struct {
	rie, bootstrap, events, golden string
	update, print                  bool
	timeout                        time.Duration
	env                            []string
	oauthTokens                    string
	jwksFetches                    int
	oauth                          *oauthRun // set by run when oauthTokens is
}

// oauthRun is the issuer of an -oauth-tokens run and what it minted.
type oauthRun struct {
	iss      *testissuer.Issuer
	specs    map[string]testissuer.TokenSpec
	audience string
	minted   []string
}

type envFlag []string

func (e *envFlag) String() string { return strings.Join(*e, ",") }

func (e *envFlag) Set(v string) error {
	if !strings.Contains(v, "=") {
		return fmt.Errorf("want KEY=VALUE, got %q", v)
	}
	*e = append(*e, v)
	return nil
}

func main() {
	var o options
	var extra envFlag
	flag.StringVar(&o.rie, "rie", "", "path of the aws-lambda-rie binary (required)")
	flag.StringVar(&o.bootstrap, "bootstrap", "", "path of the built bootstrap (required)")
	flag.StringVar(&o.events, "events", "events", "an event file, or a directory whose *.json files are events")
	flag.StringVar(&o.golden, "golden", "", "directory of golden responses (<event>.json); compare mode")
	flag.BoolVar(&o.update, "update", os.Getenv("UPDATE_GOLDEN") == "1", "rewrite the goldens instead of comparing (also UPDATE_GOLDEN=1)")
	flag.BoolVar(&o.print, "print", false, "print each normalised response")
	flag.DurationVar(&o.timeout, "timeout", 120*time.Second, "overall time limit, emulator start included")
	flag.Var(&extra, "env", "extra KEY=VALUE for the function's environment (repeatable; overrides the defaults)")
	flag.StringVar(&o.oauthTokens, "oauth-tokens", "", "tokens file: run a loopback OAuth issuer and expand {{oauth:NAME}} in events")
	flag.IntVar(&o.jwksFetches, "oauth-jwks-fetches", 0, "with -oauth-tokens: the exact number of JWKS fetches expected (0: not checked)")
	simulators := flag.Bool("sandbox", false, "start the sandbox simulators and point the function at them (with -print)")
	flag.Parse()
	if o.rie == "" || o.bootstrap == "" || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: invoke -rie PATH -bootstrap PATH [-events DIR|FILE] [-golden DIR [-update]] [-print] [-sandbox] [-timeout D] [-env K=V]...")
		os.Exit(2)
	}
	if o.update && o.golden == "" {
		fmt.Fprintln(os.Stderr, "invoke: -update (or UPDATE_GOLDEN=1) needs -golden DIR")
		os.Exit(2)
	}
	if *simulators && o.golden != "" {
		fmt.Fprintln(os.Stderr, "invoke: -sandbox goes with -print: the goldens are recorded on testnet settings, not on the simulators' ports")
		os.Exit(2)
	}
	if !*simulators {
		o.env = extra
		os.Exit(run(o, os.Stdout))
	}
	sb, err := sandbox.Start(sandbox.Options{Faults: os.Getenv("MINDVAULT_SANDBOX_FAULTS")})
	if err != nil {
		fmt.Fprintln(os.Stderr, "invoke: MINDVAULT_SANDBOX_FAULTS or sandbox start:", err)
		os.Exit(2)
	}
	o.env = append(sandboxEnv(sb), extra...) // -env still wins
	fmt.Fprintf(os.Stderr, "invoke: sandbox simulators: MindVault API %s, Horizon %s, Stellar RPC %s\n", sb.APIURL, sb.HorizonURL, sb.RPCURL)
	code := run(o, os.Stdout)
	sb.Close()
	os.Exit(code)
}

// sandboxEnv is local.Env as KEY=VALUE lines, in a stable order.
func sandboxEnv(sb *sandbox.Sandbox) []string {
	env := local.Env(sb)
	var out []string
	for _, k := range slices.Sorted(maps.Keys(env)) {
		out = append(out, k+"="+env[k])
	}
	return out
}

// result is the outcome of one event (or of a check such as an orphaned golden).
type result struct {
	name string
	err  error
}

func run(o options, out io.Writer) int {
	files, err := listEvents(o.events)
	if err != nil {
		fmt.Fprintln(out, "invoke:", err)
		fmt.Fprintln(out, summary(nil, 1))
		return 1
	}
	for _, p := range []string{o.rie, o.bootstrap} {
		if st, err := os.Stat(p); err != nil || st.IsDir() {
			fmt.Fprintf(out, "invoke: %s is not a file (build it first: make build-host / install RIE)\n", p)
			fmt.Fprintln(out, summary(nil, len(files)))
			return 1
		}
	}
	if o.oauthTokens != "" {
		run, err := startIssuer(o)
		if err != nil {
			fmt.Fprintln(out, "invoke:", err)
			fmt.Fprintln(out, summary(nil, len(files)))
			return 1
		}
		defer run.iss.Close()
		o.oauth = run
		// The issuer first, so an explicit -env still wins.
		o.env = append([]string{"MINDVAULT_AUTH=oauth", "MINDVAULT_OAUTH_ISSUER=" + run.iss.URL}, o.env...)
	}

	ctx, cancel := context.WithTimeout(context.Background(), o.timeout)
	defer cancel()

	tmp, err := os.MkdirTemp("", "invoke-rie-")
	if err != nil {
		fmt.Fprintln(out, "invoke:", err)
		return 1
	}
	logPath := filepath.Join(tmp, "rie.log")
	em, err := startEmulator(ctx, o, tmp, logPath)
	if err != nil {
		fmt.Fprintf(out, "invoke: %v\n  emulator log: %s\n", err, logPath)
		fmt.Fprintln(out, summary(nil, len(files)))
		return 1
	}

	// Ctrl-C, a closed output pipe (| head) or a CI kill must not leave RIE running.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGPIPE)
	defer signal.Stop(sigs)
	go func() {
		if sig, ok := <-sigs; ok {
			em.stop()
			fmt.Fprintf(os.Stderr, "invoke: %v: emulator stopped; its log: %s\n", sig, logPath)
			os.Exit(1)
		}
	}()

	var results []result
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".json")
		start := time.Now()
		resErr := em.runEvent(ctx, f, name, o, out)
		results = append(results, result{name, resErr})
		if resErr != nil {
			fmt.Fprintf(out, "FAIL %s: %v\n", name, resErr)
		} else {
			fmt.Fprintf(out, "ok   %s (%s)\n", name, time.Since(start).Round(time.Millisecond))
		}
	}
	// Always stop the emulator, before the summary, so no process outlives the command.
	em.stop()
	if o.oauth != nil {
		for _, r := range o.oauth.check(logPath, o.jwksFetches) {
			results = append(results, r)
			fmt.Fprintf(out, "FAIL %s: %v\n", r.name, r.err)
		}
	}

	if st, err := os.Stat(o.events); err == nil && st.IsDir() && o.golden != "" && !o.update {
		for _, orphan := range orphanGoldens(o.golden, files) {
			err := fmt.Errorf("golden has no event (delete it, or restore events/%s.json)", orphan)
			results = append(results, result{"golden/" + orphan, err})
			fmt.Fprintf(out, "FAIL golden/%s: %v\n", orphan, err)
		}
	}

	failed := 0
	for _, r := range results {
		if r.err != nil {
			failed++
		}
	}
	if failed > 0 {
		fmt.Fprintf(out, "emulator log (RIE and the function's output): %s\n", logPath)
	} else {
		_ = os.RemoveAll(tmp)
	}
	fmt.Fprintln(out, summary(results, 0))
	if failed > 0 {
		return 1
	}
	return 0
}

// summary is the line CI reads: "N passed, N failed". extraFailed counts events that never ran.
func summary(results []result, extraFailed int) string {
	passed, failed := 0, extraFailed
	for _, r := range results {
		if r.err != nil {
			failed++
		} else {
			passed++
		}
	}
	return fmt.Sprintf("%d passed, %d failed", passed, failed)
}

// listEvents returns the event file, or the directory's *.json files in name order (the
// golden/ subdirectory is not read: it is not an event).
func listEvents(path string) ([]string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return []string{path}, nil
	}
	files, err := filepath.Glob(filepath.Join(path, "*.json"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no *.json events in %s", path)
	}
	sort.Strings(files)
	return files, nil
}

// orphanGoldens lists goldens whose event is gone, so a deleted event cannot leave a stale
// expectation behind.
func orphanGoldens(dir string, events []string) []string {
	have := map[string]bool{}
	for _, f := range events {
		have[strings.TrimSuffix(filepath.Base(f), ".json")] = true
	}
	goldens, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	var out []string
	for _, g := range goldens {
		if n := strings.TrimSuffix(filepath.Base(g), ".json"); !have[n] {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// startIssuer starts the loopback issuer of an -oauth-tokens run (tokens cannot be stored in
// events, since the issuer's port and keys change every run). Tokens are minted for the
// audience the function checks: MINDVAULT_OAUTH_AUDIENCE, else MINDVAULT_RESOURCE_URL, as
// given with -env.
func startIssuer(o options) (*oauthRun, error) {
	specs, err := testissuer.LoadSpecs(o.oauthTokens)
	if err != nil {
		return nil, err
	}
	vars := map[string]string{}
	for _, kv := range o.env {
		k, v, _ := strings.Cut(kv, "=")
		vars[k] = v
	}
	aud := vars["MINDVAULT_OAUTH_AUDIENCE"]
	if aud == "" {
		aud = vars["MINDVAULT_RESOURCE_URL"]
	}
	if aud == "" {
		return nil, errors.New("-oauth-tokens needs -env MINDVAULT_RESOURCE_URL=... or MINDVAULT_OAUTH_AUDIENCE=... (the tokens' audience)")
	}
	iss, err := testissuer.New(testissuer.Options{})
	if err != nil {
		return nil, fmt.Errorf("start the OAuth issuer: %w", err)
	}
	return &oauthRun{iss: iss, specs: specs, audience: aud}, nil
}

// check fails the run when a minted token reached the function's log, or when the key set was
// not fetched the expected number of times.
func (r *oauthRun) check(logPath string, jwksFetches int) []result {
	var out []result
	logText, err := os.ReadFile(logPath)
	if err != nil {
		return []result{{"oauth/log", fmt.Errorf("read the function log: %w", err)}}
	}
	for n, tok := range r.minted {
		if tok != "" && bytes.Contains(logText, []byte(tok)) {
			out = append(out, result{"oauth/log", fmt.Errorf("token %d of the run appears in the function log", n+1)})
		}
	}
	if got := r.iss.JWKSFetches(); jwksFetches > 0 && got != int64(jwksFetches) {
		out = append(out, result{"oauth/jwks", fmt.Errorf("the issuer served its key set %d times, want %d", got, jwksFetches)})
	}
	return out
}

// emulator is a running RIE process. RIE crashes when two invokes are in flight, so events
// go to it one at a time.
type emulator struct {
	once    sync.Once
	stopped chan struct{}
	cmd     *exec.Cmd
	url     string
	exited  chan struct{}
	client  *http.Client
	log     *os.File
}

// emulatorEnv is the function's environment: what `sam local invoke` sets (docs/operations.md
// "Lambda events and the emulator") plus the endpoint's own settings. It is built from scratch,
// not inherited, so a developer's shell (MINDVAULT_*, real AWS credentials) cannot change the
// goldens.
func emulatorEnv(extra []string) []string {
	env := map[string]string{
		"PATH":                            os.Getenv("PATH"),
		"AWS_SAM_LOCAL":                   "true",
		"AWS_LAMBDA_FUNCTION_HANDLER":     "bootstrap",
		"AWS_LAMBDA_FUNCTION_NAME":        "McpFunction",
		"AWS_LAMBDA_FUNCTION_MEMORY_SIZE": "256",
		"AWS_LAMBDA_FUNCTION_TIMEOUT":     fmt.Sprint(functionTimeout),
		"AWS_LAMBDA_LOG_FORMAT":           "JSON",
		"AWS_LAMBDA_LOG_LEVEL":            "INFO",
		"AWS_ACCESS_KEY_ID":               "defaultkey",
		"AWS_SECRET_ACCESS_KEY":           "defaultsecret",
		"AWS_REGION":                      "us-east-1",
		"AWS_DEFAULT_REGION":              "us-east-1",
		"STELLAR_NETWORK":                 "testnet",
		// Bearer-token auth is the Lambda default; the events carry no token, so they ask
		// for an open endpoint explicitly (a token event can pass -env to change this).
		"MINDVAULT_AUTH": "none",
	}
	for _, kv := range extra {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	out := make([]string, 0, len(env))
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}

// freePort asks the kernel for an unused loopback port. Another process could take it
// before RIE binds it; startEmulator retries when RIE exits at start.
func freePort() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

func startEmulator(ctx context.Context, o options, dir, logPath string) (*emulator, error) {
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	bootstrap, err := filepath.Abs(o.bootstrap)
	if err != nil {
		return nil, err
	}
	var lastErr error
	for attempt := 1; attempt <= 3; attempt++ {
		em, err := startOnce(ctx, o.rie, bootstrap, dir, o.env, logFile)
		if err == nil {
			return em, nil
		}
		lastErr = err
		if ctx.Err() != nil {
			break
		}
	}
	logFile.Close()
	return nil, lastErr
}

// startOnce starts RIE on two free loopback ports: it listens on 0.0.0.0 unless told
// otherwise, so both of its addresses (the Invoke API and the runtime API) are pinned.
func startOnce(ctx context.Context, rie, bootstrap, dir string, extraEnv []string, logFile *os.File) (*emulator, error) {
	emuAddr, err := freePort()
	if err != nil {
		return nil, err
	}
	apiAddr, err := freePort()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(rie,
		"--log-level", "error",
		"--runtime-interface-emulator-address", emuAddr,
		"--runtime-api-address", apiAddr,
		bootstrap)
	cmd.Dir = dir // the function's working directory: keep stray files out of the repo
	cmd.Env = emulatorEnv(extraEnv)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	// Its own process group, so stop() reaches the bootstrap RIE starts as well; and a
	// parent-death signal, so RIE cannot outlive this command even if it is SIGKILLed.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start emulator: %w", err)
	}
	em := &emulator{
		cmd:     cmd,
		stopped: make(chan struct{}),
		url:     "http://" + emuAddr + invokePath,
		exited:  make(chan struct{}),
		log:     logFile,
		// No proxy: the emulator is on loopback and a proxy from the environment must
		// not see the events.
		client: &http.Client{Transport: &http.Transport{Proxy: nil}},
	}
	go func() { _ = cmd.Wait(); close(em.exited) }()

	// RIE accepts connections ~100 ms after exec; allow 5 s on a loaded machine.
	deadline := time.Now().Add(5 * time.Second)
	for {
		conn, err := net.DialTimeout("tcp", emuAddr, 200*time.Millisecond)
		if err == nil {
			conn.Close()
			return em, nil
		}
		select {
		case <-em.exited:
			return nil, fmt.Errorf("emulator exited at start (%v)", cmd.ProcessState)
		case <-ctx.Done():
			em.stop()
			return nil, fmt.Errorf("emulator start: %w", ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			em.stop()
			return nil, fmt.Errorf("emulator did not listen on %s within 5s", emuAddr)
		}
	}
}

// stop ends RIE and the function. SIGTERM first (RIE then SIGKILLs the runtime), then
// SIGKILL to the whole group for anything left.
// It is safe to call more than once and from the signal handler.
func (em *emulator) stop() {
	em.once.Do(func() {
		pgid := em.cmd.Process.Pid
		_ = syscall.Kill(-pgid, syscall.SIGTERM)
		select {
		case <-em.exited:
		case <-time.After(2 * time.Second):
		}
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		<-em.exited
		em.log.Close()
		close(em.stopped)
	})
	<-em.stopped
}

// requestID pins the Lambda request id per event, so ids echoed in responses and logs are
// the same on every run.
func requestID(name string) string { return "invoke-" + name }

func (em *emulator) runEvent(ctx context.Context, file, name string, o options, out io.Writer) error {
	event, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	if !json.Valid(event) {
		return errors.New("event file is not valid JSON")
	}
	if o.oauth != nil {
		var minted []string
		event, minted, err = o.oauth.iss.Expand(event, o.oauth.specs, o.oauth.audience)
		o.oauth.minted = append(o.oauth.minted, minted...)
		if err != nil {
			return err
		}
	}
	select {
	case <-em.exited:
		return errors.New("emulator is no longer running (see its log)")
	case <-ctx.Done():
		return fmt.Errorf("overall time limit reached (-timeout %s)", o.timeout)
	default:
	}
	raw, err := em.invoke(ctx, event, requestID(name))
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("overall time limit reached (-timeout %s) during this event: %w", o.timeout, err)
		}
		return err
	}
	got, err := normalise(raw)
	if err != nil {
		return err
	}
	if o.print {
		fmt.Fprintf(out, "== %s\n%s", name, got)
	}
	if o.golden == "" {
		return nil
	}
	goldenPath := filepath.Join(o.golden, name+".json")
	if o.update {
		if err := os.MkdirAll(o.golden, 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(goldenPath, got, 0o644); err != nil {
			return err
		}
		fmt.Fprintf(out, "     updated %s\n", goldenPath)
		return nil
	}
	want, err := os.ReadFile(goldenPath)
	if errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("no golden %s (create it with -update, then read it)", goldenPath)
	}
	if err != nil {
		return err
	}
	if !bytes.Equal(want, got) {
		return fmt.Errorf("response differs from %s (- golden, + got):\n%s", goldenPath, diff(string(want), string(got)))
	}
	return nil
}

// invoke posts one event and returns the function's response document. RIE answers 200 with
// an {"errorType": ...} body when the handler returns an error, 502 when it crashes, and
// plain text when it times out, so all three are checked.
func (em *emulator) invoke(ctx context.Context, event []byte, id string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, (functionTimeout+5)*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, em.url, bytes.NewReader(event))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Amzn-RequestId", id)
	resp, err := em.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("invoke: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	if err != nil {
		return nil, fmt.Errorf("invoke: read response: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("emulator answered HTTP %d (the function crashed or did not start): %s", resp.StatusCode, excerpt(body))
	}
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(body, &probe); err != nil {
		return nil, fmt.Errorf("function response is not a JSON object (timeout or crash?): %s", excerpt(body))
	}
	if t, ok := probe["errorType"]; ok {
		return nil, fmt.Errorf("function returned an error (errorType %s): %s", t, excerpt(body))
	}
	return body, nil
}

// furlResponse is the buffered Function URL response document.
type furlResponse struct {
	StatusCode        int                 `json:"statusCode"`
	Headers           map[string]string   `json:"headers"`
	MultiValueHeaders map[string][]string `json:"multiValueHeaders"`
	Body              string              `json:"body"`
	IsBase64Encoded   bool                `json:"isBase64Encoded"`
	Cookies           []string            `json:"cookies"`
}

// golden is the normalised response as stored: the body as indented JSON when it is JSON,
// as text otherwise, so a golden is readable and a diff points at the changed field.
type golden struct {
	StatusCode      int               `json:"statusCode"`
	Headers         map[string]string `json:"headers"`
	Cookies         []string          `json:"cookies,omitempty"`
	IsBase64Encoded bool              `json:"isBase64Encoded"`
	Body            json.RawMessage   `json:"body,omitempty"`
	BodyText        *string           `json:"bodyText,omitempty"`
}

// volatileHeaders change from run to run and are dropped before comparing.
var volatileHeaders = map[string]bool{"date": true, "x-amzn-requestid": true, "x-amzn-trace-id": true}

// normalise turns a Function URL response into its golden form.
func normalise(raw []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields() // a field we do not know is a field the goldens would miss
	var r furlResponse
	if err := dec.Decode(&r); err != nil {
		return nil, fmt.Errorf("not a Function URL response: %v: %s", err, excerpt(raw))
	}
	if r.StatusCode == 0 {
		return nil, fmt.Errorf("Function URL response without statusCode: %s", excerpt(raw))
	}
	g := golden{StatusCode: r.StatusCode, Headers: map[string]string{}, Cookies: r.Cookies, IsBase64Encoded: r.IsBase64Encoded}
	for k, v := range r.Headers {
		if k != strings.ToLower(k) {
			return nil, fmt.Errorf("header %q is not lower-case", k)
		}
		if !volatileHeaders[k] {
			g.Headers[k] = v
		}
	}
	for k, vs := range r.MultiValueHeaders {
		if !volatileHeaders[strings.ToLower(k)] {
			g.Headers[strings.ToLower(k)] = strings.Join(vs, ", ")
		}
	}
	body := []byte(r.Body)
	if r.IsBase64Encoded {
		dec, err := base64.StdEncoding.DecodeString(r.Body)
		if err != nil {
			return nil, fmt.Errorf("isBase64Encoded body does not decode: %v", err)
		}
		body = dec
	}
	g.Body, g.BodyText = textOrJSON(body)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(g); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// textOrJSON returns a JSON body re-indented (keys sorted, numbers kept exact), or the body as
// text when it is not JSON; an empty body is neither.
func textOrJSON(body []byte) (json.RawMessage, *string) {
	if len(bytes.TrimSpace(body)) == 0 {
		if len(body) == 0 {
			return nil, nil
		}
		s := string(body)
		return nil, &s
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err == nil && !dec.More() {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if enc.Encode(v) == nil {
			return json.RawMessage(bytes.TrimSpace(buf.Bytes())), nil
		}
	}
	s := string(body)
	if !utf8.ValidString(s) {
		s = "base64:" + base64.StdEncoding.EncodeToString(body)
	}
	return nil, &s
}

func excerpt(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 600 {
		s = s[:600] + "…"
	}
	return s
}

// diff is a line diff (longest common subsequence) with two lines of context, enough to
// see which field of a golden changed.
func diff(a, b string) string {
	x, y := strings.Split(a, "\n"), strings.Split(b, "\n")
	n, m := len(x), len(y)
	lcs := make([][]int, n+1)
	for i := range lcs {
		lcs[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if x[i] == y[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	type line struct {
		op   byte
		text string
	}
	var lines []line
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && x[i] == y[j]:
			lines = append(lines, line{' ', x[i]})
			i, j = i+1, j+1
		case i < n && (j == m || lcs[i+1][j] >= lcs[i][j+1]):
			lines = append(lines, line{'-', x[i]})
			i++
		default:
			lines = append(lines, line{'+', y[j]})
			j++
		}
	}
	const around = 2 // lines of context
	var sb strings.Builder
	last := -1
	for k, l := range lines {
		if l.op == ' ' {
			near := false
			for d := -around; d <= around; d++ {
				if k+d >= 0 && k+d < len(lines) && lines[k+d].op != ' ' {
					near = true
				}
			}
			if !near {
				continue
			}
		}
		if last >= 0 && k > last+1 {
			sb.WriteString("      ...\n")
		}
		fmt.Fprintf(&sb, "    %c %s\n", l.op, l.text)
		last = k
	}
	return strings.TrimRight(sb.String(), "\n")
}
