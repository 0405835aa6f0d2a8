package auth

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
	"github.com/aws/smithy-go"

	"github.com/mindvault/mcp-endpoint/internal/credentials"
)

// LoadTokenSecret reads the access-token list (ParseTokens format) from the string value of
// the Secrets Manager secret name (a name or an ARN), with the AWS configuration load gives
// (nil: the environment Lambda sets, credentials.EnvAWSConfig; AWS_ENDPOINT_URL_SECRETS_MANAGER
// and AWS_REGION honoured, us-east-1 when no region is set). Call it once per process, at
// start: a rotated secret is picked up by new instances. Errors name the secret and the AWS
// error code, never the value or the SDK's message (which may quote a response body).
func LoadTokenSecret(ctx context.Context, name string, load credentials.AWSConfigLoader) ([]Token, error) {
	value, err := LoadSecretString(ctx, "access token secret", name, load)
	if err != nil {
		return nil, err
	}
	tokens, err := ParseTokens(value)
	if err != nil {
		return nil, fmt.Errorf("access token secret %q: %w", name, err)
	}
	return tokens, nil
}

// LoadSecretString reads the string value of the Secrets Manager secret name the way
// LoadTokenSecret does (same configuration, same error hygiene); label names the secret's
// purpose in errors, e.g. "confirmation key secret". For other once-per-process secrets.
func LoadSecretString(ctx context.Context, label, name string, load credentials.AWSConfigLoader) (string, error) {
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
		if errors.As(err, &apiErr) && credentials.IsAWSErrorCode(apiErr.ErrorCode()) {
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
