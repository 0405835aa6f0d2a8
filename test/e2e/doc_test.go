// Package e2e_test drives the endpoint through the wire as an agent does, against the
// sandbox's simulated downstreams: in process (harness_test.go) and as processes of the
// deployed binary (cluster_test.go). Its budget is 75 s of wall time with -tags node on the
// shared 2-core machine, where the other test packages have 20 s (docs/operations.md "Tests"):
// a test that waits on a clock runs in parallel (harness_test.go, "Which tests run in
// parallel"). The tests that start dynalite compile only with the build tag node, which `make
// test` sets: a file that uses journalCluster, budgetCluster, lambdaLedger or bootLambda
// starts with `//go:build node`.
package e2e_test
