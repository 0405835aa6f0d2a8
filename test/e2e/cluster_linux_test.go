package e2e_test

import "syscall"

// On Linux the kernel kills a cluster's endpoint processes when the test process dies, even
// when no cleanup runs (a -timeout panic, a SIGKILL).
func init() { clusterProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL} }
