package mcp

import "testing"

func TestRequireJSON(t *testing.T) {
	unsupported := `{"jsonrpc":"2.0","error":{"code":-32600,"message":"Unsupported Media Type: Content-Type must be application/json","data":{"category":"validation","code":"INVALID_REQUEST","retry":"after_correction"}}}` + "\n"
	ct := func(v string) map[string]string { return map[string]string{"Content-Type": v} }
	cases := []guardCase{
		{name: "application/json", headers: ct("application/json")},
		{name: "with charset", headers: ct("application/json; charset=utf-8")},
		{name: "upper case", headers: ct("Application/JSON")},
		{name: "missing", status: 415, answer: unsupported},
		{name: "text/plain", headers: ct("text/plain"), status: 415, answer: unsupported},
		{name: "a JSON suffix type", headers: ct("application/vnd.api+json"), status: 415, answer: unsupported},
		{name: "a prefix of it", headers: ct("application/jsonx"), status: 415, answer: unsupported},
		{name: "malformed parameters", headers: ct("application/json; charset"), status: 415, answer: unsupported},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rec, reached, _ := runGuard(t, requireJSON, tc)
			checkGuard(t, tc, rec, reached)
		})
	}
}
