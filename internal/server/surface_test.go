package server

import (
	"strings"
	"testing"

	"github.com/mindvault/mcp-endpoint/internal/config"
)

// TestNarrowedInstructions: every toolset has what it lets an agent do in both forms, and a
// narrowed surface's instructions name only what is enabled.
func TestNarrowedInstructions(t *testing.T) {
	for _, ts := range config.Toolsets {
		if p := toolsetPhrases[ts]; p[0] == "" || p[1] == "" {
			t.Errorf("toolset %s has no phrase", ts)
		}
	}
	cases := []struct {
		toolsets []string
		readOnly bool
		has      []string
		hasNot   []string
	}{
		{[]string{"catalog", "ops"}, false,
			[]string{"browse, search and preview", "(toolsets catalog, ops)", "Call mindvault_network_profile first", failuresLine},
			[]string{"buy", "read-only"}},
		{[]string{"payments"}, true, []string{"to read-only tools", "see past purchases"}, []string{"paying", "network_profile"}},
		{nil, true, []string{"no tool is enabled here"}, []string{"toolsets"}},
	}
	for _, tc := range cases {
		got := narrowedInstructions(tc.toolsets, tc.readOnly)
		for _, s := range tc.has {
			if !strings.Contains(got, s) {
				t.Errorf("%v %v: %q lacks %q", tc.toolsets, tc.readOnly, got, s)
			}
		}
		for _, s := range tc.hasNot {
			if strings.Contains(got, s) {
				t.Errorf("%v %v: %q has %q", tc.toolsets, tc.readOnly, got, s)
			}
		}
	}
}
