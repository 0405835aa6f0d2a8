package server

import (
	"slices"
	"strings"
	"sync"

	"github.com/mindvault/mcp-endpoint/internal/config"
	"github.com/mindvault/mcp-endpoint/internal/mcp"
	"github.com/mindvault/mcp-endpoint/internal/mcp/prompts"
	"github.com/mindvault/mcp-endpoint/internal/tools"
)

// surface is the tool surface of cfg over the registry and the prompts: each tool's toolset
// and read-only hint, the tools each prompt names, and what the deployment enabled.
func surface(cfg *config.Config, reg *tools.Registry, ps *prompts.Set) *mcp.Surface {
	s := &mcp.Surface{
		PromptTools: map[string][]string{},
		Enabled:     cfg.Toolsets, OnlyReadOnly: cfg.ReadOnly, Instructions: narrowedInstructions,
		// Read from the defined tools, which reg defines on first use; only a narrowed
		// surface asks.
		Tools: sync.OnceValue(func() mcp.ToolFacts {
			f := mcp.ToolFacts{ToolsetOf: map[string]string{}, ReadOnly: map[string]bool{}}
			for _, t := range reg.Tools() {
				f.ToolsetOf[t.Name()] = t.Toolset()
				f.ReadOnly[t.Name()] = t.Hints().ReadOnly
			}
			return f
		}),
	}
	for _, p := range ps.Prompts() {
		s.PromptTools[p.Def.Name] = p.Tools
	}
	return s
}

// toolsetPhrases say what each toolset lets an agent do, all of it and read-only.
var toolsetPhrases = map[string][2]string{
	config.ToolsetCatalog:        {"browse, search and preview paid knowledge resources", "browse, search and preview paid knowledge resources"},
	config.ToolsetWallet:         {"see and set up wallets and credential profiles", "see wallets and credential profiles"},
	config.ToolsetPayments:       {"buy resources, paying in USDC over x402 on Stellar, and see past purchases", "see past purchases"},
	config.ToolsetPublishing:     {"publish your own resources and follow their status", "follow the status of published resources and publishers"},
	config.ToolsetRegistry:       {"read the on-chain vault registry", "read the on-chain vault registry"},
	config.ToolsetRegistryWrites: {"update entries of the on-chain vault registry", "update entries of the on-chain vault registry"},
	config.ToolsetOps:            {"check the endpoint's health, network and transactions", "check the endpoint's health, network and transactions"},
}

// failuresLine ends the instructions, narrowed or not.
const failuresLine = "Failures are isError results whose second line names the Source, Category and Code and whose third " +
	"line says what to do next."

// narrowedInstructions are the instructions of a surface narrowed to toolsets (those with a
// tool enabled), read-only or not: only what the agent can call here.
func narrowedInstructions(toolsets []string, readOnly bool) string {
	s, kind := "MindVault marketplace tools, narrowed on this endpoint", 0
	if readOnly {
		s, kind = s+" to read-only tools (nothing here pays or changes state)", 1
	}
	if len(toolsets) == 0 {
		s += ": no tool is enabled here. "
	} else {
		phrases := make([]string, len(toolsets))
		for i, ts := range toolsets {
			phrases[i] = toolsetPhrases[ts][kind]
		}
		s += ": " + strings.Join(phrases, "; ") + " (toolsets " + strings.Join(toolsets, ", ") + "). "
	}
	if slices.Contains(toolsets, config.ToolsetOps) {
		s += "Call mindvault_network_profile first to see the network. "
	}
	return s + failuresLine + " Other MindVault tools are disabled here; tools/list names the enabled ones."
}
