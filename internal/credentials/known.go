package credentials

import (
	"fmt"

	"github.com/mindvault/mcp-endpoint/internal/redact"
)

// loaded makes a profile's secrets known to the process-wide redaction (package redact)
// before anyone gets the profile, so no response, log line or metric can show them from then
// on. When the bounded registry cannot take them the profile is not handed out at all.
func loaded(store Store, p Profile) (Profile, error) {
	if err := redact.Register(p.Secrets()...); err != nil {
		return Profile{}, StoreFailure(store, fmt.Sprintf("load profile %q (its secrets cannot be made redactable)", p.Name), err)
	}
	return p, nil
}
