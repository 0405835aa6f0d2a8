// Command gosdk previews a MindVault resource and buys it with the official Go SDK, asking at
// the terminal before it pays: docs/clients.md shows this file, and test/clients runs it.
package main

import (
	"bufio"
	"context"
	"fmt"
	"log"
	"net/http"
	"os"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// bearer adds the endpoint's access token to every request.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// ask shows the endpoint's question and accepts only a typed "y".
func ask(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	fmt.Printf("%s [y/N] ", req.Params.Message)
	line, _ := bufio.NewReader(os.Stdin).ReadString('\n')
	if strings.TrimSpace(strings.ToLower(line)) != "y" {
		return &mcp.ElicitResult{Action: "decline"}, nil
	}
	return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"confirm": true}}, nil
}

func main() {
	ctx := context.Background()
	// An elicitation handler declares the capability, so the endpoint asks before it pays.
	client := mcp.NewClient(&mcp.Implementation{Name: "my-agent", Version: "0.1.0"},
		&mcp.ClientOptions{ElicitationHandler: ask})
	transport := &mcp.StreamableClientTransport{
		Endpoint:   os.Getenv("MINDVAULT_URL"),
		HTTPClient: &http.Client{Transport: bearer{os.Getenv("MINDVAULT_TOKEN")}},
	}
	session, err := client.Connect(ctx, transport, nil) // tries 2026-07-28 first
	if err != nil {
		log.Fatal(err)
	}
	defer session.Close()
	fmt.Println("protocol", session.InitializeResult().ProtocolVersion)

	for _, call := range []*mcp.CallToolParams{
		{Name: "mindvault_preview", Arguments: map[string]any{"resourceId": "rustguide"}},
		{Name: "mindvault_buy", Arguments: map[string]any{"resourceId": "rustguide", "maxPriceUsdc": "2"}},
	} {
		res, err := session.CallTool(ctx, call)
		if err != nil {
			log.Fatal(err) // a protocol error: unknown tool, a broken requestState
		}
		text := res.Content[0].(*mcp.TextContent).Text
		if res.IsError {
			log.Fatalf("%s:\n%s", call.Name, text) // the three-line failure
		}
		fmt.Printf("%s: %s\n", call.Name, text)
	}
}
