package auth

import (
	"context"
	"fmt"

	"github.com/mindvault/mcp-endpoint/internal/credentials"
)

// LoadTokenSecret reads the access-token list (ParseTokens format) from the string value of
// the Secrets Manager secret name (a name or an ARN), with the AWS configuration load gives
// (nil: the environment Lambda sets, credentials.EnvAWSConfig; AWS_ENDPOINT_URL_SECRETS_MANAGER
// and AWS_REGION honoured, us-east-1 when no region is set). Call it once per process, at
// start: a rotated secret is picked up by new instances. Errors name the secret and the AWS
// error code, never the value or the SDK's message (which may quote a response body).
func LoadTokenSecret(ctx context.Context, name string, load credentials.AWSConfigLoader) ([]Token, error) {
	value, err := credentials.LoadSecretString(ctx, "access token secret", name, load)
	if err != nil {
		return nil, err
	}
	tokens, err := ParseTokens(value)
	if err != nil {
		return nil, fmt.Errorf("access token secret %q: %w", name, err)
	}
	return tokens, nil
}
