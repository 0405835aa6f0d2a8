package credentials

import (
	"bytes"
	"fmt"
	"log/slog"
	"strings"
	"testing"
)

// TestProfileNeverFormatsItsSecrets: a profile printed with any verb or logged shows its name
// and neither secret.
func TestProfileNeverFormatsItsSecrets(t *testing.T) {
	p := Profile{Name: "alice", SecretKey: "SBU2RRGLXH3E5CQHTD3ODLDF2BWDCYUSSBLLZ5GNW7JXHDIYKXZWHOKR", APIKey: "mv_0123456789abcdef0123456789abcdef"}
	var logs bytes.Buffer
	slog.New(slog.NewJSONHandler(&logs, nil)).Info("loaded", "profile", p)
	for _, out := range []string{fmt.Sprintf("%v|%+v|%#v|%s|%q", p, p, p, p, p), fmt.Sprint([]Profile{p}), fmt.Sprintf("%+v", &p), logs.String()} {
		if strings.Contains(out, p.SecretKey[:16]) || strings.Contains(out, p.APIKey[:16]) || !strings.Contains(out, "alice") {
			t.Errorf("a profile was formatted with its secrets: %s", out)
		}
	}
}
