// Package ledgertest runs dynalite, a DynamoDB-compatible server on Node, for tests: one in-memory
// server per test binary on a free 127.0.0.1 port, pinned in internal/ledger/testdata/dynalite
// (`make dynalite`), killed by Stop or with the test process. Dynalite, which starts it, exists
// only under the build tag node, which `make test` sets: `go test ./...` needs no Node, and with
// the tag a machine without node or dynalite fails the test naming the make target.
package ledgertest

import (
	"context"
	"os/exec"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// dyn is the test binary's one dynalite, which Dynalite (dynalite.go) starts.
var dyn struct {
	once sync.Once
	url  string
	cmd  *exec.Cmd
	done chan struct{} // closed when the process has exited
	err  error
}

// Stop kills the server, if one was started (call it from TestMain after m.Run); it is
// compiled without the tag too, so a TestMain calls it either way.
func Stop() {
	if dyn.cmd != nil {
		_ = dyn.cmd.Process.Kill()
		<-dyn.done
	}
}

// Config is an AWS configuration with fixed credentials (dynalite checks none) and a retry
// delay short enough that a refused connection fails fast.
func Config() aws.Config {
	return aws.Config{
		Region: "us-east-1",
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: "test", SecretAccessKey: "test", Source: "test"}, nil
		}),
		Retryer: func() aws.Retryer {
			return retry.AddWithMaxBackoffDelay(retry.NewStandard(), 10*time.Millisecond)
		},
	}
}

// Client is a DynamoDB client of the server at url, for what a test does itself.
func Client(url string) *dynamodb.Client {
	return dynamodb.NewFromConfig(Config(), func(o *dynamodb.Options) { o.BaseEndpoint = aws.String(url) })
}

// CreateTable creates an empty ledger table (key pk, a string, on demand) as the deployment's
// template does, waits until it is active, and returns a client of the server.
func CreateTable(t testing.TB, url, name string) *dynamodb.Client {
	t.Helper()
	c := Client(url)
	ctx := context.Background()
	_, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String(name),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		BillingMode:          types.BillingModePayPerRequest,
	})
	if err != nil {
		t.Fatalf("CreateTable %s: %v", name, err)
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		out, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
		if err != nil {
			t.Fatalf("DescribeTable %s: %v", name, err)
		}
		if out.Table.TableStatus == types.TableStatusActive {
			return c
		}
		if time.Now().After(deadline) {
			t.Fatalf("table %s is %s after 10 s", name, out.Table.TableStatus)
		}
	}
}
