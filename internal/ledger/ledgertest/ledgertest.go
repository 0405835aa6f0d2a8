// Package ledgertest runs dynalite, a DynamoDB-compatible server on Node, for the tests of the
// spend ledger and of the endpoint with a budget: one in-memory server per test binary on a
// free 127.0.0.1 port, pinned in internal/ledger/testdata/dynalite (installed by `make
// dynalite`, which `make unit` runs first) and killed by Stop or with the test process.
// Not installed, the tests fail naming the make target, except under -short, where they skip.
// Imported by tests only.
package ledgertest

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// cliPath is dynalite's command line below the repository root.
var cliPath = filepath.Join("internal", "ledger", "testdata", "dynalite", "node_modules", "dynalite", "cli.js")

const installHint = "install it with `make dynalite` (npm ci --prefix internal/ledger/testdata/dynalite; `make unit` does it too)"

// ErrNotInstalled is the failure of a machine without node or without the pinned dynalite.
var ErrNotInstalled = errors.New("dynalite is not installed")

var dyn struct {
	once sync.Once
	url  string
	cmd  *exec.Cmd
	done chan struct{} // closed when the process has exited
	err  error
}

// Dynalite is the endpoint URL of the test binary's dynalite, started on first use; root is the
// repository root relative to the calling test's package directory ("../.." for internal/x).
func Dynalite(t testing.TB, root string) string {
	t.Helper()
	dyn.once.Do(func() { dyn.err = start(filepath.Join(root, cliPath)) })
	if dyn.err != nil {
		if errors.Is(dyn.err, ErrNotInstalled) && testing.Short() {
			t.Skipf("-short: %v", dyn.err)
		}
		t.Fatal(dyn.err)
	}
	return dyn.url
}

// Stop kills the server, if one was started (call it from TestMain after m.Run).
func Stop() {
	if dyn.cmd != nil {
		_ = dyn.cmd.Process.Kill()
		<-dyn.done
	}
}

func start(cli string) error {
	node, err := exec.LookPath("node")
	if err != nil {
		return fmt.Errorf("%w: no node on PATH (Node 20 or later runs it): %v", ErrNotInstalled, err)
	}
	if _, err := os.Stat(cli); err != nil {
		return fmt.Errorf("%w (%s is missing): %s", ErrNotInstalled, cli, installHint)
	}
	var last error
	for attempt := 1; attempt <= 3; attempt++ { // a new port when the free one was taken meanwhile
		port, err := freePort()
		if err != nil {
			return err
		}
		if last = launch(node, cli, port); last == nil {
			return nil
		}
	}
	return fmt.Errorf("dynalite did not start: %w", last)
}

// launch starts dynalite on 127.0.0.1:port and waits for its "listening" line.
func launch(node, cli string, port int) error {
	cmd := exec.Command(node, cli, "--host", "127.0.0.1", "--port", strconv.Itoa(port),
		"--createTableMs", "0", "--deleteTableMs", "0", "--updateTableMs", "0")
	setDeathSignal(cmd)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return err
	}
	done := make(chan struct{})
	listening := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if strings.Contains(sc.Text(), "listening at") {
				close(listening)
				break
			}
		}
		_, _ = io.Copy(io.Discard, stdout)
		_ = cmd.Wait()
		close(done)
	}()
	select {
	case <-listening:
		dyn.cmd, dyn.done, dyn.url = cmd, done, fmt.Sprintf("http://127.0.0.1:%d", port)
		return nil
	case <-done:
		return fmt.Errorf("dynalite exited on port %d: %s", port, strings.TrimSpace(stderr.String()))
	case <-time.After(20 * time.Second):
		_ = cmd.Process.Kill()
		<-done
		return fmt.Errorf("dynalite did not listen on port %d within 20 s: %s", port, strings.TrimSpace(stderr.String()))
	}
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
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
