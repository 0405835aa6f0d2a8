package credentials

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager/types"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/internal/redact/lazyre"
)

// AWSConfigLoader loads the AWS configuration the Secrets Manager clients are built from; nil
// means EnvAWSConfig.
type AWSConfigLoader func(context.Context) (aws.Config, error)

// Load calls the loader, EnvAWSConfig when nil (both loaders default the region to us-east-1).
func (l AWSConfigLoader) Load(ctx context.Context) (aws.Config, error) {
	if l == nil {
		return EnvAWSConfig(ctx)
	}
	return l(ctx)
}

// EnvAWSConfig is the deployed function's AWS configuration, read from the environment alone
// (docs/operations.md "Credential stores"). The SDK's shared-config loader would link STS, SSO and
// instance-metadata clients a function never calls (about 1 MB and their init on every cold
// start): local builds inject it (credentials/awsshared).
func EnvAWSConfig(context.Context) (aws.Config, error) {
	key, secret := os.Getenv("AWS_ACCESS_KEY_ID"), os.Getenv("AWS_SECRET_ACCESS_KEY")
	if key == "" || secret == "" {
		return aws.Config{}, errors.New("AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are not set; " +
			"this build reads its AWS credentials from the environment, as Lambda sets it")
	}
	creds := aws.Credentials{AccessKeyID: key, SecretAccessKey: secret, SessionToken: os.Getenv("AWS_SESSION_TOKEN"), Source: "EnvConfigCredentials"}
	cfg := aws.Config{
		// Lambda always sets AWS_REGION; a developer machine may not.
		Region: cmp.Or(os.Getenv("AWS_REGION"), os.Getenv("AWS_DEFAULT_REGION"), "us-east-1"),
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return creds, nil
		}),
	}
	if !strings.EqualFold(os.Getenv("AWS_IGNORE_CONFIGURED_ENDPOINT_URLS"), "true") {
		if u := cmp.Or(os.Getenv("AWS_ENDPOINT_URL_SECRETS_MANAGER"), os.Getenv("AWS_ENDPOINT_URL")); u != "" {
			cfg.BaseEndpoint = aws.String(u)
		}
	}
	if v := os.Getenv("AWS_MAX_ATTEMPTS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return aws.Config{}, errors.New("AWS_MAX_ATTEMPTS must be a positive integer")
		}
		cfg.RetryMaxAttempts = n
	}
	return cfg, nil
}

// LoadSecretString reads the string value of the Secrets Manager secret name as
// auth.LoadTokenSecret does, for other once-per-process secrets; label names its purpose in errors.
func LoadSecretString(ctx context.Context, label, name string, load AWSConfigLoader) (string, error) {
	if name == "" {
		return "", errors.New(label + ": no secret name")
	}
	cfg, err := load.Load(ctx)
	if err != nil {
		return "", fmt.Errorf("%s %q: load AWS configuration: %w", label, name, err)
	}
	out, err := secretsmanager.NewFromConfig(cfg).GetSecretValue(ctx, &secretsmanager.GetSecretValueInput{SecretId: aws.String(name)})
	if err != nil {
		var apiErr smithy.APIError
		if errors.As(err, &apiErr) && awsCode.MatchString(apiErr.ErrorCode()) {
			return "", fmt.Errorf("%s %q could not be read (AWS %s)", label, name, apiErr.ErrorCode())
		}
		if ctx.Err() != nil {
			return "", fmt.Errorf("%s %q could not be read: %w", label, name, ctx.Err())
		}
		return "", fmt.Errorf("%s %q could not be read (no valid response from Secrets Manager)", label, name)
	}
	if out.SecretString == nil {
		return "", fmt.Errorf("%s %q holds no string value", label, name)
	}
	return *out.SecretString, nil
}

// SecretsManagerTTL is how long a profile read from Secrets Manager is served from memory: short,
// as another instance may update it; long enough for one GetSecretValue per burst of calls.
const SecretsManagerTTL = 30 * time.Second

// secretPrefix is what Secrets Manager accepts in a secret name (ASCII letters, digits and
// /_+=.@-). Profile names (ValidName) are a subset, so prefix+profile is always a valid name.
var secretPrefix = lazyre.New(`^[A-Za-z0-9/_+=.@-]{1,256}$`)

// smAPI is the part of the Secrets Manager client the store uses.
type smAPI interface {
	GetSecretValue(context.Context, *secretsmanager.GetSecretValueInput, ...func(*secretsmanager.Options)) (*secretsmanager.GetSecretValueOutput, error)
	CreateSecret(context.Context, *secretsmanager.CreateSecretInput, ...func(*secretsmanager.Options)) (*secretsmanager.CreateSecretOutput, error)
	PutSecretValue(context.Context, *secretsmanager.PutSecretValueInput, ...func(*secretsmanager.Options)) (*secretsmanager.PutSecretValueOutput, error)
	ListSecrets(context.Context, *secretsmanager.ListSecretsInput, ...func(*secretsmanager.Options)) (*secretsmanager.ListSecretsOutput, error)
}

// SecretsManager stores one secret per profile, named prefix+profile, whose string value is the
// Profile JSON. It is safe for concurrent use; build it once per process.
type SecretsManager struct {
	client func() smAPI // built on first use: a cold start that never reads a profile builds none
	prefix string
	now    func() time.Time

	mu    sync.Mutex
	cache map[string]cached
	gen   map[string]uint64 // bumped on every write, so a read that raced a write is not cached
}

type cached struct {
	p  Profile
	at time.Time
}

// NewSecretsManager builds the store from the AWS configuration load gives (nil: EnvAWSConfig).
// The configuration is read now, so a missing one is a startup problem; the client is built on
// first use.
func NewSecretsManager(ctx context.Context, prefix string, load AWSConfigLoader) (*SecretsManager, error) {
	if !secretPrefix.MatchString(prefix) {
		return nil, fmt.Errorf("secretsmanager: store needs a secret-name prefix of 1-256 characters from A-Z a-z 0-9 / _ + = . @ -")
	}
	cfg, err := load.Load(ctx)
	if err != nil {
		return nil, fmt.Errorf("secretsmanager: load AWS configuration: %w", err)
	}
	return &SecretsManager{
		client: sync.OnceValue(func() smAPI { return secretsmanager.NewFromConfig(cfg) }),
		prefix: prefix,
		now:    time.Now,
		cache:  map[string]cached{},
		gen:    map[string]uint64{},
	}, nil
}

// Kind implements Store.
func (s *SecretsManager) Kind() string { return "secretsmanager" }

// ReadOnly implements Store.
func (s *SecretsManager) ReadOnly() bool { return false }

// Get implements Store: GetSecretValue, served from memory for SecretsManagerTTL after a
// successful read; misses and failures are not cached.
func (s *SecretsManager) Get(ctx context.Context, name string) (Profile, error) {
	if !ValidName(name) {
		return Profile{}, Missing(s, name, "credentials")
	}
	s.mu.Lock()
	if c, ok := s.cache[name]; ok && s.now().Sub(c.at) < SecretsManagerTTL {
		s.mu.Unlock()
		return c.p, nil
	}
	gen := s.gen[name]
	s.mu.Unlock()

	out, err := s.client().GetSecretValue(ctx, &secretsmanager.GetSecretValueInput{SecretId: aws.String(s.prefix + name)})
	if err != nil {
		return Profile{}, s.mapErr(opGet, name, err, nil)
	}
	if out.SecretString == nil {
		return Profile{}, StoreFailure(s, fmt.Sprintf("decode profile %q (the secret holds no string value)", name), errors.New("secret has no SecretString"))
	}
	var p Profile
	if err := json.Unmarshal([]byte(*out.SecretString), &p); err != nil {
		// The decoder's message can quote the value, so it is not kept.
		return Profile{}, StoreFailure(s, fmt.Sprintf("decode profile %q (the secret is not profile JSON)", name), errors.New("secret is not profile JSON"))
	}
	p.Name = name
	if p, err = loaded(s, p); err != nil {
		return Profile{}, err
	}

	s.mu.Lock()
	if s.gen[name] == gen {
		s.cache[name] = cached{p: p, at: s.now()}
	}
	s.mu.Unlock()
	return p, nil
}

// fresh is Get past the cache (Fresh): the entry is dropped as a write drops it.
func (s *SecretsManager) fresh(ctx context.Context, name string) (Profile, error) {
	s.mu.Lock()
	delete(s.cache, name)
	s.gen[name]++
	s.mu.Unlock()
	return s.Get(ctx, name)
}

// List implements Store: ListSecrets filtered server-side by the prefix (and again here,
// because the filter is only a search aid), every page, prefix stripped, valid names only.
func (s *SecretsManager) List(ctx context.Context) ([]string, error) {
	in := &secretsmanager.ListSecretsInput{
		MaxResults: aws.Int32(100),
		Filters:    []types.Filter{{Key: types.FilterNameStringTypeName, Values: []string{s.prefix}}},
	}
	names := []string{}
	tokens := map[string]bool{}
	for {
		out, err := s.client().ListSecrets(ctx, in)
		if err != nil {
			return nil, s.mapErr(opList, "", err, nil)
		}
		for _, e := range out.SecretList {
			n, ok := strings.CutPrefix(aws.ToString(e.Name), s.prefix)
			if ok && ValidName(n) {
				names = append(names, n)
			}
		}
		if in.NextToken = out.NextToken; aws.ToString(in.NextToken) == "" {
			break
		}
		// A service that repeats a token would loop forever.
		if tokens[*in.NextToken] {
			return nil, StoreFailure(s, "list profiles (the service repeated a page token)", errors.New("repeated NextToken"))
		}
		tokens[*in.NextToken] = true
	}
	slices.Sort(names)
	return slices.Compact(names), nil
}

// Create implements Store with CreateSecret, which fails when the name exists — so of two
// concurrent creations exactly one wins and the other gets PROFILE_EXISTS. The SDK adds a
// ClientRequestToken, which makes its own retries of a creation that did succeed harmless.
func (s *SecretsManager) Create(ctx context.Context, p Profile) error {
	if !ValidName(p.Name) {
		return StoreFailure(s, "create a profile", fmt.Errorf("invalid profile name"))
	}
	_, err := s.client().CreateSecret(ctx, &secretsmanager.CreateSecretInput{
		Name:         aws.String(s.prefix + p.Name),
		SecretString: aws.String(string(p.encode())),
		Description:  aws.String("MindVault MCP endpoint credential profile " + p.Name),
	})
	return s.written(opCreate, p, err)
}

// Update implements Store with PutSecretValue (a new current version); a profile that does
// not exist is CREDENTIALS_MISSING, as in the other stores.
func (s *SecretsManager) Update(ctx context.Context, p Profile) error {
	if !ValidName(p.Name) {
		return Missing(s, p.Name, "credentials")
	}
	_, err := s.client().PutSecretValue(ctx, &secretsmanager.PutSecretValueInput{
		SecretId:     aws.String(s.prefix + p.Name),
		SecretString: aws.String(string(p.encode())),
	})
	return s.written(opUpdate, p, err)
}

// written ends a write: the cached profile is dropped whatever the outcome, because a timed-out
// write may still have landed.
func (s *SecretsManager) written(op smOp, p Profile, err error) error {
	s.mu.Lock()
	delete(s.cache, p.Name)
	s.gen[p.Name]++
	s.mu.Unlock()
	if err != nil {
		return s.mapErr(op, p.Name, err, p.Secrets())
	}
	return nil
}

// smOp describes one store operation for error text: what was attempted and which IAM
// action it needs.
type smOp struct {
	verb   string // "read", "list", "create", "update"
	action string // IAM action in the secretsmanager namespace
	scope  string // the resource the action needs, when not the secrets under the prefix
}

var (
	opGet    = smOp{"read", "GetSecretValue", ""}
	opList   = smOp{"list", "ListSecrets", `resource "*" (ListSecrets cannot be scoped to a prefix)`}
	opCreate = smOp{"create", "CreateSecret", ""}
	opUpdate = smOp{"update", "PutSecretValue", ""}
)

func (o smOp) what(profile string) string {
	if profile == "" {
		return o.verb + " profiles"
	}
	return fmt.Sprintf("%s profile %q", o.verb, profile)
}

// awsError is the sanitised cause kept in errmap.Error.Err: its text names the operation and the
// AWS error code only, because the SDK's message can carry the secret or the service's free-form
// message. The raw error stays reachable through Unwrap.
type awsError struct {
	msg   string
	cause error
}

func (e *awsError) Error() string { return e.msg }
func (e *awsError) Unwrap() error { return e.cause }

// mapErr turns an SDK error into a credential-store failure (docs/errors.md). Details carry the
// operation, the profile name and the AWS error code — never the SDK's message.
func (s *SecretsManager) mapErr(op smOp, profile string, err error, secrets []string) *errmap.Error {
	var f errmap.Facts
	var why string // the cause's text after the operation
	var apiErr smithy.APIError
	t := transportKind(err)
	switch {
	case errors.As(err, &apiErr):
		code := apiErr.ErrorCode()
		if !awsCode.MatchString(code) {
			code = "UnknownError"
		}
		why = "AWS " + code
		switch {
		case code == "ResourceNotFoundException" && profile != "":
			f = Missing(s, profile, "credentials").Facts
		case code == "ResourceExistsException" && op == opCreate:
			f = Exists(s, profile).Facts
		case code == "AccessDeniedException":
			// Written as "the Secrets Manager X permission": the redactor would blank the
			// value of a "secretsmanager:X" pair, taking it for a secret.
			f = fail(errmap.CodeForbidden, errmap.CategoryAuth,
				fmt.Sprintf("the %s credential store denied the request to %s (AWS %s)", s.Kind(), op.what(profile), code),
				"The operator must grant the function's IAM role the Secrets Manager "+op.action+" permission on "+
					cmp.Or(op.scope, "the secrets under the MINDVAULT_CREDENTIALS prefix")+", then retry.").Facts
		case slices.Contains(throttles, code):
			f = fail(errmap.CodeRateLimited, errmap.CategoryRateLimit,
				fmt.Sprintf("the %s credential store throttled the request to %s (AWS %s)", s.Kind(), op.what(profile), code), "").Facts
		case code == "InvalidRequestException" && profile != "":
			// What AWS answers for a name whose secret is scheduled for deletion.
			f = StoreFailure(s, fmt.Sprintf("%s (AWS %s; a secret of that name may be scheduled for deletion)", op.what(profile), code), nil).Facts
		default:
			f = StoreFailure(s, fmt.Sprintf("%s (AWS %s)", op.what(profile), code), nil).Facts
		}
	case t != errmap.TransportNone:
		why = "network error"
		if t == errmap.TransportTimeout {
			why = "timeout"
		}
		f = errmap.Facts{Source: errmap.SourceCredentials, Transport: t, ExecutionStarted: true,
			Detail: fmt.Sprintf("the %s credential store failed to %s (%s)", s.Kind(), op.what(profile), why)}
		if op == opCreate || op == opUpdate {
			// The write may have landed before the connection broke; unset, the mapping
			// decides from the rest of the facts.
			f.StateChanged = errmap.StateUnknown
		}
	default:
		// Deserialization failures and the like: their text can quote the response body.
		why = "unexpected response"
		f = StoreFailure(s, op.what(profile)+" (unexpected response)", nil).Facts
	}
	f.Secrets = secrets
	return &errmap.Error{Err: &awsError{msg: fmt.Sprintf("secretsmanager: %s: %s", op.what(profile), why), cause: err}, Facts: f}
}

// awsCode is the shape of an AWS error code (ResourceNotFoundException, Throttling): only
// such a code is repeated in a detail or message, never other text an SDK error carries.
var awsCode = lazyre.New(`^[A-Za-z][A-Za-z0-9_.]{0,63}$`)

// throttles are the AWS codes of a throttled request. Not LimitExceededException: in Secrets
// Manager that is the account's secret quota.
var throttles = []string{"ThrottlingException", "Throttling", "TooManyRequestsException", "RequestLimitExceeded",
	"RequestThrottled", "RequestThrottledException", "SlowDown"}

// transportKind classifies an SDK error that got no service response. The SDK wraps the
// net/http error in RequestSendError (and retries in MaxAttemptsError), all unwrappable.
func transportKind(err error) errmap.Transport {
	// An answer that arrived but does not decode is not the network's failure, even when the
	// decoder's error is an unexpected EOF (a truncated JSON body): the service answered.
	var de *smithy.DeserializationError
	var ne net.Error
	var send *smithyhttp.RequestSendError
	switch {
	case errors.As(err, &de):
		return errmap.TransportNone
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled),
		errors.Is(err, syscall.ETIMEDOUT), errors.As(err, &ne) && ne.Timeout():
		return errmap.TransportTimeout
	case errors.As(err, &send), errors.As(err, &ne), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET):
		return errmap.TransportNetwork
	}
	return errmap.TransportNone
}
