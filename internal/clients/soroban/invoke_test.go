package soroban

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/mindvault/mcp-endpoint/errmap"
)

// table is a contract error table for the tests: every number is CONTRACT_ERROR named "Named".
func table(n int) (string, string, string) {
	return errmap.CodeContractError, "Named", "Named (#" + strings.Repeat("I", n) + ")"
}

func TestSimulationFailure(t *testing.T) {
	cases := []struct {
		name, msg string
		src       errmap.Source
		errs      ContractErrors
		code      string
		detail    string
		number    any
	}{
		{"missing contract", "HostError: Error(Storage, MissingValue)\nEvent log ...", errmap.SourceRegistry, table, errmap.CodeContractMissing, "contract instance missing (Error(Storage, MissingValue))", nil},
		{"missing contract, spaced", "Error(Storage,MissingValue)", errmap.SourceRPC, nil, errmap.CodeContractMissing, "contract instance missing (Error(Storage, MissingValue))", nil},
		{"archived", "simulation returned restorePreamble: entries archived", errmap.SourceRPC, nil, errmap.CodeStateArchived, "contract state archived", nil},
		{"budget", "HostError: Error(Budget, ExceededLimit) data:[\"x\"]", errmap.SourceRegistry, table, errmap.CodeHostError, "Error(Budget, ExceededLimit)", nil},
		{"auth host", "HostError: Error(Auth, InvalidAction)", errmap.SourceRegistry, table, errmap.CodeHostError, "Error(Auth, InvalidAction)", nil},
		{"opaque", "something odd happened", errmap.SourceRegistry, table, errmap.CodeHostError, "contract call aborted by the host", nil},
		{"contract number through the table", "HostError: Error(Contract, #3)\n\nEvent log (newest first):\n   0: [Diagnostic Event] data:[\"secret-arg-value\"]", errmap.SourceRegistry, table, errmap.CodeContractError, "Named (#III)", 3},
		{"contract number without a table", "HostError: Error(Contract, #3) data:[\"secret-arg-value\"]", errmap.SourceRPC, nil, errmap.CodeHostError, "contract call aborted by the host", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := SimulationFailure(c.msg, c.src, c.errs)
			got := errmap.FromError(err, errmap.Call{Operation: "Lookup failed"})
			d := got.Diagnostic
			if d.Code != c.code || d.Detail != c.detail || d.Source != string(c.src) {
				t.Errorf("%s/%s %q", d.Code, d.Source, d.Detail)
			}
			if d.Upstream["contractError"] != c.number {
				t.Errorf("upstream %v", d.Upstream)
			}
			j, _ := json.Marshal(d)
			if strings.Contains(got.Text, "secret-arg-value") || strings.Contains(string(j), "secret-arg-value") || strings.Contains(got.Text, "Event log") {
				t.Error("the simulation's event log leaked")
			}
			var sim *SimulationError
			if !errors.As(err, &sim) || sim.Message != c.msg || strings.Contains(err.Error(), "HostError") {
				t.Errorf("the raw message is kept for debugging only: %v", err)
			}
		})
	}
	if ContractError(SimulationFailure("Error(Contract, #2)", errmap.SourceRegistry, table)) != 2 || ContractError(errors.New("x")) != 0 {
		t.Error("ContractError reads the classified number")
	}
}
