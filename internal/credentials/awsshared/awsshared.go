// Package awsshared is the AWS configuration of local builds: aws-sdk-go-v2's shared-config loader,
// which reads the environment, ~/.aws/config and ~/.aws/credentials (profiles, SSO, assumed roles)
// as the AWS CLI does. It is a package of its own so that the deployed Lambda binary, which reads
// the credentials Lambda puts in its environment (credentials.EnvAWSConfig), links none of the STS,
// SSO and instance-metadata clients this loader brings (functions/mcp's test checks).
package awsshared

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/feature/ec2/imds"
)

// Load is a credentials.AWSConfigLoader: the SDK's default configuration, in us-east-1 when
// nothing names a region, its credentials resolved now (a clear startup problem). Instance
// metadata is off unless AWS_EC2_METADATA_DISABLED=false: off EC2 its lookup stalls about 11 s.
func Load(ctx context.Context) (aws.Config, error) {
	opts := []func(*config.LoadOptions) error{config.WithDefaultRegion("us-east-1")}
	if !strings.EqualFold(strings.TrimSpace(os.Getenv("AWS_EC2_METADATA_DISABLED")), "false") {
		opts = append(opts, config.WithEC2IMDSClientEnableState(imds.ClientDisabled))
	}
	cfg, err := config.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return aws.Config{}, err
	}
	if _, err := cfg.Credentials.Retrieve(ctx); err != nil {
		return aws.Config{}, fmt.Errorf("no AWS credentials found: set AWS_PROFILE (a profile in ~/.aws: aws configure, or aws sso login) "+
			"or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY; instance metadata is not asked outside AWS (AWS_EC2_METADATA_DISABLED=false turns it on) (%v)", err)
	}
	return cfg, nil
}
