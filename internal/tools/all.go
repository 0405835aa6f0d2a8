package tools

import (
	"slices"

	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/validate"
)

// served is every tool this build serves: each tool's file declares its Spec through serve, so
// adding a tool touches its own file (and the generated definitions, whose list of names is
// the one checked list of what the build serves: TestAllIsGenerated). All binds each to the
// Deps; each one's Guide is declared to errmap before the first failure is mapped, so a failure
// mapped anywhere, before All or without it, gets the tool's advice, and a start that maps
// none pays for none.
var served []spec

// serve adds s to the tools this build serves.
func serve[Req, Out any](s Spec[Req, Out]) Spec[Req, Out] {
	served = append(served, s)
	return s
}

func init() {
	errmap.DeclareLater(func() {
		for _, s := range served {
			name, g := s.guide()
			errmap.Declare(name, g)
		}
	})
}

// All builds the registry of every tool this build serves, each Spec bound to d. It lists them
// from their generated definitions and defines them (Define) on the first call of one, so that
// a start, and a tools/list, pay for none of it.
func All(d *Deps) *Registry {
	return newGeneratedRegistry(func() []*Tool { return allTools(d) })
}

// allTools defines every tool this build serves, each Spec bound to d.
func allTools(d *Deps) []*Tool {
	ts := make([]*Tool, len(served))
	for i, s := range served {
		ts[i] = s.define(d)
	}
	return ts
}

// spec is a Spec of any request and output types, as served lists it.
type spec interface {
	define(d *Deps) *Tool
	guide() (name string, g errmap.Guide)
}

func (s Spec[Req, Out]) define(d *Deps) *Tool { return Define(d, s) }

// guide is the tool's name and Guide, with the Profile trait its request model implies.
func (s Spec[Req, Out]) guide() (string, errmap.Guide) {
	g := s.Guide
	g.Profile = slices.Contains(validate.For[Req]().Names(), "profile")
	return s.Name, g
}
