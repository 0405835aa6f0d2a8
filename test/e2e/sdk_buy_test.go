package e2e_test

import (
	"bytes"
	"context"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestSDKClientReadsABoughtFile: the official Go SDK client, on both eras, decodes a bought
// file's embedded resource into exactly the sandbox seller's bytes, and the JSON block
// describes them (size, sha256) without carrying them.
func TestSDKClientReadsABoughtFile(t *testing.T) {
	e := newEnv(t, nil)
	srv := httptest.NewServer(e.b.Handler)
	t.Cleanup(srv.Close)
	cases := []struct{ era, version, id, mime string }{
		{"modern", "", "agentpromptpack", "application/zip"},
		{"legacy", "2025-11-25", "rustguide", "application/pdf"},
	}
	for _, tc := range cases {
		t.Run(tc.era, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			defer cancel()
			client := mcp.NewClient(&mcp.Implementation{Name: "mindvault-sdk-buy-test", Version: "0.0.0"}, nil)
			cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp", MaxRetries: -1},
				&mcp.ClientSessionOptions{ProtocolVersion: tc.version})
			if err != nil {
				t.Fatalf("Connect: %v", err)
			}
			defer cs.Close()
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "mindvault_buy", Arguments: map[string]any{"resourceId": tc.id}})
			if err != nil {
				t.Fatalf("CallTool: %v", err)
			}
			if res.IsError {
				t.Fatalf("mindvault_buy failed: %s", sdkText(res))
			}
			want, _, _ := e.sb.FileContent(tc.id)
			var got *mcp.ResourceContents
			for _, c := range res.Content {
				if r, ok := c.(*mcp.EmbeddedResource); ok {
					got = r.Resource
				}
			}
			if got == nil || got.URI != "mindvault://resources/"+tc.id || got.MIMEType != tc.mime || !bytes.Equal(got.Blob, want) {
				t.Fatalf("embedded resource %+v, want the seller's %d bytes of %s", got, len(want), tc.mime)
			}
			access, _ := res.StructuredContent.(map[string]any)["access"].(map[string]any)
			if access["sha256"] != sha256Hex(want) || access["size"] != float64(len(want)) {
				t.Fatalf("access %v", access)
			}
		})
	}
}
