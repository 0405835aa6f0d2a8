package ledger

// The DynamoDB tests run against dynalite (package ledgertest): one server per test binary,
// each test in its own table.

import (
	"fmt"
	"os"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/mindvault/mcp-endpoint/internal/ledger/ledgertest"
)

func TestMain(m *testing.M) {
	code := m.Run()
	ledgertest.Stop()
	os.Exit(code)
}

// dynaliteURL is the endpoint of the shared dynalite server, started on first use.
func dynaliteURL(t *testing.T) string {
	t.Helper()
	return ledgertest.Dynalite(t, "../..")
}

// testConfig is ledgertest's AWS configuration.
func testConfig() aws.Config { return ledgertest.Config() }

// rawClient is a DynamoDB client of dynalite's, for what the ledger does not do itself.
func rawClient(t *testing.T) *dynamodb.Client {
	t.Helper()
	return ledgertest.Client(dynaliteURL(t))
}

var tables atomic.Int64

// newTable creates an empty ledger table as the deployment's template would, and returns its name.
func newTable(t *testing.T) string {
	t.Helper()
	name := fmt.Sprintf("ledger-%d", tables.Add(1))
	ledgertest.CreateTable(t, dynaliteURL(t), name)
	return name
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
