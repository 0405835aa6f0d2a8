package tools

import (
	"slices"
	"testing"

	"github.com/mindvault/mcp-endpoint/errmap"
)

// TestToolAdvice pins Next lines that come from what a tool declared in its Guide: its own
// sentences, and the traits it has (a profile argument, read from its request; a creator's
// registry write; no id). The shared sentences are pinned in errmap, and every (code, tool)
// pair is checked against the advice rules in test/e2e (advice_test.go).
func TestToolAdvice(t *testing.T) {
	cases := []struct {
		code, tool, next string
		retry            errmap.Retry
	}{
		{errmap.CodePriceAboveCap, "mindvault_buy", "Raise maxPriceUsdc to at least the price and call mindvault_buy again, or choose a cheaper resource.", errmap.RetryAfterAction},
		{errmap.CodePriceAboveCap, "mindvault_publish", "Raise maxFeeUsdc to at least the verification fee (mindvault_agent_status shows it) and call mindvault_publish again.", errmap.RetryAfterAction},
		{errmap.CodeUnsupportedRequirement, "mindvault_buy", "Choose another resource: this seller asks for a payment this endpoint cannot make (Stellar exact scheme, configured network, USDC), and nothing was paid.", errmap.RetryNo},
		{errmap.CodeFeesNotSponsored, "mindvault_buy", "Choose another resource: this seller does not sponsor network fees, which this endpoint requires, and nothing was paid.", errmap.RetryNo},
		{errmap.CodeReadOnlyStore, "mindvault_setup_wallet", "Use an existing profile (mindvault_list_profiles lists them), or ask the operator to set MINDVAULT_CREDENTIALS to a dir: or secretsmanager: store.", errmap.RetryAfterAction},
		{errmap.CodeInsufficientUSDC, "mindvault_wallet_info", "Fund the wallet with USDC, then retry.", errmap.RetryAfterAction},
		{errmap.CodePaymentRequired, "mindvault_wallet_info", "Fund the wallet with USDC, then retry.", errmap.RetryAfterAction},
		{errmap.CodeConflict, "mindvault_register", "Call mindvault_register again with another email, or, if this email is yours, use the profile already registered with it (mindvault_list_profiles shows which profiles are publishers).", errmap.RetryNo},
		{errmap.CodeNotFound, "mindvault_register_onchain", "Confirm the id of your resource with mindvault_publish_status, then call mindvault_register_onchain with it.", errmap.RetryAfterCorrection},
		{errmap.CodeContractError, "mindvault_registry_info", "Ask the operator to check VAULT_REGISTRY_CONTRACT_ID and STELLAR_NETWORK: the contract did not answer as the vault registry.", errmap.RetryAfterAction},
		// Traits: a profile argument, a creator's write, no id.
		{errmap.CodeForbidden, "mindvault_purchase_history", "Pass a profile your access token may use (mindvault_list_profiles lists them), then call mindvault_purchase_history again.", errmap.RetryAfterAction},
		{errmap.CodeForbidden, "mindvault_registry_list", "Ask the operator to check this endpoint's access to the MindVault API: it refused the request.", errmap.RetryAfterAction},
		{errmap.CodeForbidden, "mindvault_set_tags", "Pass the profile of the resource's creator, the wallet that registered it (check it with mindvault_registry_lookup), then call mindvault_set_tags again.", errmap.RetryAfterAction},
		{errmap.CodeCredentialsMissing, "mindvault_transfer_ownership", "Pass the profile whose wallet created the resource (mindvault_registry_lookup shows its creator, mindvault_list_profiles each profile's address), then call mindvault_transfer_ownership again.", errmap.RetryAfterAction},
		{errmap.CodeNotFound, "mindvault_set_price", "Confirm the id with mindvault_registry_lookup (the resource must be registered on chain; mindvault_register_onchain registers your verified one), then call mindvault_set_price with it.", errmap.RetryAfterCorrection},
		{errmap.CodeNotFound, "mindvault_health", "Ask the operator to check the service URLs this endpoint uses (mindvault_network_profile shows them): the route was not found.", errmap.RetryAfterCorrection},
		{errmap.CodeNotFound, "mindvault_network_profile", "Ask the operator to check the service URLs this endpoint uses: the route was not found.", errmap.RetryAfterCorrection},
		{errmap.CodeNotFound, "mindvault_preview", "Confirm the id with mindvault_browse or mindvault_search, then call mindvault_preview with it.", errmap.RetryAfterCorrection},
	}
	for _, c := range cases {
		t.Run(c.code+"/"+c.tool, func(t *testing.T) {
			d := errmap.Map(errmap.Facts{Guides: Guides(), Source: errmap.SourceAPI, Operation: "Op failed", Tool: c.tool, Code: c.code, Detail: "refused"}).Diagnostic
			if d.Next != c.next {
				t.Errorf("Next = %q\nwant   %q", d.Next, c.next)
			}
			if d.Retry != string(c.retry) {
				t.Errorf("retry %s, want %s", d.Retry, c.retry)
			}
		})
	}
}

// TestEveryRolePlayed: each role the shared advice names is played by a tool this build
// has; a role nobody plays would silently drop its clause from every Next line.
func TestEveryRolePlayed(t *testing.T) {
	var names []string
	for _, s := range specs() {
		name, _ := s.guide()
		names = append(names, name)
	}
	for _, role := range errmap.Roles() {
		players := Guides().Players(role)
		if len(players) == 0 {
			t.Errorf("no tool plays role %s", role)
		}
		for _, p := range players {
			if !slices.Contains(names, p) {
				t.Errorf("role %s is played by %s, which is not a tool of this build", role, p)
			}
		}
	}
	if got := Guides().TxStatusAction("h"); got == nil || got.Tool != txStatus.Name {
		t.Errorf("the lookup step is %+v", got)
	}
}

// TestProfileTraitFromRequest: the Profile trait is read from the request model, embedded
// groups included (the registry writes' creator profile), so it holds for exactly the tools
// with a profile argument.
func TestProfileTraitFromRequest(t *testing.T) {
	want := []string{
		"mindvault_buy", "mindvault_publish", "mindvault_purchase_history", "mindvault_register",
		"mindvault_register_onchain", "mindvault_set_listed", "mindvault_set_price", "mindvault_set_tags",
		"mindvault_setup_wallet", "mindvault_transfer_ownership", "mindvault_update_metadata", "mindvault_wallet_info",
	}
	var got []string
	for _, s := range specs() {
		if name, g := s.guide(); g.Profile {
			got = append(got, name)
		}
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("tools with a profile argument: %v\nwant %v", got, want)
	}
}
