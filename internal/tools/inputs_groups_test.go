package tools

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mindvault/mcp-endpoint/validate"
)

// TestRegistryWriteGroups: every vault-registry write opens with the on-chain resource and
// closes with the creator's profile and the mainnet confirmation, and refuses an id the
// contract cannot hold through the group's promoted cross-field rule.
func TestRegistryWriteGroups(t *testing.T) {
	const account = "GBBD47IF6LWK7P7MDEVSCWR7DPUWV3NY3DTQEVFL4NAT4AQH3ZLLFLA5"
	cases := []struct {
		name  string
		value string // the write's own argument
		model *validate.Model
	}{
		{"set_price", `"price":"2"`, validate.For[SetPriceInput]()},
		{"update_metadata", `"metadata":"ipfs://x"`, validate.For[UpdateMetadataInput]()},
		{"set_listed", `"listed":true`, validate.For[SetListedInput]()},
		{"set_tags", `"tags":["a"]`, validate.For[SetTagsInput]()},
		{"transfer_ownership", `"newCreator":"` + account + `"`, validate.For[TransferOwnershipInput]()},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if n := tc.model.Names(); len(n) != 4 || n[0] != "resourceId" || n[2] != "profile" || n[3] != "confirmMainnet" {
				t.Errorf("arguments = %v", n)
			}
			if issues := tc.model.Check(json.RawMessage(`{"resourceId":"abc123",` + tc.value + `}`)); issues != nil {
				t.Errorf("a valid write was refused: %+v", issues)
			}
			issues := tc.model.Check(json.RawMessage(`{"resourceId":"Not-On-Chain",` + tc.value + `}`))
			var got []string
			for _, is := range issues {
				got = append(got, is.Path+" "+is.Rule)
			}
			if strings.Join(got, ",") != "/resourceId onchainid" {
				t.Errorf("issues = %v, want the on-chain id rule", got)
			}
		})
	}
}
