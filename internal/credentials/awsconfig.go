package credentials

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
	"github.com/aws/smithy-go"
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
