package mcp

import "testing"

func TestRequirePOST(t *testing.T) {
	notAllowed := `{"error":"method not allowed: this stateless endpoint serves POST only (no SSE stream, no sessions)"}` + "\n"
	cases := []guardCase{
		{name: "POST", method: "POST"},
		{name: "GET (no SSE stream)", method: "GET", status: 405, answer: notAllowed},
		{name: "DELETE (no session)", method: "DELETE", status: 405, answer: notAllowed},
		{name: "PUT", method: "PUT", status: 405, answer: notAllowed},
		{name: "OPTIONS", method: "OPTIONS", status: 405, answer: notAllowed},
		{name: "HEAD", method: "HEAD", status: 405, answer: notAllowed},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rec, reached, _ := runGuard(t, requirePOST, tc)
			checkGuard(t, tc, rec, reached)
			if tc.status == 405 && rec.Header().Get("Allow") != "POST" {
				t.Fatalf("Allow = %q, want POST", rec.Header().Get("Allow"))
			}
		})
	}
}
