package errmap

import (
	"regexp"
	"strings"
	"testing"
)

func TestCodesDocumented(t *testing.T) {
	upper := regexp.MustCompile(`^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$`)
	seen := map[string]bool{}
	for _, c := range Codes() {
		if seen[c.Code] {
			t.Errorf("duplicate code %s", c.Code)
		}
		seen[c.Code] = true
		if !upper.MatchString(c.Code) {
			t.Errorf("code %q is not UPPER_SNAKE", c.Code)
		}
		if !c.Category.Valid() {
			t.Errorf("%s: invalid category %q", c.Code, c.Category)
		}
		m := strings.TrimSpace(c.Meaning)
		if m == "" || !strings.HasSuffix(m, ".") || strings.Count(m, ". ") > 0 || strings.Contains(m, "\n") {
			t.Errorf("%s: meaning must be one sentence: %q", c.Code, c.Meaning)
		}
		if Phrase(c.Code) == "" || strings.Contains(Phrase(c.Code), "\n") {
			t.Errorf("%s: no phrase", c.Code)
		}
		if !IsCode(c.Code) || CodeCategory(c.Code) != c.Category {
			t.Errorf("%s: IsCode/CodeCategory disagree", c.Code)
		}
	}
	required := []string{"INVALID_ARGUMENTS", "NETWORK_ERROR", "TIMEOUT", "PAYMENT_REQUIRED", "PAYMENT_REJECTED",
		"INSUFFICIENT_USDC", "TRUSTLINE_MISSING", "PRICE_ABOVE_CAP", "PRICE_CHANGED", "UNSUPPORTED_REQUIREMENT",
		"FEES_NOT_SPONSORED", "MAINNET_NOT_CONFIRMED", "BAD_REQUEST", "UNAUTHORIZED", "FORBIDDEN", "NOT_FOUND",
		"ACCOUNT_MISSING", "CONFLICT", "ALREADY_REGISTERED", "ALREADY_OWNER", "PRICE_MISMATCH", "RATE_LIMITED",
		"SERVER_ERROR", "MALFORMED_RESPONSE", "CONTRACT_ERROR", "CONTRACT_MISSING", "STATE_ARCHIVED",
		"CREDENTIALS_MISSING", "READ_ONLY_STORE", "PROFILE_EXISTS", "PROFILE_NOT_ALLOWED", "UNKNOWN"}
	for _, r := range required {
		if !seen[r] {
			t.Errorf("required code %s missing", r)
		}
	}
	for _, cat := range Categories() {
		g := categories[cat.index()].generic
		if CodeCategory(g) != cat {
			t.Errorf("category %s has no generic code of its own (%q)", cat, g)
		}
	}
	if IsCode("MADE_UP") || IsCode("") || CodeCategory("MADE_UP") != CategoryUnknown {
		t.Error("undocumented codes accepted")
	}
	list := Codes()
	list[0].Code = "MUTATED"
	if Codes()[0].Code == "MUTATED" {
		t.Error("Codes() exposes its table")
	}
}

// TestEveryCodeEmitted produces every documented code through Map (the other direction is
// checked in TestMain after the whole suite: every produced code is documented).
func TestEveryCodeEmitted(t *testing.T) {
	for _, c := range Codes() {
		got := mapT(t, Facts{Guides: testGuides, Source: SourceRequest, Operation: "Op failed", Code: c.Code})
		if got.Diagnostic.Code != c.Code || got.Diagnostic.Category != string(c.Category) {
			t.Errorf("explicit %s mapped to %s/%s", c.Code, got.Diagnostic.Code, got.Diagnostic.Category)
		}
		if got.Diagnostic.Detail != Phrase(c.Code) {
			t.Errorf("%s: detail %q, want its phrase", c.Code, got.Diagnostic.Detail)
		}
	}
}
