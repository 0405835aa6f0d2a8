// Package awsshared is the AWS configuration of local builds: aws-sdk-go-v2's shared-config
// loader, which reads the environment, ~/.aws/config and ~/.aws/credentials (profiles, SSO,
// assumed roles, instance metadata) as the AWS CLI does. The deployed Lambda binary never
// imports it: it reads the credentials Lambda puts in its environment
// (credentials.EnvAWSConfig) and so links none of the STS, SSO and instance-metadata clients
// this loader brings (functions/mcp's test checks).
package awsshared

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
)

// Load is a credentials.AWSConfigLoader: the SDK's default configuration, in us-east-1 when
// nothing names a region.
func Load(ctx context.Context) (aws.Config, error) {
	return config.LoadDefaultConfig(ctx, config.WithDefaultRegion("us-east-1"))
}
