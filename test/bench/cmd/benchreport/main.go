// Command benchreport is the second half of `make bench` (test/bench/run.sh): the measurements that
// are not Go benchmarks (cold starts beside the floor, the Go SDK peer and the null handler; binary
// sizes; the 2026-07-28 era; downstream round trips per tool; a bounded loopback load with peak
// RSS), written with the handler benchmarks of test/bench/out.txt into test/bench/RESULTS.md.
// Everything binds 127.0.0.1, every process it starts is stopped by its id, every loop is bounded,
// and it exits 1 when a measurement failed or a load run saw an error.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

type options struct {
	benchOut, benchstat, out, command string
	loadBefore                        string
	rie, bootstrap, event             string
	arm64, arm64Syms, hostBin         string
	floor, null, peer, goCmd, notes   string
	peerArm64                         string
	pkgList, lambdaFlags              string
	coldN                             int
	loadDur                           time.Duration
	loadMax, clients                  int
}

func main() {
	var o options
	flag.StringVar(&o.benchOut, "bench-out", "test/bench/out.txt", "go test -bench output to summarise")
	flag.StringVar(&o.benchstat, "benchstat", "", "benchstat output to include (optional)")
	flag.StringVar(&o.out, "out", "test/bench/RESULTS.md", "report to write")
	flag.StringVar(&o.command, "command", "make bench", "the command that produced the numbers, for the record")
	flag.StringVar(&o.loadBefore, "loadavg-before", "", "the load average when make bench started, for the record")
	flag.StringVar(&o.rie, "rie", ".tools/bin/aws-lambda-rie", "the aws-lambda-rie binary")
	flag.StringVar(&o.bootstrap, "bootstrap", "", "the host bootstrap (built with the Lambda flags)")
	flag.StringVar(&o.event, "event", "events/tools-list-legacy.json", "the event of the first invoke")
	flag.StringVar(&o.arm64, "arm64", "", "the stripped linux/arm64 bootstrap, for its size")
	flag.StringVar(&o.arm64Syms, "arm64-syms", "", "the same build with its symbol table, for the size by package")
	flag.StringVar(&o.pkgList, "pkg-list", "", "the build's packages, \"import/path<TAB>module\" lines (go list -deps)")
	flag.StringVar(&o.lambdaFlags, "lambda-flags", "", "the Makefile's LAMBDA_FLAGS the binaries were built with, for the record")
	flag.StringVar(&o.floor, "floor", "", "the trivial handler (test/bench/cmd/floor) built with the Lambda flags")
	flag.StringVar(&o.null, "null", "", "the null net/http handler (test/bench/cmd/null)")
	flag.StringVar(&o.peer, "peer", "", "the Go SDK peer as a server (test/bench/cmd/peer)")
	flag.StringVar(&o.peerArm64, "peer-arm64", "", "the Go SDK peer built for linux/arm64 with the same flags, for its size")
	flag.StringVar(&o.goCmd, "go", "go", "the go command, for go tool nm and go version -m")
	flag.StringVar(&o.notes, "notes", "test/bench/notes.md", "hand-written notes appended to the report as they are (optional)")
	flag.IntVar(&o.coldN, "cold-n", 15, "cold starts to time, of each binary")
	flag.DurationVar(&o.loadDur, "load-duration", 5*time.Second, "time limit of each load run")
	flag.IntVar(&o.loadMax, "load-max", 20000, "request limit of each load run")
	flag.IntVar(&o.clients, "clients", 2, "concurrent load clients")
	flag.Parse()
	o.hostBin = o.bootstrap
	os.Exit(run(o))
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "benchreport: "+format+"\n", args...)
}

func run(o options) int {
	r := &report{opts: o, started: time.Now()}
	failed := false
	section := func(name string, fn func() error) {
		start := time.Now()
		logf("%s ...", name)
		if err := fn(); err != nil {
			failed = true
			r.failures = append(r.failures, fmt.Sprintf("%s: %v", name, err))
			logf("%s FAILED: %v", name, err)
			return
		}
		logf("%s done in %s", name, time.Since(start).Round(time.Millisecond))
	}

	section("handler benchmarks (parse "+o.benchOut+")", func() (err error) {
		r.bench, r.cpuLine, err = parseBench(o.benchOut)
		return err
	})
	if o.benchstat != "" {
		if b, err := os.ReadFile(o.benchstat); err == nil {
			r.benchstat = strings.TrimRight(string(b), "\n")
		}
	}
	section("binary sizes", func() (err error) { r.sizes, err = binarySizes(o.arm64, o.hostBin, o.peerArm64); return err })
	section("size by package (go tool nm)", func() (err error) { r.bySize, err = sizeByPackage(o.goCmd, o.arm64Syms, o.pkgList); return err })
	work, err := os.MkdirTemp("", "benchreport-")
	if err != nil {
		logf("temporary folder: %v", err)
		return 1
	}
	defer os.RemoveAll(work)
	// The floors answer the endpoint's own bytes: its tools/list answer, taken from one start.
	listFile := filepath.Join(work, "tools-list.json")
	section("the endpoint's tools/list answer, for the floors", func() error { return captureList(o.bootstrap, listFile) })
	floorEnv := []string{"FLOOR_RESPONSE=" + listFile}
	section("cold start under the emulator, beside the trivial handler", func() (err error) {
		r.cold, err = coldStarts(o.rie, o.event, []target{{"ours", o.bootstrap, nil}, {"floor", o.floor, floorEnv}}, o.coldN)
		return err
	})
	section("cold start as a local server, beside the trivial handler, the Go SDK peer and the null handler", func() (err error) {
		r.coldLocal, err = coldStartsLocal([]target{{"ours", o.bootstrap, nil}, {"floor", o.floor, floorEnv},
			{"gosdk", o.peer, []string{"PEER_TOOLS=" + listFile, "PEER_API_URL=http://127.0.0.1:9"}},
			{"gosdk-raw", o.peer, []string{"PEER_TOOLS=" + listFile, "PEER_API_URL=http://127.0.0.1:9", "PEER_RAW=1"}},
			{"null", o.null, []string{"NULL_RESPONSE=" + listFile}}}, o.coldN)
		return err
	})
	section("the 2026-07-28 era, ours and the Go SDK peer", func() (err error) {
		r.era, err = eraProbes(o.bootstrap, o.peer, listFile, work)
		return err
	})
	section("package init trace (GODEBUG=inittrace=1)", func() (err error) { r.inits, err = initTrace(o.bootstrap); return err })
	section("downstream round trips and parallelism", func() (err error) { r.down, err = downstream(); return err })
	section("ledger round trips per paid call", func() (err error) { r.ledger, err = ledgerTrips(); return err })
	section("sustained loopback load", func() (err error) {
		r.load, r.rss, err = loads(o, work, o.clients, o.loadDur, o.loadMax)
		if err == nil {
			for _, l := range r.load {
				if l.errors > 0 {
					err = fmt.Errorf("%s/%s: %d errors (first: %s)", l.tool, l.impl, l.errors, l.firstErr)
					break
				}
			}
		}
		return err
	})

	if err := os.WriteFile(o.out, []byte(r.markdown()), 0o644); err != nil {
		logf("writing %s: %v", o.out, err)
		return 1
	}
	logf("wrote %s", o.out)
	if failed {
		return 1
	}
	return 0
}
