package errmap

import (
	"slices"
	"strings"
)

// Guide is what one tool declares, once, for the Next line of its failures: the role other tools'
// advice points to, the traits that refine the shared sentences, and its own sentences where they
// would mislead. errmap knows no tool: every tool name a Next line holds comes from a Guide.
type Guide struct {
	Role    Role // the part other tools' advice points to ("check the wallet with ..."); several may play one
	Profile bool // the tool takes a profile argument, so a refused credential may be the profile's
	// CreatorWrite: the tool signs a vault-registry write with the resource creator's wallet,
	// so a refusal or an unknown id is about the creator and the registry entry.
	CreatorWrite bool
	NoID         bool                // the tool names no resource or id, so a not-found means its route is missing
	Codes        map[string]string   // the tool's own Next sentences per code, replacing the code's
	Categories   map[Category]string // per category, for a code without a sentence (the tool's or the code's)
}

// Role is a part a tool plays that the advice of other tools' failures points to.
type Role string

// The roles the shared sentences name.
const (
	RoleWallet          Role = "wallet"           // shows a profile's wallet: its balances and trustline
	RoleProfiles        Role = "profiles"         // lists the profiles and each one's address
	RoleNewWallet       Role = "new-wallet"       // creates a funded wallet for a profile
	RoleFind            Role = "find"             // finds resources and their ids
	RolePrice           Role = "price"            // shows a resource's current price
	RoleBuy             Role = "buy"              // buys a resource
	RoleHistory         Role = "history"          // lists the purchases a wallet made
	RoleCompare         Role = "compare"          // compares a resource's API and on-chain prices
	RoleEntry           Role = "entry"            // shows a resource's registry entry, its creator included
	RoleContract        Role = "contract"         // shows the vault-registry contract and network
	RoleRegisterOnchain Role = "register-onchain" // registers a verified resource on chain
	RoleTxStatus        Role = "tx-status"        // looks a transaction up by its hash
	RoleServices        Role = "services"         // shows the service URLs the endpoint uses
)

// Roles returns every role the shared sentences name.
func Roles() []Role {
	return []Role{RoleWallet, RoleProfiles, RoleNewWallet, RoleFind, RolePrice, RoleBuy, RoleHistory,
		RoleCompare, RoleEntry, RoleContract, RoleRegisterOnchain, RoleTxStatus, RoleServices}
}

// Guides is every tool's Guide and, per role, the tools that play it in name order; the tools
// layer builds it once and passes it with each failure (Call.Guides).
type Guides struct {
	tools map[string]Guide
	roles map[Role][]string
}

// NewGuides checks and indexes every tool's Guide. A name that is not a tool name, or a
// sentence for an undocumented code or category, is a bug, and panics.
func NewGuides(byTool map[string]Guide) *Guides {
	g := &Guides{tools: map[string]Guide{}, roles: map[Role][]string{}}
	for tool, guide := range byTool {
		if !isToolName(tool) {
			panic("errmap: not a tool name: " + tool)
		}
		for code, s := range guide.Codes {
			if !IsCode(code) || strings.TrimSpace(s) == "" {
				panic("errmap: " + tool + ": no Next sentence for code " + code)
			}
		}
		for cat, s := range guide.Categories {
			if !cat.Valid() || strings.TrimSpace(s) == "" {
				panic("errmap: " + tool + ": no Next sentence for category " + string(cat))
			}
		}
		g.tools[tool] = guide
		if guide.Role != "" {
			g.roles[guide.Role] = append(g.roles[guide.Role], tool)
		}
	}
	for _, names := range g.roles {
		slices.Sort(names)
	}
	return g
}

// Players returns the tools that play role, in name order (none for a nil Guides).
func (g *Guides) Players(role Role) []string {
	if g == nil {
		return nil
	}
	return slices.Clone(g.roles[role])
}

// of is tool's Guide (zero when g is nil or the tool declared none).
func (g *Guides) of(tool string) Guide {
	if g == nil {
		return Guide{}
	}
	return g.tools[tool]
}

// TxStatusAction is the step that settles an unknown transaction outcome: look the hash up
// with the tool that plays RoleTxStatus (nil when none does).
func (g *Guides) TxStatusAction(hash string) *NextAction {
	names := g.Players(RoleTxStatus)
	if len(names) == 0 {
		return nil
	}
	return &NextAction{Tool: names[0], Arguments: map[string]any{"txHash": hash}}
}

// isToolName is toolRE's rule without the pattern: NewGuides runs at process start, where no
// pattern may be compiled (cold start; functions/mcp TestFirstAnswersCompileNoPattern).
func isToolName(s string) bool {
	return len(s) > 0 && len(s) <= 128 && !strings.ContainsFunc(s, func(c rune) bool {
		return !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '-')
	})
}
