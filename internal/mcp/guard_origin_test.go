package mcp

import "testing"

func TestCheckOrigin(t *testing.T) {
	forbidden := `{"jsonrpc":"2.0","error":{"code":-32600,"message":"Forbidden: Origin not allowed","data":{"category":"auth","code":"FORBIDDEN","retry":"after_action"}}}` + "\n"
	origin := func(o string) map[string]string { return map[string]string{"Origin": o} }
	allowed := []string{"https://app.example/", "https://Other.Example"}
	cases := []struct {
		guardCase
		allowed  []string
		loopback bool
	}{
		{guardCase: guardCase{name: "no Origin (not a browser)"}},
		{guardCase: guardCase{name: "no Origin, nothing allowed"}, allowed: nil},
		{guardCase: guardCase{name: "listed", headers: origin("https://app.example")}, allowed: allowed},
		{guardCase: guardCase{name: "listed, other case and trailing slash", headers: origin("https://other.example/")}, allowed: allowed},
		{guardCase: guardCase{name: "wildcard", headers: origin("https://anything.example")}, allowed: []string{"*"}},
		{guardCase: guardCase{name: "not listed", headers: origin("https://evil.example"), status: 403, answer: forbidden}, allowed: allowed},
		{guardCase: guardCase{name: "listed host, other scheme", headers: origin("http://app.example"), status: 403, answer: forbidden}, allowed: allowed},
		{guardCase: guardCase{name: "listed host as a prefix", headers: origin("https://app.example.evil.example"), status: 403, answer: forbidden}, allowed: allowed},
		{guardCase: guardCase{name: "localhost, local mode", headers: origin("http://localhost:6274")}, loopback: true},
		{guardCase: guardCase{name: "LOCALHOST https, local mode", headers: origin("https://LOCALHOST")}, loopback: true},
		{guardCase: guardCase{name: "127.0.0.1, local mode", headers: origin("http://127.0.0.1:8080")}, loopback: true},
		{guardCase: guardCase{name: "127.1.2.3, local mode", headers: origin("http://127.1.2.3")}, loopback: true},
		{guardCase: guardCase{name: "[::1], local mode", headers: origin("http://[::1]:3000")}, loopback: true},
		{guardCase: guardCase{name: "localhost, deployed", headers: origin("http://localhost:6274"), status: 403, answer: forbidden}},
		{guardCase: guardCase{name: "127.0.0.1, deployed", headers: origin("http://127.0.0.1"), status: 403, answer: forbidden}},
		{guardCase: guardCase{name: "rebinding name, local mode", headers: origin("http://localhost.evil.example"), status: 403, answer: forbidden}, loopback: true},
		{guardCase: guardCase{name: "private address, local mode", headers: origin("http://192.168.1.10"), status: 403, answer: forbidden}, loopback: true},
		{guardCase: guardCase{name: "loopback, other scheme", headers: origin("file://localhost"), status: 403, answer: forbidden}, loopback: true},
		{guardCase: guardCase{name: "null origin", headers: origin("null"), status: 403, answer: forbidden}, loopback: true},
		{guardCase: guardCase{name: "unparsable origin", headers: origin("http://[::1"), status: 403, answer: forbidden}, loopback: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rec, reached, _ := runGuard(t, checkOrigin(tc.allowed, tc.loopback), tc.guardCase)
			checkGuard(t, tc.guardCase, rec, reached)
		})
	}
}
