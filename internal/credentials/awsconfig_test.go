package credentials

import (
	"context"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
)

// TestEnvAWSConfig: the deployed function's AWS configuration comes from the variables Lambda
// sets, with the SDK's fallbacks for the region and the endpoint, and missing credentials are
// a problem named when the store opens rather than a failed request later.
func TestEnvAWSConfig(t *testing.T) {
	base := map[string]string{
		"AWS_ACCESS_KEY_ID": "AKIDENV", "AWS_SECRET_ACCESS_KEY": "env-secret", "AWS_SESSION_TOKEN": "env-token",
		"AWS_REGION": "", "AWS_DEFAULT_REGION": "", "AWS_ENDPOINT_URL_SECRETS_MANAGER": "", "AWS_ENDPOINT_URL": "",
		"AWS_IGNORE_CONFIGURED_ENDPOINT_URLS": "", "AWS_MAX_ATTEMPTS": "",
	}
	cases := []struct {
		name             string
		env              map[string]string
		region, endpoint string
		attempts         int
		problem          string // a fragment of the error; "" = none
	}{
		{"Lambda's variables", map[string]string{"AWS_REGION": "eu-west-1"}, "eu-west-1", "", 0, ""},
		{"default region variable", map[string]string{"AWS_DEFAULT_REGION": "ap-south-1"}, "ap-south-1", "", 0, ""},
		{"AWS_REGION wins", map[string]string{"AWS_REGION": "eu-west-1", "AWS_DEFAULT_REGION": "ap-south-1"}, "eu-west-1", "", 0, ""},
		{"no region", nil, "us-east-1", "", 0, ""},
		{"service endpoint wins", map[string]string{"AWS_ENDPOINT_URL_SECRETS_MANAGER": "http://127.0.0.1:1", "AWS_ENDPOINT_URL": "http://127.0.0.1:2"}, "us-east-1", "http://127.0.0.1:1", 0, ""},
		{"global endpoint", map[string]string{"AWS_ENDPOINT_URL": "http://127.0.0.1:2"}, "us-east-1", "http://127.0.0.1:2", 0, ""},
		{"endpoints ignored", map[string]string{"AWS_ENDPOINT_URL": "http://127.0.0.1:2", "AWS_IGNORE_CONFIGURED_ENDPOINT_URLS": "TRUE"}, "us-east-1", "", 0, ""},
		{"max attempts", map[string]string{"AWS_MAX_ATTEMPTS": "5"}, "us-east-1", "", 5, ""},
		{"bad max attempts", map[string]string{"AWS_MAX_ATTEMPTS": "many"}, "", "", 0, "AWS_MAX_ATTEMPTS"},
		{"no key id", map[string]string{"AWS_ACCESS_KEY_ID": ""}, "", "", 0, "AWS_ACCESS_KEY_ID"},
		{"no secret key", map[string]string{"AWS_SECRET_ACCESS_KEY": ""}, "", "", 0, "AWS_SECRET_ACCESS_KEY"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for k, v := range base {
				t.Setenv(k, v)
			}
			for k, v := range c.env {
				t.Setenv(k, v)
			}
			cfg, err := EnvAWSConfig(context.Background())
			if c.problem != "" {
				if err == nil || !strings.Contains(err.Error(), c.problem) {
					t.Fatalf("error %v, want one naming %s", err, c.problem)
				}
				if _, err := Open("secretsmanager:"+smPrefix, nil, "default", nil); err == nil || !strings.Contains(err.Error(), c.problem) {
					t.Fatalf("the store opened without a usable AWS configuration (%v)", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Region != c.region || aws.ToString(cfg.BaseEndpoint) != c.endpoint || cfg.RetryMaxAttempts != c.attempts {
				t.Fatalf("region %q endpoint %q attempts %d, want %q %q %d", cfg.Region, aws.ToString(cfg.BaseEndpoint), cfg.RetryMaxAttempts, c.region, c.endpoint, c.attempts)
			}
			creds, err := cfg.Credentials.Retrieve(context.Background())
			if err != nil || creds.AccessKeyID != "AKIDENV" || creds.SecretAccessKey != "env-secret" || creds.SessionToken != "env-token" {
				t.Fatalf("credentials %+v %v", creds, err)
			}
		})
	}
}
