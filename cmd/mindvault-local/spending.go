package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/user"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sts"

	"github.com/mindvault/mcp-endpoint/internal/config"
	"github.com/mindvault/mcp-endpoint/internal/credentials"
	"github.com/mindvault/mcp-endpoint/internal/ledger"
	"github.com/mindvault/mcp-endpoint/internal/server"
	"github.com/mindvault/mcp-endpoint/internal/server/local"
)

// spendingUsage is the subcommand's synopsis.
const spendingUsage = "usage: mindvault-local spending pause|resume|status"

// spending is `mindvault-local spending pause|resume|status` (make spending-pause, ...): it
// writes or reads the spending switch of the deployment whose ledger the environment names
// (MINDVAULT_LEDGER, MINDVAULT_LEDGER_ENDPOINT, the AWS region and credentials, or
// MINDVAULT_PAUSE_FILE with the memory ledger), as the caller: the AWS caller's ARN for
// DynamoDB, user@host for the file. Every instance honours it within MINDVAULT_PAUSE_CACHE_MS.
func spending(ctx context.Context, args []string, getenv func(string) string, loadAWS credentials.AWSConfigLoader, out io.Writer) error {
	if len(args) != 1 || (args[0] != "pause" && args[0] != "resume" && args[0] != "status") {
		return errors.New(spendingUsage)
	}
	cfg, err := config.Load(getenv, false, config.LocalNetwork{Name: local.Network})
	var problems config.Problems
	if errors.As(err, &problems) {
		for _, p := range problems { // only the switch's own settings matter here
			if strings.HasPrefix(p.Var, "MINDVAULT_LEDGER") || strings.HasPrefix(p.Var, "MINDVAULT_PAUSE") {
				return fmt.Errorf("%s: %s", p.Var, p.Reason)
			}
		}
	}
	spec, err := ledger.Parse(cfg.Ledger)
	if err != nil {
		return err
	}
	if spec.Kind == ledger.KindMemory && cfg.PauseFile == "" {
		return errors.New("MINDVAULT_PAUSE_FILE is not set and this system names no configuration folder: set it to the file the local server reads")
	}
	sw, err := server.OpenLedger(cfg, loadAWS)
	if err != nil {
		return err
	}
	var p ledger.Pause
	switch args[0] {
	case "pause":
		p, err = sw.Set(ctx, true, caller(ctx, spec, loadAWS))
	case "resume":
		p, err = sw.Set(ctx, false, caller(ctx, spec, loadAWS))
	default:
		p, err = sw.State(ctx)
	}
	if err != nil {
		return err
	}
	where := "ledger " + spec.String()
	if spec.Kind == ledger.KindMemory {
		where = "pause file " + cfg.PauseFile
	}
	state := "not paused"
	if p.Paused {
		state = "PAUSED"
	}
	switch {
	case p.Since.IsZero():
		fmt.Fprintf(out, "spending: %s (never paused; %s)\n", state, where)
	default:
		fmt.Fprintf(out, "spending: %s since %s by %s (%s; every instance within %s)\n",
			state, p.Since.UTC().Format(time.RFC3339), p.By, where, cfg.PauseCache)
	}
	return nil
}

// caller is who pauses or resumes: the AWS caller's ARN for a DynamoDB ledger (STS
// GetCallerIdentity), else user@host. A pause must not wait on STS: without an answer the
// local identity stands in, marked as such.
func caller(ctx context.Context, spec ledger.Spec, loadAWS credentials.AWSConfigLoader) string {
	name := "unknown"
	if u, err := user.Current(); err == nil {
		name = u.Username
	}
	host, _ := os.Hostname()
	local := name + "@" + host
	if spec.Kind != ledger.KindDynamoDB {
		return local
	}
	cfg, err := loadAWS.Load(ctx)
	if err != nil {
		return local + " (AWS caller unknown)"
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	id, err := sts.NewFromConfig(cfg).GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{})
	if err != nil || aws.ToString(id.Arn) == "" {
		return local + " (AWS caller unknown)"
	}
	return aws.ToString(id.Arn)
}
