package main

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/mindvault/mcp-endpoint/internal/ledger"
	"github.com/mindvault/mcp-endpoint/internal/ledger/ledgertest"
)

// spendingARN is the caller the STS stand-in of the spending tests answers.
const spendingARN = "arn:aws:iam::123456789012:user/ops"

// TestSpendingCommand: pause, status and resume write the switch a server with the same
// configuration reads (a second handle on the same file or table), as the caller: user@host for
// the pause file, the AWS caller's ARN (STS GetCallerIdentity, a loopback stand-in) for DynamoDB
// (TestSpendingCommandDynamo, spending_dynalite_test.go, under the tag node).
func TestSpendingCommand(t *testing.T) {
	file := filepath.Join(t.TempDir(), "pause.json")
	t.Run("pause file", func(t *testing.T) {
		testSpendingCommand(t, map[string]string{"MINDVAULT_PAUSE_FILE": file}, &ledger.FileSwitch{Path: file}, "@")
	})
	var out bytes.Buffer
	if err := spending(context.Background(), []string{"stop"}, func(string) string { return "" }, stsStandIn(t), &out); err == nil || !strings.Contains(err.Error(), "usage") {
		t.Fatalf("an unknown verb: %v", err)
	}
}

// stsStandIn loads an AWS configuration whose STS is a loopback stand-in naming spendingARN.
func stsStandIn(t *testing.T) func(context.Context) (aws.Config, error) {
	sts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/xml")
		_, _ = w.Write([]byte(`<GetCallerIdentityResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><GetCallerIdentityResult>` +
			`<Arn>` + spendingARN + `</Arn><UserId>AIDAEXAMPLE</UserId><Account>123456789012</Account></GetCallerIdentityResult>` +
			`<ResponseMetadata><RequestId>r1</RequestId></ResponseMetadata></GetCallerIdentityResponse>`))
	}))
	t.Cleanup(sts.Close)
	return func(context.Context) (aws.Config, error) {
		cfg := ledgertest.Config()
		cfg.BaseEndpoint = aws.String(sts.URL) // the ledger ignores it (MINDVAULT_LEDGER_ENDPOINT); STS uses it
		return cfg, nil
	}
}

// testSpendingCommand runs pause, status and resume with env and checks what server, another
// handle on the same switch, reads after each, and that the caller is named by.
func testSpendingCommand(t *testing.T, env map[string]string, server ledger.Switch, by string) {
	loadAWS := stsStandIn(t)
	run := func(args ...string) string {
		t.Helper()
		var out bytes.Buffer
		if err := spending(context.Background(), args, func(k string) string { return env[k] }, loadAWS, &out); err != nil {
			t.Fatalf("spending %v: %v", args, err)
		}
		return out.String()
	}
	if out := run("pause"); !strings.Contains(out, "PAUSED since") || !strings.Contains(out, by) {
		t.Fatalf("pause said %q", out)
	}
	if p, err := server.State(context.Background()); err != nil || !p.Paused || !strings.Contains(p.By, by) || p.Since.IsZero() {
		t.Fatalf("the server reads %+v, %v after the pause", p, err)
	}
	if out := run("status"); !strings.Contains(out, "PAUSED since") {
		t.Fatalf("status said %q", out)
	}
	if out := run("resume"); !strings.Contains(out, "not paused since") {
		t.Fatalf("resume said %q", out)
	}
	if p, err := server.State(context.Background()); err != nil || p.Paused {
		t.Fatalf("the server reads %+v, %v after the resume", p, err)
	}
}
