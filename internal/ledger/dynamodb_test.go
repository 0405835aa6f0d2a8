package ledger

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

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
		TableName: aws.String(d.Table()),
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

// A ledger that cannot be reached fails closed: every call is an ErrUnavailable, never a
// success and never an ErrExceeded (which would read as a budget verdict).
func TestDynamoUnreachable(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	endpoint := "http://" + l.Addr().String()
	l.Close() // nothing listens there now: connections are refused
	d, err := NewDynamo(testConfig(), "ledger", endpoint)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for i := range 3 {
		u, err := d.Reserve(ctx, "alice", testDay, fmt.Sprintf("pay-%d", i), 1, usdc)
		wantUnavailable(t, "reserve", u, err)
	}
	u, err := d.Release(ctx, "alice", testDay, "pay-0")
	wantUnavailable(t, "release", u, err)
	u, err = d.Usage(ctx, "alice", testDay)
	wantUnavailable(t, "usage", u, err)
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

// Building a Dynamo ledger sends nothing: the client is made, and the first request sent,
// when the ledger is first used (a cold start with no budget does no DynamoDB work).
func TestDynamoLazy(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var accepted atomic.Int32
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			c.Close()
		}
	}()
	d, err := NewDynamo(testConfig(), "ledger", "http://"+l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond)
	if n := accepted.Load(); n != 0 {
		t.Fatalf("NewDynamo opened %d connections", n)
	}
	_, err = d.Usage(context.Background(), "alice", testDay)
	if !errors.Is(err, ErrUnavailable) {
		t.Fatalf("usage against a server that hangs up: %v, want ErrUnavailable", err)
	}
	if accepted.Load() == 0 {
		t.Fatal("the first use sent nothing")
	}
}

func wantUnavailable(t *testing.T, op string, u Usage, err error) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s against an unavailable ledger succeeded: %+v", op, u)
	}
	if !errors.Is(err, ErrUnavailable) || errors.Is(err, ErrExceeded) || errors.Is(err, ErrInvalid) {
		t.Fatalf("%s: %v, want ErrUnavailable alone", op, err)
	}
}
