package obs

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mindvault/mcp-endpoint/internal/redact"
	"github.com/mindvault/mcp-endpoint/internal/redact/lazyre"
)

// MaxField is the longest value, in runes, that a request can put in a log field.
const MaxField = 64

// Field makes a value that came with the request (method, tool name, header, path) fit for a
// log line: known secrets removed first (so the cut cannot leave half of one), control,
// format and line-separator characters and invalid UTF-8 dropped, then cut to MaxField runes
// with "…" marking the cut. A caller can neither flood the log nor forge lines or fields in it.
func Field(s string) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp) || r == utf8.RuneError {
			return -1
		}
		return r
	}, strings.ToValidUTF8(redact.Exact(s), ""))
	if utf8.RuneCountInString(s) <= MaxField {
		return s
	}
	return string([]rune(s)[:MaxField-1]) + "…"
}

// Unknown stands for any value outside a metric dimension's closed set.
const Unknown = "unknown"

var (
	toolName = lazyre.New(`^[a-z][a-z0-9_]{0,63}$`)
	// The shapes the clients write a route in ("GET /resources/{id}/meta", an RPC method
	// name): routes are written by the code, never taken from a request, so a route the code
	// writes must match one (TestEMFDimensionsAreClosed lists them). An HTTP route may end in
	// one qualifier of a closed set: " (paid)" names the x402 requests a payment is attached
	// to (buy's GET /resources/{id}, the publish fee's POST /verify-content).
	httpRoute = lazyre.New(`^[A-Z]{3,7} /[A-Za-z0-9/{}_.-]{0,96}(?: \(paid\))?$`)
	rpcMethod = lazyre.New(`^[A-Za-z][A-Za-z0-9_]{0,63}$`)
)

// InputRequired is the outcome of a tool call answered with a question to the user.
const InputRequired = "input_required"

func closed(s string, in bool) string {
	if in {
		return s
	}
	return Unknown
}
