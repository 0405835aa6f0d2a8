// Package requests holds one typed request struct per tool: the request models.
//
// Tags are the single source of truth for each argument (see package validate): `json` is
// its name, `validate` its rules (including the shared shapes of tools.md: resourceid,
// profile, usdc, usdcpos, gaccount, txhash, metaptr, tag, httpurl), `jsonschema_description`
// what an agent reads. Optional arguments are pointers (or carry a jsonschema default), so
// "absent" and "zero" never mix.
package requests

// NetworkProfile is mindvault_network_profile: no arguments.
type NetworkProfile struct{}
