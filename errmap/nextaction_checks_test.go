package errmap

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestNextActionIsKeptOnlyWhenWhollyValid(t *testing.T) {
	const secret = "PlainSecret7f3a9c"
	upper := strings.ToUpper(testTxHash)
	args := func(kv ...string) map[string]any {
		m := map[string]any{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	cases := []struct {
		name string
		in   *NextAction
		want *NextAction // nil: dropped
	}{
		{"none", nil, nil},
		{"tx status", testGuides.TxStatusAction(testTxHash), testGuides.TxStatusAction(testTxHash)},
		{"hash normalised", testGuides.TxStatusAction("sha256:" + upper), testGuides.TxStatusAction(testTxHash)},
		{"other tool and argument", &NextAction{Tool: "mindvault_publish_status", Arguments: args("resourceId", "r0123456789abcdef")},
			&NextAction{Tool: "mindvault_publish_status", Arguments: args("resourceId", "r0123456789abcdef")}},
		{"no arguments", &NextAction{Tool: "mindvault_health"}, &NextAction{Tool: "mindvault_health", Arguments: map[string]any{}}},
		{"short hash", testGuides.TxStatusAction(testTxHash[:63]), nil},
		{"hash with text", testGuides.TxStatusAction(testTxHash + " please"), nil},
		{"empty hash", testGuides.TxStatusAction(""), nil},
		{"bad tool name", &NextAction{Tool: "mindvault tx status", Arguments: args("txHash", testTxHash)}, nil},
		{"padded tool name", &NextAction{Tool: " mindvault_tx_status", Arguments: args("txHash", testTxHash)}, nil},
		{"empty tool", &NextAction{Arguments: args("txHash", testTxHash)}, nil},
		{"bad argument name", &NextAction{Tool: "mindvault_preview", Arguments: args("resource id", "x")}, nil},
		{"seed as value", &NextAction{Tool: "mindvault_preview", Arguments: args("resourceId", testSeed)}, nil},
		{"known secret as value", &NextAction{Tool: "mindvault_preview", Arguments: args("resourceId", secret)}, nil},
		{"multi-line value", &NextAction{Tool: "mindvault_preview", Arguments: args("resourceId", "a\nb")}, nil},
		{"long value", &NextAction{Tool: "mindvault_preview", Arguments: args("resourceId", strings.Repeat("a", 257))}, nil},
		{"too many arguments", &NextAction{Tool: "mindvault_browse", Arguments: args("a", "1", "b", "1", "c", "1", "d", "1", "e", "1", "f", "1", "g", "1", "h", "1", "i", "1")}, nil},
		{"one bad argument drops all", &NextAction{Tool: "mindvault_preview", Arguments: args("resourceId", "ok", "token", "Bearer abc.def")}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := Facts{Guides: testGuides, Source: SourceRPC, Transport: TransportTimeout, StateChanged: StateUnknown, TxHash: testTxHash, NextAction: c.in, Secrets: []string{secret}}
			got := mapT(t, f)
			a, _ := json.Marshal(got.Diagnostic.NextAction)
			w, _ := json.Marshal(c.want)
			if string(a) != string(w) {
				t.Fatalf("nextAction = %s, want %s", a, w)
			}
			raw, _ := json.Marshal(got.Diagnostic)
			if strings.Contains(string(raw), secret) || strings.Contains(string(raw), testSeed) {
				t.Fatalf("a secret reached the diagnostic: %s", raw)
			}
			if c.want != nil && !strings.Contains(string(raw), `"nextAction":{"tool":"`+c.want.Tool+`","arguments":{`) {
				t.Fatalf("wire shape: %s", raw)
			}
		})
	}
}
