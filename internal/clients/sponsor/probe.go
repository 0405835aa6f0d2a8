package sponsor

import (
	"context"
	"net/http"

	"github.com/mindvault/mcp-endpoint/internal/clients/transport"
)

// Probe asks the service for GET /health, which creates nothing, and returns the status it
// answered. Any answer from the application proves it is up, including a 404 or 405 from a
// deployment without that route; 5xx, 408, 429 and transport failures are errors, mapped
// with source sponsor.
func (c *Client) Probe(ctx context.Context) (int, error) {
	resp, err := c.svc.Do(ctx, transport.Request{Method: http.MethodGet, Path: "/health", Route: "GET /health", Read: true})
	if err != nil {
		return 0, err
	}
	if resp.Status >= 500 || resp.Status == http.StatusRequestTimeout || resp.Status == http.StatusTooManyRequests {
		return resp.Status, c.svc.StatusError(resp)
	}
	return resp.Status, nil
}
