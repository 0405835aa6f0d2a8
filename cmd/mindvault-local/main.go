// Command mindvault-local is the local build of the endpoint (`make run`): the handler of the
// Lambda binary served over plain HTTP on MINDVAULT_ADDR, plus the offline sandbox network
// (STELLAR_NETWORK=sandbox), whose simulators it starts on loopback first (package local). With
// -sandbox it serves the simulators alone (`make sandbox`); `spending pause|resume|status`
// writes or reads the deployment's spending switch (`make spending-pause`).
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"

	"github.com/mindvault/mcp-endpoint/internal/credentials/awsshared"
	"github.com/mindvault/mcp-endpoint/internal/sandbox"
	"github.com/mindvault/mcp-endpoint/internal/server"
	"github.com/mindvault/mcp-endpoint/internal/server/local"
)

func main() {
	simulators := flag.Bool("sandbox", false, "serve the sandbox simulators alone and print the environment that points an endpoint at them")
	flag.Parse()
	if flag.Arg(0) == "spending" {
		if err := spending(context.Background(), flag.Args()[1:], os.Getenv, awsshared.Load, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "mindvault-local spending:", oneLine(err))
			os.Exit(1)
		}
		return
	}
	if flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: mindvault-local [-sandbox]\n       "+strings.TrimPrefix(spendingUsage, "usage: "))
		os.Exit(2)
	}
	if *simulators {
		if err := serveSandbox(os.Stdout, os.Stderr); err != nil {
			fmt.Fprintln(os.Stderr, "mindvault-local:", err)
			os.Exit(1)
		}
		return
	}
	b := local.Boot(os.Getenv, os.Stderr, true)
	if b.Err != nil {
		// Before the banner, so nothing claims a network the configuration does not have.
		b.Close()
		fmt.Fprintln(os.Stderr, "mindvault-local: not serving:", oneLine(b.Err))
		os.Exit(2)
	}
	// The banner comes once the configuration is accepted and the address bound, so it never
	// names a network or an address that is not served.
	ln, err := server.Listen(b.Config.Addr)
	if err != nil {
		b.Close()
		fmt.Fprintln(os.Stderr, "mindvault-local:", err)
		os.Exit(1)
	}
	url := "http://" + ln.Addr().String() + "/mcp"
	fmt.Fprintf(os.Stderr, "MindVault MCP endpoint: %s  (network: %s)\n", url, b.Config.Network)
	fmt.Fprintf(os.Stderr, "  Claude Code:    claude mcp add --transport http mindvault %s\n", url)
	fmt.Fprintf(os.Stderr, "  MCP Inspector:  npx -y @modelcontextprotocol/inspector@2.12.0 --cli %s --transport http --method tools/list\n", url)
	if b.Sandbox == nil && b.Config != nil {
		fmt.Fprintf(os.Stderr, "network %s; profiles in %s (MINDVAULT_CREDENTIALS)\n", b.Config.Network, b.Config.Credentials)
	}
	if b.Sandbox != nil {
		fmt.Fprintf(os.Stderr, "sandbox: MindVault API %s, Horizon %s, Stellar RPC %s; default profile %q (%s)\n",
			b.Sandbox.APIURL, b.Sandbox.HorizonURL, b.Sandbox.RPCURL, b.Config.DefaultProfile, b.Sandbox.Demo.Address)
	}
	err = server.ServeOn(ln, b.Handler, b.Logger)
	b.Close()
	if err != nil {
		fmt.Fprintln(os.Stderr, "mindvault-local:", err)
		os.Exit(1)
	}
}

// oneLine is err's text on one line: a startup problem joins one per failing part.
func oneLine(err error) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(err.Error(), "\n", "; ")), " ")
}

// serveSandbox runs the simulators until SIGINT or SIGTERM. The environment goes to out as
// KEY=VALUE lines (an env file, or `export` each); the notes go to notes.
func serveSandbox(out, notes io.Writer) error {
	sb, err := sandbox.Start(sandbox.Options{Faults: os.Getenv("MINDVAULT_SANDBOX_FAULTS")})
	if err != nil {
		return fmt.Errorf("MINDVAULT_SANDBOX_FAULTS or sandbox start: %w", err)
	}
	defer sb.Close()
	fmt.Fprintf(notes, "sandbox simulators on loopback: MindVault API %s, Horizon %s, Stellar RPC %s, sponsored accounts %s\n",
		sb.APIURL, sb.HorizonURL, sb.RPCURL, sb.SponsorURL)
	fmt.Fprintln(notes, "this environment points the Lambda binary (testnet settings, the demo profile in the env store) at them; Ctrl-C stops them:")
	env := local.Env(sb)
	for _, k := range slices.Sorted(maps.Keys(env)) {
		fmt.Fprintf(out, "%s=%s\n", k, env[k])
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	<-ctx.Done()
	return nil
}
