package e2e_test

import (
	"strings"
	"testing"
)

// TestNetworkProfileNamesTheStoreInUse: mindvault_network_profile and mindvault_list_profiles
// name the same credential store, even when the local build chose one the configuration does
// not name (the sandbox's temporary dir: store).
func TestNetworkProfileNamesTheStoreInUse(t *testing.T) {
	e := newEnv(t, nil)
	np := e.ok("mindvault_network_profile", e.call("mindvault_network_profile", `{}`))
	lp := e.ok("mindvault_list_profiles", e.call("mindvault_list_profiles", `{}`))
	if np["credentialStore"] != lp["store"] || lp["store"] != "dir" {
		t.Fatalf("network_profile says %v, list_profiles says %v (want both dir)", np["credentialStore"], lp["store"])
	}
}

// TestListProfilesForAnUnboundCaller: a caller whose token is bound only to profiles the store
// lacks sees none, and is told the store holds profiles it may not use rather than "no
// profiles yet" (which would send it to create a wallet it may not need).
func TestListProfilesForAnUnboundCaller(t *testing.T) {
	e := newEnv(t, authVars(tokenAlice)) // alice is bound to "alice"; the store holds "demo"
	out := e.ok("mindvault_list_profiles", e.call("mindvault_list_profiles", `{}`))
	msg, _ := out["message"].(string)
	if n := len(out["profiles"].([]any)); n != 0 {
		t.Fatalf("a caller bound to alice sees %d profiles: %v", n, out)
	}
	if strings.Contains(msg, "No profiles yet") || !strings.Contains(msg, "none is bound") {
		t.Fatalf("message %q", msg)
	}
	e.token = tokenAll
	all := e.ok("mindvault_list_profiles", e.call("mindvault_list_profiles", `{}`))
	if len(all["profiles"].([]any)) == 0 || all["message"] != nil {
		t.Fatalf("an operator token sees %v", all)
	}
}
