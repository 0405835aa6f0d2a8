package tools

import (
	"fmt"

	"github.com/mindvault/mcp-endpoint/config"
	"github.com/mindvault/mcp-endpoint/errmap"
)

// MainnetUnconfirmed is the refusal of a state-changing call on mainnet without confirmation.
func MainnetUnconfirmed(c *config.Config, confirmed bool) error {
	if c.Network != config.Mainnet || c.AllowMainnet || confirmed {
		return nil
	}
	return &errmap.Error{Err: fmt.Errorf("mainnet not confirmed"), Facts: errmap.Facts{
		Source: errmap.SourceRequest, Code: errmap.CodeMainnetNotConfirmed,
		Detail: "this call changes state on Stellar mainnet (real funds); nothing was sent",
		Next:   "Call again with confirmMainnet: true if you intend to act on mainnet.",
	}}
}
