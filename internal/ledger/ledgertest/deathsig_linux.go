//go:build node

package ledgertest

import (
	"os/exec"
	"syscall"
)

// setDeathSignal has the kernel kill dynalite if the test binary dies without cleaning up.
func setDeathSignal(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
