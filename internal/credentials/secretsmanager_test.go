package credentials

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager/types"

	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/internal/testkit/smtest"
)

// Values no redaction pattern would catch, so a leak shows up as itself.
const (
	plainSecret = "plain-secret-value-123"
	plainAPIKey = "apikey-zzz-999"
	smPrefix    = "mindvault/test/"
)

// smStore starts a fake and a store against it. attempts bounds the SDK's attempts per call
// (0 = the SDK default of 3); back-off is zero so retried faults cost no wall time.
func smStore(t *testing.T, attempts int) (*SecretsManager, *smtest.Server) {
	t.Helper()
	srv := smtest.New()
	t.Cleanup(srv.Close)
	srv.Setenv(t)
	s, err := NewSecretsManager(context.Background(), smPrefix, func(ctx context.Context) (aws.Config, error) {
		cfg, err := EnvAWSConfig(ctx)
		cfg.Retryer = func() aws.Retryer {
			return retry.NewStandard(func(o *retry.StandardOptions) {
				if attempts > 0 {
					o.MaxAttempts = attempts
				}
				o.Backoff = retry.BackoffDelayerFunc(func(int, error) (time.Duration, error) { return 0, nil })
			})
		}
		return cfg, err
	})
	if err != nil {
		t.Fatal(err)
	}
	return s, srv
}

// failure asserts a credentials-sourced *errmap.Error and returns it with its mapped text.
func failure(t *testing.T, err error) (*errmap.Error, errmap.Failure) {
	t.Helper()
	var e *errmap.Error
	if !errors.As(err, &e) {
		t.Fatalf("want *errmap.Error, got %T %v", err, err)
	}
	if e.Facts.Source != errmap.SourceCredentials {
		t.Fatalf("source = %q", e.Facts.Source)
	}
	return e, errmap.FromError(err, errmap.Call{Operation: "Setup failed", Tool: "mindvault_setup_wallet"})
}

// assertNoLeak checks every string derived from err for the secrets and for the fake's own
// error message (proof that the SDK's message is not echoed).
func assertNoLeak(t *testing.T, err error, f errmap.Failure, secrets ...string) {
	t.Helper()
	texts := []string{err.Error(), f.Text, f.Diagnostic.Detail, f.Diagnostic.Next}
	var e *errmap.Error
	if errors.As(err, &e) && e.Err != nil {
		texts = append(texts, e.Err.Error(), e.Facts.Detail)
	}
	for _, s := range texts {
		for _, secret := range append(secrets, "injected", "{") {
			if strings.Contains(s, secret) {
				t.Errorf("%q leaks %q", s, secret)
			}
		}
	}
}

func TestSecretsManagerRoundTrip(t *testing.T) {
	ctx := context.Background()
	srv := smtest.New()
	defer srv.Close()
	srv.Setenv(t)
	t.Setenv("AWS_REGION", "") // unset: the store must still default to us-east-1
	st, err := Open("secretsmanager:"+smPrefix, nil, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	s := st.(*SecretsManager)
	if r := s.client().(*secretsmanager.Client).Options().Region; r != "us-east-1" {
		t.Errorf("region = %q", r)
	}
	if s.Kind() != "secretsmanager" || s.ReadOnly() {
		t.Errorf("kind %q read-only %v", s.Kind(), s.ReadOnly())
	}

	if err := s.Create(ctx, Profile{Name: "alice", SecretKey: plainSecret}); err != nil {
		t.Fatal(err)
	}
	raw, ok := srv.Value(smPrefix + "alice")
	if !ok || raw != `{"secretKey":"`+plainSecret+`"}` {
		t.Fatalf("stored value = %q %v", raw, ok)
	}
	p, err := s.Get(ctx, "alice")
	if err != nil || p.Name != "alice" || p.SecretKey != plainSecret || p.APIKey != "" {
		t.Fatalf("get = %+v %v", p, err)
	}
	p.APIKey = plainAPIKey
	if err := s.Update(ctx, p); err != nil {
		t.Fatal(err)
	}
	if q, err := s.Get(ctx, "alice"); err != nil || q.APIKey != plainAPIKey || q.SecretKey != plainSecret {
		t.Errorf("after update: %+v %v (stale cache?)", q, err)
	}

	for _, tc := range []struct {
		name string
		err  error
		code string
	}{
		{"create existing", s.Create(ctx, Profile{Name: "alice", SecretKey: "other"}), "PROFILE_EXISTS"},
		{"update missing", s.Update(ctx, Profile{Name: "bob", SecretKey: plainSecret}), "CREDENTIALS_MISSING"},
		{"get missing", second(s.Get(ctx, "bob")), "CREDENTIALS_MISSING"},
		{"create invalid name", s.Create(ctx, Profile{Name: "../x", SecretKey: plainSecret}), "UNKNOWN"},
		{"update invalid name", s.Update(ctx, Profile{Name: "a b"}), "CREDENTIALS_MISSING"},
	} {
		if got := code(t, tc.err); got != tc.code {
			t.Errorf("%s: code %s, want %s", tc.name, got, tc.code)
		}
	}
	before := srv.Count("")
	if _, err := s.Get(ctx, "../etc/passwd"); code(t, err) != "CREDENTIALS_MISSING" || srv.Count("") != before {
		t.Errorf("an invalid name must be refused without a request: %v", err)
	}
	if q, _ := s.Get(ctx, "alice"); q.SecretKey != plainSecret {
		t.Error("a failed create must not change the profile")
	}
}

func second[T any](_ T, err error) error { return err }

func TestSecretsManagerBadPrefix(t *testing.T) {
	for _, prefix := range []string{"", "has space/", "star*", strings.Repeat("a", 257)} {
		if s, err := Open("secretsmanager:"+prefix, nil, "", nil); err == nil || s != nil {
			t.Errorf("prefix %q: store %v, err %v", prefix, s, err)
		}
	}
}

func TestSecretsManagerConcurrentCreate(t *testing.T) {
	s, srv := smStore(t, 0)
	const n = 16
	errs := make([]error, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			errs[i] = s.Create(context.Background(), Profile{Name: "race", SecretKey: fmt.Sprintf("secret-%02d", i)})
		}()
	}
	close(start)
	wg.Wait()
	winner := -1
	for i, err := range errs {
		switch {
		case err == nil && winner >= 0:
			t.Fatalf("creations %d and %d both won", winner, i)
		case err == nil:
			winner = i
		case !IsExists(err):
			t.Errorf("creation %d: %v, want PROFILE_EXISTS", i, err)
		}
	}
	if winner < 0 {
		t.Fatal("no creation won")
	}
	if raw, _ := srv.Value(smPrefix + "race"); raw != fmt.Sprintf(`{"secretKey":"secret-%02d"}`, winner) {
		t.Errorf("stored %q, winner was %d", raw, winner)
	}
	if got := srv.Count(smtest.OpCreateSecret); got != n {
		t.Errorf("%d CreateSecret calls, want %d (a conflict must not be retried)", got, n)
	}
}

func TestSecretsManagerErrorMapping(t *testing.T) {
	type call func(context.Context, *SecretsManager) error
	get := func(ctx context.Context, s *SecretsManager) error { return second(s.Get(ctx, "alice")) }
	list := func(ctx context.Context, s *SecretsManager) error { return second(s.List(ctx)) }
	create := func(ctx context.Context, s *SecretsManager) error {
		return s.Create(ctx, Profile{Name: "carol", SecretKey: plainSecret, APIKey: plainAPIKey})
	}
	update := func(ctx context.Context, s *SecretsManager) error {
		return s.Update(ctx, Profile{Name: "alice", SecretKey: plainSecret, APIKey: plainAPIKey})
	}
	for _, tc := range []struct {
		name    string
		fault   smtest.Fault
		do      call
		code    string
		cat     errmap.Category
		state   string
		inText  []string // substrings the three-line text must contain
		timeout time.Duration
	}{
		{name: "get not found", fault: smtest.Fault{Op: smtest.OpGetSecretValue, Code: smtest.ResourceNotFound}, do: get,
			code: "CREDENTIALS_MISSING", cat: errmap.CategoryAuth, inText: []string{`profile "alice"`}},
		{name: "create exists", fault: smtest.Fault{Op: smtest.OpCreateSecret, Code: smtest.ResourceExists}, do: create,
			code: "PROFILE_EXISTS", cat: errmap.CategoryConflict, inText: []string{`profile "carol"`}},
		{name: "update not found", fault: smtest.Fault{Op: smtest.OpPutSecretValue, Code: smtest.ResourceNotFound}, do: update,
			code: "CREDENTIALS_MISSING", cat: errmap.CategoryAuth},
		{name: "get denied", fault: smtest.Fault{Op: smtest.OpGetSecretValue, Code: smtest.AccessDenied}, do: get,
			code: "FORBIDDEN", cat: errmap.CategoryAuth,
			inText: []string{"secretsmanager credential store", `read profile "alice"`, "AccessDeniedException", "Secrets Manager GetSecretValue permission", "MINDVAULT_CREDENTIALS prefix"}},
		{name: "list denied", fault: smtest.Fault{Op: smtest.OpListSecrets, Code: smtest.AccessDenied}, do: list,
			code: "FORBIDDEN", cat: errmap.CategoryAuth, inText: []string{"list profiles", "Secrets Manager ListSecrets permission", `"*"`}},
		{name: "create denied", fault: smtest.Fault{Op: smtest.OpCreateSecret, Code: smtest.AccessDenied}, do: create,
			code: "FORBIDDEN", cat: errmap.CategoryAuth, inText: []string{`create profile "carol"`, "Secrets Manager CreateSecret permission"}},
		{name: "update denied", fault: smtest.Fault{Op: smtest.OpPutSecretValue, Code: smtest.AccessDenied}, do: update,
			code: "FORBIDDEN", cat: errmap.CategoryAuth, inText: []string{"Secrets Manager PutSecretValue permission"}},
		{name: "get throttled", fault: smtest.Fault{Op: smtest.OpGetSecretValue, Code: smtest.Throttling, Times: 3}, do: get,
			code: "RATE_LIMITED", cat: errmap.CategoryRateLimit, inText: []string{"ThrottlingException", "Wait"}},
		{name: "list too many requests", fault: smtest.Fault{Op: smtest.OpListSecrets, Code: "TooManyRequestsException", Times: 3}, do: list,
			code: "RATE_LIMITED", cat: errmap.CategoryRateLimit},
		{name: "create throttled", fault: smtest.Fault{Op: smtest.OpCreateSecret, Code: smtest.Throttling, Times: 3}, do: create,
			code: "RATE_LIMITED", cat: errmap.CategoryRateLimit},
		{name: "get internal error", fault: smtest.Fault{Op: smtest.OpGetSecretValue, Code: smtest.InternalServiceErr, Times: 3}, do: get,
			code: "UNKNOWN", cat: errmap.CategoryUnknown, inText: []string{"InternalServiceError"}},
		{name: "get decryption failure", fault: smtest.Fault{Op: smtest.OpGetSecretValue, Code: smtest.DecryptionFailure}, do: get,
			code: "UNKNOWN", cat: errmap.CategoryUnknown, inText: []string{"DecryptionFailure"}},
		{name: "create scheduled for deletion", fault: smtest.Fault{Op: smtest.OpCreateSecret, Code: smtest.InvalidRequest}, do: create,
			code: "UNKNOWN", cat: errmap.CategoryUnknown, inText: []string{"scheduled for deletion"}},
		{name: "get dropped", fault: smtest.Fault{Op: smtest.OpGetSecretValue, Kind: smtest.KindDrop, Times: 3}, do: get,
			code: "NETWORK_ERROR", cat: errmap.CategoryNetwork, inText: []string{"credential store"}},
		{name: "create dropped", fault: smtest.Fault{Op: smtest.OpCreateSecret, Kind: smtest.KindDrop, Times: 3}, do: create,
			code: "NETWORK_ERROR", cat: errmap.CategoryNetwork, state: "unknown"},
		{name: "get stalled", fault: smtest.Fault{Op: smtest.OpGetSecretValue, Kind: smtest.KindStall, Delay: 5 * time.Second, Times: 3}, do: get,
			code: "TIMEOUT", cat: errmap.CategoryTimeout, timeout: 200 * time.Millisecond},
		{name: "update stalled", fault: smtest.Fault{Op: smtest.OpPutSecretValue, Kind: smtest.KindStall, Delay: 5 * time.Second, Times: 3}, do: update,
			code: "TIMEOUT", cat: errmap.CategoryTimeout, state: "unknown", timeout: 200 * time.Millisecond},
		{name: "get malformed", fault: smtest.Fault{Op: smtest.OpGetSecretValue, Kind: smtest.KindMalformed}, do: get,
			code: "UNKNOWN", cat: errmap.CategoryUnknown},
		{name: "create malformed", fault: smtest.Fault{Op: smtest.OpCreateSecret, Kind: smtest.KindMalformed}, do: create,
			code: "UNKNOWN", cat: errmap.CategoryUnknown},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, srv := smStore(t, 0)
			srv.Put(smPrefix+"alice", `{"secretKey":"`+plainSecret+`","apiKey":"`+plainAPIKey+`"}`)
			srv.Inject(tc.fault)
			ctx := context.Background()
			if tc.timeout > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tc.timeout)
				defer cancel()
			}
			err := tc.do(ctx, s)
			if err == nil {
				t.Fatal("no error")
			}
			e, f := failure(t, err)
			t.Logf("\n%s", f.Text)
			if f.Diagnostic.Code != tc.code || f.Diagnostic.Category != string(tc.cat) {
				t.Errorf("code %s category %s, want %s %s\n%s", f.Diagnostic.Code, f.Diagnostic.Category, tc.code, tc.cat, f.Text)
			}
			if tc.state != "" && f.Diagnostic.StateChanged != tc.state {
				t.Errorf("stateChanged %s, want %s", f.Diagnostic.StateChanged, tc.state)
			}
			if !strings.Contains(f.Text, "Source: credential store") {
				t.Errorf("text does not name the source:\n%s", f.Text)
			}
			for _, want := range tc.inText {
				if !strings.Contains(f.Text, want) {
					t.Errorf("text lacks %q:\n%s", want, f.Text)
				}
			}
			if tc.cat == errmap.CategoryTimeout && !errors.Is(e, context.DeadlineExceeded) {
				t.Errorf("the deadline is not reachable through Unwrap: %v", e.Err)
			}
			assertNoLeak(t, err, f, plainSecret, plainAPIKey)
		})
	}
}

func TestSecretsManagerRetriesThrottling(t *testing.T) {
	s, srv := smStore(t, 0)
	srv.Put(smPrefix+"alice", `{"secretKey":"`+plainSecret+`"}`)
	srv.Fail(smtest.OpGetSecretValue, smtest.Throttling, 2)
	if p, err := s.Get(context.Background(), "alice"); err != nil || p.SecretKey != plainSecret {
		t.Fatalf("get after two throttles: %+v %v", p, err)
	}
	if got := srv.Count(smtest.OpGetSecretValue); got != 3 {
		t.Errorf("%d GetSecretValue calls, want 3", got)
	}
}

func TestSecretsManagerCache(t *testing.T) {
	ctx := context.Background()
	s, srv := smStore(t, 1)
	now := time.Unix(1_800_000_000, 0)
	var clock sync.Mutex
	s.now = func() time.Time { clock.Lock(); defer clock.Unlock(); return now }
	advance := func(d time.Duration) { clock.Lock(); now = now.Add(d); clock.Unlock() }
	srv.Put(smPrefix+"alice", `{"secretKey":"v1"}`)
	gets := func() int { return srv.Count(smtest.OpGetSecretValue) }

	steps := []struct {
		name  string
		do    func()
		value string
		calls int // GetSecretValue calls so far
	}{
		{"first read", func() {}, "v1", 1},
		{"hit within TTL", func() { advance(SecretsManagerTTL - time.Second) }, "v1", 1},
		{"out-of-band change is not seen within TTL", func() { srv.Put(smPrefix+"alice", `{"secretKey":"v2"}`) }, "v1", 1},
		{"expired", func() { advance(2 * time.Second) }, "v2", 2},
		{"hit again", func() {}, "v2", 2},
		{"update invalidates", func() {
			if err := s.Update(ctx, Profile{Name: "alice", SecretKey: "v3"}); err != nil {
				t.Fatal(err)
			}
		}, "v3", 3},
		{"failed update invalidates too", func() {
			srv.Fail(smtest.OpPutSecretValue, smtest.InternalServiceErr, 1)
			_ = s.Update(ctx, Profile{Name: "alice", SecretKey: "v4"})
		}, "v3", 4},
	}
	for _, st := range steps {
		st.do()
		p, err := s.Get(ctx, "alice")
		if err != nil || p.SecretKey != st.value || gets() != st.calls {
			t.Fatalf("%s: got %q (%v), %d calls; want %q, %d calls", st.name, p.SecretKey, err, gets(), st.value, st.calls)
		}
	}

	// A miss is not cached: a profile created elsewhere is visible on the next call.
	if _, err := s.Get(ctx, "bob"); code(t, err) != "CREDENTIALS_MISSING" {
		t.Fatal(err)
	}
	srv.Put(smPrefix+"bob", `{"secretKey":"b"}`)
	if p, err := s.Get(ctx, "bob"); err != nil || p.SecretKey != "b" {
		t.Errorf("miss was cached: %+v %v", p, err)
	}

	// Concurrent readers of a warm entry make no calls (run with -race).
	before := gets()
	var wg sync.WaitGroup
	for range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if p, err := s.Get(ctx, "alice"); err != nil || p.SecretKey != "v3" {
				t.Errorf("concurrent get: %+v %v", p, err)
			}
		}()
	}
	wg.Wait()
	if gets() != before {
		t.Errorf("%d calls for warm concurrent reads", gets()-before)
	}
}

// hookClient wraps the real client so a test can act in the middle of a call.
type hookClient struct {
	smAPI
	beforeGetReturns func()
	listPages        []*secretsmanager.ListSecretsOutput
	listCalls        int
}

func (h *hookClient) GetSecretValue(ctx context.Context, in *secretsmanager.GetSecretValueInput, o ...func(*secretsmanager.Options)) (*secretsmanager.GetSecretValueOutput, error) {
	out, err := h.smAPI.GetSecretValue(ctx, in, o...)
	if h.beforeGetReturns != nil {
		f := h.beforeGetReturns
		h.beforeGetReturns = nil
		f()
	}
	return out, err
}

func (h *hookClient) ListSecrets(ctx context.Context, in *secretsmanager.ListSecretsInput, o ...func(*secretsmanager.Options)) (*secretsmanager.ListSecretsOutput, error) {
	if h.listPages == nil {
		return h.smAPI.ListSecrets(ctx, in, o...)
	}
	h.listCalls++
	return h.listPages[min(h.listCalls, len(h.listPages))-1], nil
}

func TestSecretsManagerReadRacingWriteIsNotCached(t *testing.T) {
	ctx := context.Background()
	s, srv := smStore(t, 1)
	srv.Put(smPrefix+"alice", `{"secretKey":"old"}`)
	h := &hookClient{smAPI: s.client()}
	s.client = func() smAPI { return h }
	// The read has fetched "old"; before it returns, an update lands.
	h.beforeGetReturns = func() {
		if err := s.Update(ctx, Profile{Name: "alice", SecretKey: "new"}); err != nil {
			t.Error(err)
		}
	}
	if p, _ := s.Get(ctx, "alice"); p.SecretKey != "old" {
		t.Fatalf("racing read = %q", p.SecretKey)
	}
	if p, _ := s.Get(ctx, "alice"); p.SecretKey != "new" {
		t.Errorf("the racing read's stale value was cached: %q", p.SecretKey)
	}
}

func TestSecretsManagerList(t *testing.T) {
	ctx := context.Background()
	s, srv := smStore(t, 1)
	for _, name := range []string{
		smPrefix + "zed", smPrefix + "alice", "other/carol", smPrefix + "Bob", smPrefix + "has space",
		smPrefix + "nested/x", smPrefix, "MINDVAULT/TEST/dave", smPrefix + "a.b-c_d", smPrefix + "mallory",
	} {
		srv.Put(name, `{}`)
	}
	srv.SetPageSize(2)
	names, err := s.List(ctx)
	want := []string{"Bob", "a.b-c_d", "alice", "mallory", "zed"}
	if err != nil || !slices.Equal(names, want) {
		t.Fatalf("list = %v %v, want %v", names, err, want)
	}
	// 8 secrets match the prefix filter; at 2 per page that is 4 pages.
	if got := srv.Count(smtest.OpListSecrets); got != 4 {
		t.Errorf("%d ListSecrets calls, want 4", got)
	}

	empty, _ := smStore(t, 1)
	if names, err := empty.List(ctx); err != nil || names == nil || len(names) != 0 {
		t.Errorf("empty store: %#v %v (want an empty, non-nil list)", names, err)
	}
}

func TestSecretsManagerListDefends(t *testing.T) {
	ctx := context.Background()
	s, _ := smStore(t, 1)
	page := func(next string, names ...string) *secretsmanager.ListSecretsOutput {
		out := &secretsmanager.ListSecretsOutput{}
		for _, n := range names {
			out.SecretList = append(out.SecretList, types.SecretListEntry{Name: aws.String(n)})
		}
		if next != "" {
			out.NextToken = aws.String(next)
		}
		return out
	}
	// A service that ignores the filter: names outside the prefix are dropped here.
	h := &hookClient{smAPI: s.client(), listPages: []*secretsmanager.ListSecretsOutput{
		page("t1", "unrelated", smPrefix+"b"), page("", smPrefix+"a", "mindvault/tes", smPrefix+"b"),
	}}
	s.client = func() smAPI { return h }
	if names, err := s.List(ctx); err != nil || !slices.Equal(names, []string{"a", "b"}) {
		t.Errorf("unfiltered service: %v %v", names, err)
	}
	// A service that repeats its page token must not loop forever.
	h.listPages, h.listCalls = []*secretsmanager.ListSecretsOutput{page("same", smPrefix+"a")}, 0
	if _, err := s.List(ctx); code(t, err) != "UNKNOWN" || h.listCalls != 2 {
		t.Errorf("repeated token: %v after %d calls", err, h.listCalls)
	}
}
