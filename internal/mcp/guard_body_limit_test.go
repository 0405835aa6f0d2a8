package mcp

import (
	"errors"
	"strconv"
	"strings"
	"testing"
)

// brokenBody is a body whose connection breaks after a few bytes.
type brokenBody struct{ sent bool }

func (b *brokenBody) Read(p []byte) (int, error) {
	if !b.sent {
		b.sent = true
		return copy(p, `{"json`), nil
	}
	return 0, errors.New("connection reset by peer")
}

func TestLimitBody(t *testing.T) {
	tooLarge := func(n int) string {
		return `{"jsonrpc":"2.0","error":{"code":-32600,"message":"Request Entity Too Large: the body exceeds ` + strconv.Itoa(n) + ` bytes","data":{"category":"validation","code":"INVALID_REQUEST","retry":"after_correction"}}}` + "\n"
	}
	unreadable := `{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error: the body could not be read","data":{"category":"validation","code":"INVALID_REQUEST","retry":"after_correction"}}}` + "\n"
	cases := []struct {
		guardCase
		max int64
	}{
		{guardCase: guardCase{name: "empty body"}, max: 16},
		{guardCase: guardCase{name: "under the limit", body: "0123456789"}, max: 16},
		{guardCase: guardCase{name: "exactly the limit", body: strings.Repeat("x", 16)}, max: 16},
		{guardCase: guardCase{name: "one byte over", body: strings.Repeat("x", 17), status: 413, answer: tooLarge(16)}, max: 16},
		{guardCase: guardCase{name: "far over", body: strings.Repeat("x", 5000), status: 413, answer: tooLarge(16)}, max: 16},
		{guardCase: guardCase{name: "no limit configured: 1 MiB", body: strings.Repeat("x", 1<<20)}, max: 0},
		{guardCase: guardCase{name: "no limit configured, over 1 MiB", body: strings.Repeat("x", 1<<20+1), status: 413, answer: tooLarge(1 << 20)}, max: 0},
		{guardCase: guardCase{name: "connection broken mid-body", reader: &brokenBody{}, status: 400, answer: unreadable}, max: 16},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rec, reached, seen := runGuard(t, limitBody(tc.max), tc.guardCase)
			checkGuard(t, tc.guardCase, rec, reached)
			if reached && seen != tc.body {
				t.Fatalf("the next handler read %d bytes, want the %d sent", len(seen), len(tc.body))
			}
		})
	}
}

// TestReadBody: the declared length only sizes the buffer; the body read is whatever the
// reader holds, shorter or longer than declared.
func TestReadBody(t *testing.T) {
	for _, c := range []struct {
		body     string
		declared int64
	}{
		{"", 0}, {"0123456789", 10}, {"0123456789", 4}, {"0123456789", 64}, {"0123456789", -1}, {strings.Repeat("x", 5000), 5000},
	} {
		got, err := readBody(strings.NewReader(c.body), c.declared, 1<<20)
		if err != nil || string(got) != c.body {
			t.Errorf("declared %d: read %q, %v; want %q", c.declared, got, err, c.body)
		}
	}
}
