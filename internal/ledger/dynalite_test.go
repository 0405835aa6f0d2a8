package ledger

// The DynamoDB tests run against dynalite, a DynamoDB-compatible server on Node, pinned in
// testdata/dynalite/package-lock.json and installed there by `make dynalite` (which `make unit`,
// and so `make test`, runs first). One server is started per test binary on a free 127.0.0.1
// port, in memory, and killed when the tests end; each test makes its own table.
//
// Not installed (or no node on PATH): the DynamoDB tests fail, naming the make target, except
// under -short, where they are skipped. Installed, they run under -short too (they take about a
// second).

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
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// dynaliteCLI is dynalite's command line, relative to this package.
var dynaliteCLI = filepath.Join("testdata", "dynalite", "node_modules", "dynalite", "cli.js")

const installHint = "install it with `make dynalite` (npm ci --prefix internal/ledger/testdata/dynalite; `make unit` does it too)"

var errNotInstalled = errors.New("dynalite is not installed")

var dyn struct {
	once sync.Once
	url  string
	cmd  *exec.Cmd
	done chan struct{} // closed when the process has exited
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	stopDynalite()
	os.Exit(code)
}

// dynaliteURL is the endpoint of the shared dynalite server, started on first use.
func dynaliteURL(t *testing.T) string {
	t.Helper()
	dyn.once.Do(func() { dyn.err = startDynalite() })
	if dyn.err != nil {
		if errors.Is(dyn.err, errNotInstalled) && testing.Short() {
			t.Skipf("-short: %v", dyn.err)
		}
		t.Fatal(dyn.err)
	}
	return dyn.url
}

func startDynalite() error {
	node, err := exec.LookPath("node")
	if err != nil {
		return fmt.Errorf("%w: no node on PATH (Node 20 or later runs it): %v", errNotInstalled, err)
	}
	if _, err := os.Stat(dynaliteCLI); err != nil {
		return fmt.Errorf("%w (%s is missing): %s", errNotInstalled, dynaliteCLI, installHint)
	}
	var last error
	for attempt := 1; attempt <= 3; attempt++ { // a new port when the free one was taken meanwhile
		port, err := freePort()
		if err != nil {
			return err
		}
		if last = launch(node, port); last == nil {
			return nil
		}
	}
	return fmt.Errorf("dynalite did not start: %w", last)
}

// launch starts dynalite on 127.0.0.1:port and waits for its "listening" line.
func launch(node string, port int) error {
	cmd := exec.Command(node, dynaliteCLI, "--host", "127.0.0.1", "--port", strconv.Itoa(port),
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

func stopDynalite() {
	if dyn.cmd != nil {
		_ = dyn.cmd.Process.Kill()
		<-dyn.done
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

// testConfig is an AWS configuration with fixed credentials (dynalite checks none) and a retry
// delay short enough that a refused connection fails fast.
func testConfig() aws.Config {
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

// rawClient is a DynamoDB client of dynalite's, for what the ledger does not do itself.
func rawClient(t *testing.T) *dynamodb.Client {
	t.Helper()
	url := dynaliteURL(t)
	return dynamodb.NewFromConfig(testConfig(), func(o *dynamodb.Options) { o.BaseEndpoint = aws.String(url) })
}

var tables atomic.Int64

// newTable creates an empty ledger table (key pk, a string) as the deployment's template
// would, and returns its name.
func newTable(t *testing.T) string {
	t.Helper()
	c := rawClient(t)
	name := fmt.Sprintf("ledger-%d", tables.Add(1))
	ctx := context.Background()
	_, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String(name),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String(attrPK), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String(attrPK), KeyType: types.KeyTypeHash}},
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
			return name
		}
		if time.Now().After(deadline) {
			t.Fatalf("table %s is %s after 10 s", name, out.Table.TableStatus)
		}
	}
}

// newDynamo is a Dynamo ledger in a new table of dynalite's.
func newDynamo(t *testing.T) *Dynamo {
	t.Helper()
	table := newTable(t)
	d, err := NewDynamo(testConfig(), table, dynaliteURL(t))
	if err != nil {
		t.Fatal(err)
	}
	return d
}
