package obs

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mindvault/mcp-endpoint/errmap"
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
	// An HTTP route may end in one qualifier of a closed set: " (paid)" names the x402
	// requests a payment is attached to (buy's GET /resources/{id}, the publish fee's POST
	// /verify-content).
	httpRoute = lazyre.New(`^[A-Z]{3,7} /[A-Za-z0-9/{}_.-]{0,96}(?: \(paid\))?$`)
	rpcMethod = lazyre.New(`^[A-Za-z][A-Za-z0-9_]{0,63}$`)
)

// dimTool keeps a Tool dimension in the shape of a registered tool name; the protocol layer
// already passes a registered name or Unknown, this is the second lock.
func dimTool(s string) string {
	if toolName.MatchString(s) {
		return s
	}
	return Unknown
}

// dimCategory keeps a Category dimension in the failure categories plus "ok".
// InputRequired is the outcome of a tool call answered with a question to the user.
const InputRequired = "input_required"

func dimCategory(s string) string {
	if s == "ok" || s == InputRequired || errmap.Category(s).Valid() {
		return s
	}
	return Unknown
}

// dimService keeps a Service dimension in the downstream sources.
func dimService(s string) string {
	if errmap.Source(s).Valid() {
		return s
	}
	return Unknown
}

// dimRoute keeps a route in the shape the clients write it ("GET /resources/{id}/meta",
// "GET /resources/{id} (paid)", an RPC method name): routes are written by the code, never
// taken from a request. A route of any other shape is recorded as Unknown, so a route the
// code writes must match one of these shapes (TestEMFDimensionsAreClosed lists them).
func dimRoute(s string) string {
	if httpRoute.MatchString(s) || rpcMethod.MatchString(s) {
		return s
	}
	return Unknown
}
