package errmap

import (
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// Guide is what one tool declares, once, for the Next line of its failures: the part it plays
// that other tools' advice points to, the traits that refine the shared sentences, and its
// own sentences where the shared ones would mislead. errmap knows no tool: every tool name a
// Next line holds comes from a Guide (Declare).
type Guide struct {
	// Role is the part the tool plays that other tools' advice points to ("check the wallet
	// with ..."), if any; several tools may play one.
	Role Role
	// Profile: the tool takes a profile argument, so a refused credential may be the profile's.
	Profile bool
	// CreatorWrite: the tool signs a vault-registry write with the resource creator's wallet,
	// so a refusal or an unknown id is about the creator and the registry entry.
	CreatorWrite bool
	// NoID: the tool names no resource or id, so a not-found means its route is missing.
	NoID bool
	// Codes are the tool's own Next sentences per code; each replaces the code's sentence.
	Codes map[string]string
	// Categories are the tool's own Next sentences per category, for a code that has no
	// sentence of its own (the tool's or the code's).
	Categories map[Category]string
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

// Players returns the tools that play role, in name order.
func Players(role Role) []string {
	_, t := guideOf("")
	return append([]string(nil), t.playing(role)...)
}

// guideTable is every declared Guide and, per role, the tools that play it in name order. It
// is replaced whole on each Declare, so Map reads it without a lock.
type guideTable struct {
	tools map[string]Guide
	roles map[Role][]string
}

var guides atomic.Pointer[guideTable]

// Declare records tool's Guide; the tools layer declares each tool once (through DeclareLater),
// before any failure is mapped. A second Guide for one tool, a name that is not a tool
// name, or a sentence for an undocumented code or category is a bug, and panics.
func Declare(tool string, g Guide) {
	if !isToolName(tool) {
		panic("errmap: not a tool name: " + tool)
	}
	for code, s := range g.Codes {
		if !IsCode(code) || strings.TrimSpace(s) == "" {
			panic("errmap: " + tool + ": no Next sentence for code " + code)
		}
	}
	for cat, s := range g.Categories {
		if !cat.Valid() || strings.TrimSpace(s) == "" {
			panic("errmap: " + tool + ": no Next sentence for category " + string(cat))
		}
	}
	for {
		old := guides.Load()
		next := &guideTable{tools: map[string]Guide{}, roles: map[Role][]string{}}
		if old != nil {
			for k, v := range old.tools {
				next.tools[k] = v
			}
		}
		if _, dup := next.tools[tool]; dup {
			panic("errmap: tool declared twice: " + tool)
		}
		next.tools[tool] = g
		for name, tg := range next.tools {
			if tg.Role != "" {
				next.roles[tg.Role] = append(next.roles[tg.Role], name)
			}
		}
		for _, names := range next.roles {
			slices.Sort(names)
		}
		if guides.CompareAndSwap(old, next) {
			return
		}
	}
}

// Deferred declarations (DeclareLater) and whether they have all run.
var (
	laterMu   sync.Mutex
	later     []func()
	laterDone atomic.Bool
)

// DeclareLater registers f, which declares Guides with Declare; f runs once, before the first
// Guide is looked up, so a process that starts and answers without mapping a failure (a cold
// start's tools/list) declares none.
func DeclareLater(f func()) {
	laterMu.Lock()
	defer laterMu.Unlock()
	later = append(later, f)
	laterDone.Store(false)
}

// declarePending runs the deferred declarations; a concurrent lookup waits for them.
func declarePending() {
	if laterDone.Load() {
		return
	}
	laterMu.Lock()
	defer laterMu.Unlock()
	for len(later) > 0 {
		fs := later
		later = nil
		for _, f := range fs {
			f()
		}
	}
	laterDone.Store(true)
}

// guideOf is the declared Guide of tool, and the table it came from (nil: nothing declared).
func guideOf(tool string) (Guide, *guideTable) {
	declarePending()
	t := guides.Load()
	if t == nil {
		return Guide{}, nil
	}
	return t.tools[tool], t
}

// playing is the tools that play role, in name order.
func (t *guideTable) playing(r Role) []string {
	if t == nil {
		return nil
	}
	return t.roles[r]
}

// TxStatusAction is the step that settles an unknown transaction outcome: look the hash up
// with the tool that plays RoleTxStatus (nil when none is declared).
func TxStatusAction(hash string) *NextAction {
	names := Players(RoleTxStatus)
	if len(names) == 0 {
		return nil
	}
	return &NextAction{Tool: names[0], Arguments: map[string]any{"txHash": hash}}
}

// isToolName is toolRE's rule without the pattern: Declare runs at process start, where no
// pattern may be compiled (cold start; functions/mcp TestFirstAnswersCompileNoPattern).
func isToolName(s string) bool {
	if len(s) == 0 || len(s) > 128 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '-') {
			return false
		}
	}
	return true
}
