package tools

import "github.com/mindvault/mcp-endpoint/config"

// All builds the registry of every tool this build serves.
func All(cfg *config.Config) *Registry {
	return NewRegistry(
		NetworkProfile(cfg),
	)
}
