//go:build node && !linux

package ledgertest

import "os/exec"

// setDeathSignal does nothing here: TestMain's kill is the only cleanup.
func setDeathSignal(*exec.Cmd) {}
