package redact

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
)

// TestSecretNeverFormats: a Secret, alone or inside a struct, a map or an error, shows Marker
// in every fmt verb, in slog's text and JSON handlers and in encoding/json and encoding/xml.
func TestSecretNeverFormats(t *testing.T) {
	const value = "mv_0123456789abcdef0123456789abcdef"
	s := NewSecret(value)
	if s.Reveal() != value || s.IsZero() || !NewSecret("").IsZero() {
		t.Fatal("Reveal and IsZero")
	}
	type holder struct {
		Name   string
		Key    Secret
		Ptr    *Secret
		hidden Secret // fmt prints unexported fields by reflection, without their methods
	}
	h := holder{"alice", s, &s, s}
	var outs []string
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%X", "%d", "%T: %[1]v", "%10.3s", "%-40v"} {
		outs = append(outs, fmt.Sprintf(verb, s), fmt.Sprintf(verb, h), fmt.Sprintf(verb, &h), fmt.Sprintf(verb, map[string]Secret{"k": s}), fmt.Sprintf(verb, []any{s}))
	}
	outs = append(outs, fmt.Errorf("wrapped: %w %v", errors.New("x"), s).Error(), fmt.Sprint(s), fmt.Sprintln(h))
	var logs bytes.Buffer
	for _, hd := range []slog.Handler{slog.NewTextHandler(&logs, nil), slog.NewJSONHandler(&logs, nil)} {
		slog.New(hd).Info("msg", "key", s, "holder", h, "group", slog.GroupValue(slog.Any("k", s)))
	}
	outs = append(outs, logs.String())
	j, err := json.Marshal(map[string]any{"key": s, "holder": h, "list": []Secret{s}})
	if err != nil {
		t.Fatal(err)
	}
	type xmlHolder struct{ Key Secret }
	x, err := xml.Marshal(xmlHolder{s})
	if err != nil {
		t.Fatal(err)
	}
	outs = append(outs, string(j), string(x))
	for _, out := range outs {
		if strings.Contains(out, value) || strings.Contains(out, fmt.Sprintf("%x", value)[:16]) || !strings.Contains(out, Marker) {
			t.Errorf("a secret was formatted: %s", out)
		}
	}
}
