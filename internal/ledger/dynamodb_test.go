package ledger

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/mindvault/mcp-endpoint/internal/ledger/ledgertest"
)

// A ledger that cannot be reached fails closed: every call is an ErrUnavailable, never a
// success and never an *ExceededError (which would read as a budget verdict).
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

// testConfig is ledgertest's AWS configuration.
func testConfig() aws.Config { return ledgertest.Config() }

func wantUnavailable(t *testing.T, op string, u Usage, err error) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s against an unavailable ledger succeeded: %+v", op, u)
	}
	if !errors.Is(err, ErrUnavailable) || errors.As(err, new(*ExceededError)) || errors.Is(err, ErrInvalid) {
		t.Fatalf("%s: %v, want ErrUnavailable alone", op, err)
	}
}
