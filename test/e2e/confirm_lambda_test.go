//go:build node

package e2e_test

import (
	"strings"
	"testing"
)

// The confirmation under the Lambda build, which pays only with the shared ledger: bootLambda
// puts it on dynalite, so this file is under the build tag node (docs/operations.md "Tests").

// TestConfirmUnderLambdaNeedsASharedKey: under Lambda the instances cannot share a generated
// key, so without MINDVAULT_CONFIRM_KEY(_SECRET) the endpoint never asks and says so once in
// the log; with one it asks.
func TestConfirmUnderLambdaNeedsASharedKey(t *testing.T) {
	e, _ := bootLambda(t, map[string]string{"MINDVAULT_AUTH": "none"})
	e.faults("")
	for i := 0; i < 2; i++ {
		a := e.modern("mindvault_buy", `{"resourceId":"rustguide","allowRepeat":true}`, capsForm, "")
		if a.Result.ResultType != "complete" || a.call.IsError {
			t.Fatalf("want the purchase without asking: %s", a.raw)
		}
	}
	if n := strings.Count(e.logs.String(), "never asks the user to confirm"); n != 1 {
		t.Errorf("the missing key is logged %d times, want once:\n%s", n, e.logs)
	}
	if n := e.sb.PaidRequests("GET /resources/rustguide"); n != 2 {
		t.Fatalf("%d paid requests, want 2", n)
	}

	k, _ := bootLambda(t, map[string]string{"MINDVAULT_AUTH": "none", "MINDVAULT_CONFIRM_KEY": "p3KKuEnHv4CDdr2jzEdiyIVHWTHFJ0yqTEnv5XKGgmBR"})
	k.asked(k.modern("mindvault_buy", buyRust, capsForm, ""))
	if strings.Contains(k.logs.String(), "never asks") {
		t.Error("a configured key is reported missing")
	}
}
