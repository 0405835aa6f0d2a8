package mcp

import "testing"

func TestRequirePath(t *testing.T) {
	notFound := `{"error":"not found: the MCP endpoint is POST /mcp"}` + "\n"
	cases := []guardCase{
		{name: "the endpoint path", path: "/mcp"},
		{name: "the endpoint path with a query", path: "/mcp?x=1"},
		{name: "another path", path: "/other", status: 404, answer: notFound},
		{name: "a trailing slash", path: "/mcp/", status: 404, answer: notFound},
		{name: "the root", path: "/", status: 404, answer: notFound},
		{name: "a longer path", path: "/mcp/x", status: 404, answer: notFound},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rec, reached, _ := runGuard(t, requirePath("/mcp", false), tc)
			checkGuard(t, tc, rec, reached)
		})
	}
}
