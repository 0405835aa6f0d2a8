package auth

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"
	"testing"
)

func hexDigest(token string) string {
	d := sha256.Sum256([]byte(token))
	return hex.EncodeToString(d[:])
}

func TestParseTokens(t *testing.T) {
	a, b, c := hexDigest("token-a"), hexDigest("token-b"), hexDigest("token-c")
	type want struct {
		token    string
		profiles []string
	}
	for _, tc := range []struct {
		name string
		in   string
		want []want
	}{
		{"empty", "", nil},
		{"blank and comments", "\n  \n# a comment, with a comma\n , ,", nil},
		{"one", a + ":alice", []want{{"token-a", []string{"alice"}}}},
		{"several profiles", a + ":alice|bob.x|c_d-e", []want{{"token-a", []string{"alice", "bob.x", "c_d-e"}}}},
		{"star", a + ":*", []want{{"token-a", []string{"*"}}}},
		{"comma separated, spaces", " " + a + " : alice | bob ,\t" + b + ":* ", []want{
			{"token-a", []string{"alice", "bob"}}, {"token-b", []string{"*"}}}},
		{"newlines, CRLF, comments, upper-case hex", "# tokens\r\n" + strings.ToUpper(a) + ":alice\r\n\r\n" + b + ":bob," + c + ":carol\n", []want{
			{"token-a", []string{"alice"}}, {"token-b", []string{"bob"}}, {"token-c", []string{"carol"}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseTokens(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("%d tokens, want %d", len(got), len(tc.want))
			}
			for i, w := range tc.want {
				if got[i].Digest != Digest(w.token) || !slices.Equal(got[i].Profiles, w.profiles) {
					t.Errorf("token %d = %x %v, want digest of %q and %v", i, got[i].Digest, got[i].Profiles, w.token, w.profiles)
				}
			}
		})
	}
}

func TestParseTokensRejects(t *testing.T) {
	a, b := hexDigest("token-a"), hexDigest("token-b")
	const rawToken = "mvt_live_0123456789abcdef"
	for _, tc := range []struct {
		name  string
		in    string
		index string // "entry N" expected in the error
		why   string
	}{
		{"raw token instead of digest", rawToken, "entry 1", "must be <sha256-hex>"},
		{"raw token with profile", rawToken + ":alice", "entry 1", "64 hex characters"},
		{"short digest", a[:63] + ":alice", "entry 1", "64 hex characters"},
		{"long digest", a + "0:alice", "entry 1", "64 hex characters"},
		{"non-hex digest", "z" + a[1:] + ":alice", "entry 1", "64 hex characters"},
		{"no profiles", a + ":", "entry 1", "empty profile name"},
		{"empty profile in list", a + ":alice||bob", "entry 1", "empty profile name"},
		{"invalid profile", a + ":../etc", "entry 1", "invalid profile name"},
		{"star mixed", a + ":*|alice", "entry 1", "cannot be combined"},
		{"second entry bad", a + ":alice," + b, "entry 2", "must be"},
		{"index counts across lines, skipping comments", "# c\n" + a + ":alice\n\n" + b + ":bob, oops", "entry 3", "must be"},
		{"duplicate digest", a + ":alice\n" + strings.ToUpper(a) + ":bob", "entry 2", "repeats the digest of entry 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseTokens(tc.in)
			if err == nil {
				t.Fatalf("accepted: %v", got)
			}
			msg := err.Error()
			if !strings.Contains(msg, tc.index+":") || !strings.Contains(msg, tc.why) {
				t.Errorf("error %q, want %q and %q", msg, tc.index, tc.why)
			}
			for _, secret := range []string{a, b, strings.ToUpper(a), a[:16], b[:16], rawToken, "etc", "oops"} {
				if strings.Contains(msg, secret) {
					t.Errorf("error %q echoes %q", msg, secret)
				}
			}
		})
	}
}
