package auth

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
	"github.com/aws/smithy-go"

	"github.com/mindvault/mcp-endpoint/credentials"
)

// LoadTokenSecret reads the access-token list (ParseTokens format) from the string value of
// the Secrets Manager secret name (a name or an ARN), with the aws-sdk-go-v2 default
// configuration (AWS_ENDPOINT_URL_SECRETS_MANAGER and AWS_REGION honoured, us-east-1 when no
// region is set). Call it once per process, at start: a rotated secret is picked up by new
// instances. Errors name the secret and the AWS error code, never the value or the SDK's
// message (which may quote a response body).
func LoadTokenSecret(ctx context.Context, name string) ([]Token, error) {
	return loadTokenSecret(ctx, name)
}

func loadTokenSecret(ctx context.Context, name string, opts ...func(*config.LoadOptions) error) ([]Token, error) {
	if name == "" {
		return nil, errors.New("access token secret: no secret name")
	}
	opts = append([]func(*config.LoadOptions) error{config.WithDefaultRegion("us-east-1")}, opts...)
	cfg, err := config.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return nil, fmt.Errorf("access token secret %q: load AWS configuration: %w", name, err)
	}
	out, err := secretsmanager.NewFromConfig(cfg).GetSecretValue(ctx, &secretsmanager.GetSecretValueInput{SecretId: aws.String(name)})
	if err != nil {
		var apiErr smithy.APIError
		if errors.As(err, &apiErr) && credentials.IsAWSErrorCode(apiErr.ErrorCode()) {
			return nil, fmt.Errorf("access token secret %q could not be read (AWS %s)", name, apiErr.ErrorCode())
		}
		if ctx.Err() != nil {
			return nil, fmt.Errorf("access token secret %q could not be read: %w", name, ctx.Err())
		}
		return nil, fmt.Errorf("access token secret %q could not be read (no valid response from Secrets Manager)", name)
	}
	if out.SecretString == nil {
		return nil, fmt.Errorf("access token secret %q holds no string value", name)
	}
	tokens, err := ParseTokens(*out.SecretString)
	if err != nil {
		return nil, fmt.Errorf("access token secret %q: %w", name, err)
	}
	return tokens, nil
}
