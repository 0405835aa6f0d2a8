package credentials

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
	"github.com/aws/smithy-go"
)

// LoadSecretString reads the string value of the Secrets Manager secret name the way
// auth.LoadTokenSecret does (with the AWS configuration load gives, nil: the environment Lambda sets; errors name the secret and the AWS error code, never the value or the SDK's message); label names the secret's
// purpose in errors, e.g. "confirmation key secret". For other once-per-process secrets.
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
