//go:build node

package main

import (
	"testing"

	"github.com/mindvault/mcp-endpoint/internal/ledger"
	"github.com/mindvault/mcp-endpoint/internal/ledger/ledgertest"
)

// TestSpendingCommandDynamo is TestSpendingCommand on a DynamoDB table on dynalite, so it is
// under the build tag node (docs/operations.md "Tests"): the caller named is the AWS caller's ARN.
func TestSpendingCommandDynamo(t *testing.T) {
	url := ledgertest.Dynalite(t, "../..")
	ledgertest.CreateTable(t, url, "spending-cmd")
	server, err := ledger.NewDynamo(ledgertest.Config(), "spending-cmd", url)
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"MINDVAULT_LEDGER": "dynamodb:spending-cmd", "MINDVAULT_LEDGER_ENDPOINT": url}
	testSpendingCommand(t, env, server, spendingARN)
}
