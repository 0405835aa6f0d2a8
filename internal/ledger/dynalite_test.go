//go:build node

package ledger

// The DynamoDB tests that need a server run against dynalite (package ledgertest): one server
// per test binary, each test in its own table. They live in this file, under the tag node
// (docs/operations.md "Tests"), because without the tag ledgertest cannot start dynalite.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

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

func TestDynamo(t *testing.T) {
	dynaliteURL(t) // not installed: one failure, not one per case
	testLedger(t, func(t *testing.T) Ledger { return newDynamo(t) })
}

func TestDynamoJournal(t *testing.T) {
	dynaliteURL(t)
	testJournal(t, func(t *testing.T) Journal { return newDynamo(t) })
}

// TestDynamoReservationsBelongToAttempts is TestReservationsBelongToAttempts on DynamoDB.
func TestDynamoReservationsBelongToAttempts(t *testing.T) {
	testReservationsBelongToAttempts(t, newDynamo(t))
}

// The item as the table holds it: the key, the total, the intents map and the TTL attribute.
func TestDynamoItemLayout(t *testing.T) {
	d := newDynamo(t)
	ctx := context.Background()
	mustReserve(t, d, "alice", testDay, "pay-1", 4_000_000, usdc)
	mustReserve(t, d, "alice", testDay, "pay-2", 2_500_000, usdc)
	if _, err := d.Release(ctx, "alice", testDay, "pay-1"); err != nil {
		t.Fatal(err)
	}
	out, err := rawClient(t).GetItem(ctx, &dynamodb.GetItemInput{
		TableName: aws.String(d.table),
		Key:       map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "alice#2026-03-14"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if out.Item == nil {
		t.Fatal(`no item under pk "alice#2026-03-14"`)
	}
	wantN := func(attr string, want int64) {
		t.Helper()
		n, ok := out.Item[attr].(*types.AttributeValueMemberN)
		if !ok || n.Value != strconv.FormatInt(want, 10) {
			t.Errorf("%s = %#v, want the number %d", attr, out.Item[attr], want)
		}
	}
	wantN("reserved", 2_500_000)
	// Two days after the day is over: 2026-03-17T00:00:00Z.
	wantN("expiresAt", time.Date(2026, 3, 17, 0, 0, 0, 0, time.UTC).Unix())
	m, ok := out.Item["intents"].(*types.AttributeValueMemberM)
	if !ok || len(m.Value) != 1 {
		t.Fatalf("intents = %#v, want a map holding pay-2 alone", out.Item["intents"])
	}
	if n, ok := m.Value["pay-2"].(*types.AttributeValueMemberN); !ok || n.Value != "2500000" {
		t.Errorf("intents[pay-2] = %#v, want the number 2500000", m.Value["pay-2"])
	}
	if len(out.Item) != 4 {
		t.Errorf("item has %d attributes, want pk, reserved, intents, expiresAt: %v", len(out.Item), out.Item)
	}
}

// A table that is not there (the endpoint never creates it) is unavailable too.
func TestDynamoNoTable(t *testing.T) {
	d, err := NewDynamo(testConfig(), "no-such-table", dynaliteURL(t))
	if err != nil {
		t.Fatal(err)
	}
	u, err := d.Reserve(context.Background(), "alice", testDay, "pay-1", 1, usdc)
	wantUnavailable(t, "reserve", u, err)
	var rnf *types.ResourceNotFoundException
	if !errors.As(err, &rnf) {
		t.Errorf("the SDK's error is not kept in the chain: %v", err)
	}
}

// A cancelled call is unavailable, not a success.
func TestDynamoCancelled(t *testing.T) {
	d := newDynamo(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	u, err := d.Reserve(ctx, "alice", testDay, "pay-1", 1, usdc)
	wantUnavailable(t, "reserve", u, err)
	wantUsage(t, d, "alice", testDay, 0)
}

// TestDynamoSwitch is TestSwitch on DynamoDB: the second handle, on the same table, is another
// process's.
func TestDynamoSwitch(t *testing.T) {
	d := newDynamo(t)
	other, err := NewDynamo(testConfig(), d.table, dynaliteURL(t))
	if err != nil {
		t.Fatal(err)
	}
	testSwitch(t, &Bounded{S: d}, &Bounded{S: other})
}
