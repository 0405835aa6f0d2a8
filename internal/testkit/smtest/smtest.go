// Package smtest is a loopback fake of AWS Secrets Manager for tests: an HTTP server on 127.0.0.1
// that speaks the JSON 1.1 protocol of the aws-sdk-go-v2 client (GetSecretValue, CreateSecret,
// PutSecretValue, ListSecrets, DescribeSecret; signatures are not checked), keeps secrets in
// memory, counts requests per operation and injects faults, so the credential store and the token
// loader run offline. Setenv points the SDK at it (AWS_ENDPOINT_URL_SECRETS_MANAGER).
package smtest

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// The operations the fake serves, as they appear after "secretsmanager." in X-Amz-Target.
const (
	OpGetSecretValue = "GetSecretValue"
	OpCreateSecret   = "CreateSecret"
	OpPutSecretValue = "PutSecretValue"
	OpListSecrets    = "ListSecrets"
	OpDescribeSecret = "DescribeSecret"
)

// AWS error codes the fake produces itself or that tests commonly inject.
const (
	ResourceNotFound    = "ResourceNotFoundException"
	ResourceExists      = "ResourceExistsException"
	AccessDenied        = "AccessDeniedException"
	Throttling          = "ThrottlingException"
	InvalidRequest      = "InvalidRequestException"
	InvalidParameter    = "InvalidParameterException"
	InternalServiceErr  = "InternalServiceError"
	DecryptionFailure   = "DecryptionFailure"
	unknownOperation    = "UnknownOperationException"
	serializationFailed = "SerializationException"
)

// Region and Account are what the fake's ARNs name.
const (
	Region  = "us-east-1"
	Account = "123456789012"
)

// FaultKind is what an injected fault does to a request.
type FaultKind int

// Fault kinds.
const (
	// KindError answers with the AWS error Fault.Code.
	KindError FaultKind = iota
	// KindStall holds the request for Fault.Delay (or until the client gives up), then serves it.
	KindStall
	// KindDrop closes the connection without any response (a network error for the client).
	KindDrop
	// KindMalformed answers 200 with a truncated JSON body that still contains the secret
	// value, so tests can prove a deserialization failure never echoes it.
	KindMalformed
)

// Fault is one injected failure, applied to the next Times matching requests.
type Fault struct {
	Op    string        // operation to match; "" matches every operation
	Kind  FaultKind     // what happens
	Code  string        // AWS error code for KindError, e.g. AccessDenied
	Delay time.Duration // for KindStall
	Times int           // how many requests it applies to; < 1 means 1
}

type version struct {
	id    string
	token string // ClientRequestToken that created it (idempotency)
	value string
}

type secret struct {
	name    string
	arn     string
	created time.Time
	changed time.Time
	current version
}

// Server is the fake. Its methods are safe for concurrent use.
type Server struct {
	// URL is the base URL, http://127.0.0.1:<port>.
	URL string

	srv *httptest.Server

	mu       sync.Mutex
	secrets  map[string]*secret // by name
	order    []string           // names in creation order (ListSecrets returns this order)
	faults   []*Fault
	counts   map[string]int
	total    int
	pageSize int
}

// New starts a fake bound to 127.0.0.1 on a free port. Call Close when done.
func New() *Server {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(fmt.Sprintf("smtest: listen on 127.0.0.1: %v", err))
	}
	s := &Server{secrets: map[string]*secret{}, counts: map[string]int{}, pageSize: 100}
	s.srv = httptest.NewUnstartedServer(http.HandlerFunc(s.serve))
	s.srv.Listener.Close()
	s.srv.Listener = ln
	s.srv.Start()
	s.URL = s.srv.URL
	return s
}

// Close stops the server, cutting any stalled request short.
func (s *Server) Close() {
	s.srv.CloseClientConnections()
	s.srv.Close()
}

// Setenv points aws-sdk-go-v2 at the fake with dummy credentials and isolates it from the
// developer's ~/.aws files and from instance metadata. Pass a *testing.T (t.Setenv restores
// the environment after the test).
func (s *Server) Setenv(t interface{ Setenv(key, value string) }) {
	for k, v := range map[string]string{
		"AWS_ENDPOINT_URL_SECRETS_MANAGER":    s.URL,
		"AWS_ACCESS_KEY_ID":                   "AKIDSMTEST",
		"AWS_SECRET_ACCESS_KEY":               "smtest-secret-access-key",
		"AWS_SESSION_TOKEN":                   "",
		"AWS_REGION":                          Region,
		"AWS_PROFILE":                         "",
		"AWS_CONFIG_FILE":                     os.DevNull,
		"AWS_SHARED_CREDENTIALS_FILE":         os.DevNull,
		"AWS_EC2_METADATA_DISABLED":           "true",
		"AWS_IGNORE_CONFIGURED_ENDPOINT_URLS": "",
		"AWS_ENDPOINT_URL":                    "",
		"AWS_MAX_ATTEMPTS":                    "",
		"AWS_RETRY_MODE":                      "",
	} {
		t.Setenv(k, v)
	}
}

// Put creates or replaces a secret directly (no request is counted).
func (s *Server) Put(name, value string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if sec, ok := s.secrets[name]; ok {
		sec.current = version{id: newID(), value: value}
		sec.changed = time.Now()
		return
	}
	s.add(name, version{id: newID(), value: value})
}

// Value returns a secret's current string value.
func (s *Server) Value(name string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sec, ok := s.secrets[name]
	if !ok {
		return "", false
	}
	return sec.current.value, true
}

// Count returns how many requests named op arrived (every request when op is ""), including
// ones answered by a fault.
func (s *Server) Count(op string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if op == "" {
		return s.total
	}
	return s.counts[op]
}

// SetPageSize caps ListSecrets pages (default 100, the AWS maximum), to exercise pagination.
func (s *Server) SetPageSize(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pageSize = max(n, 1)
}

// Inject queues a fault; faults apply in the order injected.
func (s *Server) Inject(f Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if f.Times < 1 {
		f.Times = 1
	}
	s.faults = append(s.faults, &f)
}

// Fail makes the next n requests for op ("" = any operation) fail with the AWS error code.
func (s *Server) Fail(op, code string, n int) {
	s.Inject(Fault{Op: op, Kind: KindError, Code: code, Times: n})
}

// StatusOf is the HTTP status AWS uses for an error code: 500 for service-side faults, 503
// for ServiceUnavailable, 400 for everything else (including AccessDeniedException and
// ThrottlingException, which the JSON protocols send as 400).
func StatusOf(code string) int {
	switch code {
	case InternalServiceErr, "InternalFailure":
		return http.StatusInternalServerError
	case "ServiceUnavailable":
		return http.StatusServiceUnavailable
	}
	return http.StatusBadRequest
}

// take consumes the first fault matching op, under s.mu.
func (s *Server) take(op string) *Fault {
	for i, f := range s.faults {
		if f.Op != "" && f.Op != op {
			continue
		}
		g := *f
		f.Times--
		if f.Times <= 0 {
			s.faults = append(s.faults[:i], s.faults[i+1:]...)
		}
		return &g
	}
	return nil
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	op, ok := strings.CutPrefix(r.Header.Get("X-Amz-Target"), "secretsmanager.")
	if r.Method != http.MethodPost || !ok {
		writeErr(w, unknownOperation, "expected POST with X-Amz-Target: secretsmanager.<Operation>")
		return
	}
	s.mu.Lock()
	s.counts[op]++
	s.total++
	fault := s.take(op)
	s.mu.Unlock()

	var body map[string]any
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20))
	dec.UseNumber()
	if err := dec.Decode(&body); err != nil {
		writeErr(w, serializationFailed, "request body is not a JSON object")
		return
	}

	if fault != nil {
		switch fault.Kind {
		case KindError:
			writeErr(w, fault.Code, "injected "+fault.Code)
			return
		case KindDrop:
			if hj, ok := w.(http.Hijacker); ok {
				if conn, _, err := hj.Hijack(); err == nil {
					conn.Close()
					return
				}
			}
			panic(http.ErrAbortHandler)
		case KindStall:
			select {
			case <-time.After(fault.Delay):
			case <-r.Context().Done():
				return
			}
		case KindMalformed:
			s.writeMalformed(w, op, body)
			return
		}
	}

	switch op {
	case OpGetSecretValue:
		s.getSecretValue(w, body)
	case OpCreateSecret:
		s.createSecret(w, body)
	case OpPutSecretValue:
		s.putSecretValue(w, body)
	case OpListSecrets:
		s.listSecrets(w, body)
	case OpDescribeSecret:
		s.describeSecret(w, body)
	default:
		writeErr(w, unknownOperation, "operation not supported by smtest")
	}
}

func str(body map[string]any, key string) string {
	v, _ := body[key].(string)
	return v
}

// lookup finds a secret by name or ARN, under s.mu.
func (s *Server) lookup(id string) *secret {
	if sec, ok := s.secrets[id]; ok {
		return sec
	}
	for _, sec := range s.secrets {
		if sec.arn == id {
			return sec
		}
	}
	return nil
}

// add creates a secret, under s.mu.
func (s *Server) add(name string, v version) *secret {
	now := time.Now()
	sec := &secret{
		name: name, current: v, created: now, changed: now,
		arn: "arn:aws:secretsmanager:" + Region + ":" + Account + ":secret:" + name + "-" + newID()[:6],
	}
	s.secrets[name] = sec
	s.order = append(s.order, name)
	return sec
}

func (s *Server) getSecretValue(w http.ResponseWriter, body map[string]any) {
	s.mu.Lock()
	sec := s.lookup(str(body, "SecretId"))
	var out map[string]any
	if sec != nil {
		out = map[string]any{
			"ARN": sec.arn, "Name": sec.name, "VersionId": sec.current.id,
			"SecretString": sec.current.value, "VersionStages": []string{"AWSCURRENT"},
			"CreatedDate": epoch(sec.changed),
		}
	}
	s.mu.Unlock()
	if sec == nil {
		writeErr(w, ResourceNotFound, "Secrets Manager can't find the specified secret.")
		return
	}
	writeOK(w, out)
}

func (s *Server) createSecret(w http.ResponseWriter, body map[string]any) {
	name, token, value := str(body, "Name"), str(body, "ClientRequestToken"), str(body, "SecretString")
	if name == "" || len(name) > 512 {
		writeErr(w, InvalidParameter, "Name is required.")
		return
	}
	if token == "" {
		token = newID()
	}
	s.mu.Lock()
	sec, exists := s.secrets[name]
	if exists && !(sec.current.token == token && sec.current.value == value) {
		s.mu.Unlock()
		writeErr(w, ResourceExists, "The operation failed because the secret already exists.")
		return
	}
	// Same name, token and value: an SDK retry of a creation that already succeeded, which
	// AWS treats as a no-op success.
	if !exists {
		sec = s.add(name, version{id: token, token: token, value: value})
	}
	out := map[string]any{"ARN": sec.arn, "Name": sec.name, "VersionId": sec.current.id}
	s.mu.Unlock()
	writeOK(w, out)
}

func (s *Server) putSecretValue(w http.ResponseWriter, body map[string]any) {
	token, value := str(body, "ClientRequestToken"), str(body, "SecretString")
	if token == "" {
		token = newID()
	}
	s.mu.Lock()
	sec := s.lookup(str(body, "SecretId"))
	if sec == nil {
		s.mu.Unlock()
		writeErr(w, ResourceNotFound, "Secrets Manager can't find the specified secret.")
		return
	}
	if sec.current.token == token && sec.current.value != value {
		s.mu.Unlock()
		writeErr(w, ResourceExists, "A version with this ClientRequestToken already exists with a different value.")
		return
	}
	if sec.current.token != token {
		sec.current = version{id: token, token: token, value: value}
		sec.changed = time.Now()
	}
	out := map[string]any{"ARN": sec.arn, "Name": sec.name, "VersionId": sec.current.id, "VersionStages": []string{"AWSCURRENT"}}
	s.mu.Unlock()
	writeOK(w, out)
}

func (s *Server) describeSecret(w http.ResponseWriter, body map[string]any) {
	s.mu.Lock()
	sec := s.lookup(str(body, "SecretId"))
	var out map[string]any
	if sec != nil {
		out = map[string]any{
			"ARN": sec.arn, "Name": sec.name,
			"CreatedDate": epoch(sec.created), "LastChangedDate": epoch(sec.changed),
			"VersionIdsToStages": map[string][]string{sec.current.id: {"AWSCURRENT"}},
		}
	}
	s.mu.Unlock()
	if sec == nil {
		writeErr(w, ResourceNotFound, "Secrets Manager can't find the specified secret.")
		return
	}
	writeOK(w, out)
}

// listSecrets honours the "name" filter (case-sensitive prefix match, with "!" negation, as
// AWS documents), MaxResults and NextToken (an opaque offset here).
func (s *Server) listSecrets(w http.ResponseWriter, body map[string]any) {
	var prefixes, negated []string
	if filters, ok := body["Filters"].([]any); ok {
		for _, f := range filters {
			fm, _ := f.(map[string]any)
			if str(fm, "Key") != "name" {
				writeErr(w, InvalidParameter, "smtest supports only the name filter")
				return
			}
			vals, _ := fm["Values"].([]any)
			for _, v := range vals {
				sv, _ := v.(string)
				if neg, ok := strings.CutPrefix(sv, "!"); ok {
					negated = append(negated, neg)
				} else {
					prefixes = append(prefixes, sv)
				}
			}
		}
	}
	offset := 0
	if tok := str(body, "NextToken"); tok != "" {
		n, err := strconv.Atoi(strings.TrimPrefix(tok, "page-"))
		if err != nil || n < 0 {
			writeErr(w, "InvalidNextTokenException", "The NextToken value is invalid.")
			return
		}
		offset = n
	}
	s.mu.Lock()
	limit := s.pageSize
	if n, err := jsonInt(body["MaxResults"]); err == nil && n > 0 && int(n) < limit {
		limit = int(n)
	}
	var match []*secret
	for _, name := range s.order {
		if matches(name, prefixes, negated) {
			match = append(match, s.secrets[name])
		}
	}
	list := []map[string]any{}
	end := min(offset+limit, len(match))
	for _, sec := range match[min(offset, len(match)):end] {
		list = append(list, map[string]any{
			"ARN": sec.arn, "Name": sec.name,
			"CreatedDate": epoch(sec.created), "LastChangedDate": epoch(sec.changed),
		})
	}
	s.mu.Unlock()
	out := map[string]any{"SecretList": list}
	if end < len(match) {
		out["NextToken"] = "page-" + strconv.Itoa(end)
	}
	writeOK(w, out)
}

func matches(name string, prefixes, negated []string) bool {
	for _, n := range negated {
		if strings.HasPrefix(name, n) {
			return false
		}
	}
	if len(prefixes) == 0 {
		return true
	}
	for _, p := range prefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

func jsonInt(v any) (int64, error) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, fmt.Errorf("not a number")
	}
	return n.Int64()
}

// writeMalformed answers 200 with a body cut off mid-object that still carries the secret's
// value (or the request's SecretString), the worst case for an error that quotes bodies.
func (s *Server) writeMalformed(w http.ResponseWriter, op string, body map[string]any) {
	leak := str(body, "SecretString")
	if op == OpGetSecretValue {
		s.mu.Lock()
		if sec := s.lookup(str(body, "SecretId")); sec != nil {
			leak = sec.current.value
		}
		s.mu.Unlock()
	}
	b, _ := json.Marshal(map[string]any{"Name": str(body, "SecretId"), "SecretString": leak})
	w.Header().Set("Content-Type", "application/x-amz-json-1.1")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(b[:len(b)-1]) // drop the closing brace
}

func writeOK(w http.ResponseWriter, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		writeErr(w, InternalServiceErr, "smtest could not encode its response")
		return
	}
	w.Header().Set("Content-Type", "application/x-amz-json-1.1")
	w.Header().Set("X-Amzn-RequestId", newID())
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(b)
}

func writeErr(w http.ResponseWriter, code, msg string) {
	b, _ := json.Marshal(map[string]string{"__type": code, "message": msg})
	w.Header().Set("Content-Type", "application/x-amz-json-1.1")
	w.Header().Set("X-Amzn-ErrorType", code)
	w.Header().Set("X-Amzn-RequestId", newID())
	w.WriteHeader(StatusOf(code))
	_, _ = w.Write(b)
}

// epoch is the JSON 1.1 timestamp form: seconds since the epoch, fractional.
func epoch(t time.Time) float64 {
	return float64(t.UnixMilli()) / 1000
}

func newID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
