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

// TestSpendingCommand: pause, status and resume write the switch a server with the same
// configuration reads (a second handle on the same file or table), as the caller: user@host for
// the pause file, the AWS caller's ARN (STS GetCallerIdentity, a loopback stand-in) for DynamoDB.
func TestSpendingCommand(t *testing.T) {
	const arn = "arn:aws:iam::123456789012:user/ops"
	sts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/xml")
		_, _ = w.Write([]byte(`<GetCallerIdentityResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><GetCallerIdentityResult>` +
			`<Arn>` + arn + `</Arn><UserId>AIDAEXAMPLE</UserId><Account>123456789012</Account></GetCallerIdentityResult>` +
			`<ResponseMetadata><RequestId>r1</RequestId></ResponseMetadata></GetCallerIdentityResponse>`))
	}))
	defer sts.Close()
	loadAWS := func(context.Context) (aws.Config, error) {
		cfg := ledgertest.Config()
		cfg.BaseEndpoint = aws.String(sts.URL) // the ledger ignores it (MINDVAULT_LEDGER_ENDPOINT); STS uses it
		return cfg, nil
	}
	file := filepath.Join(t.TempDir(), "pause.json")
	for _, tc := range []struct {
		name string
		env  func(t *testing.T) map[string]string
		read func(t *testing.T, env map[string]string) ledger.Switch
		by   string
	}{
		{"pause file", func(*testing.T) map[string]string { return map[string]string{"MINDVAULT_PAUSE_FILE": file} },
			func(*testing.T, map[string]string) ledger.Switch { return &ledger.FileSwitch{Path: file} }, "@"},
		{"dynamodb", func(t *testing.T) map[string]string {
			url := ledgertest.Dynalite(t, "../..")
			ledgertest.CreateTable(t, url, "spending-cmd")
			return map[string]string{"MINDVAULT_LEDGER": "dynamodb:spending-cmd", "MINDVAULT_LEDGER_ENDPOINT": url}
		}, func(t *testing.T, env map[string]string) ledger.Switch {
			d, err := ledger.NewDynamo(ledgertest.Config(), "spending-cmd", env["MINDVAULT_LEDGER_ENDPOINT"])
			if err != nil {
				t.Fatal(err)
			}
			return d
		}, arn},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := tc.env(t)
			run := func(args ...string) string {
				t.Helper()
				var out bytes.Buffer
				if err := spending(context.Background(), args, func(k string) string { return env[k] }, loadAWS, &out); err != nil {
					t.Fatalf("spending %v: %v", args, err)
				}
				return out.String()
			}
			server := tc.read(t, env)
			if out := run("pause"); !strings.Contains(out, "PAUSED since") || !strings.Contains(out, tc.by) {
				t.Fatalf("pause said %q", out)
			}
			if p, err := server.State(context.Background()); err != nil || !p.Paused || !strings.Contains(p.By, tc.by) || p.Since.IsZero() {
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
		})
	}
	var out bytes.Buffer
	if err := spending(context.Background(), []string{"stop"}, func(string) string { return "" }, loadAWS, &out); err == nil || !strings.Contains(err.Error(), "usage") {
		t.Fatalf("an unknown verb: %v", err)
	}
}
