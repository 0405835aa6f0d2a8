package errmap

import (
	"fmt"
	"strings"
	"testing"
)

func TestValidationBasic(t *testing.T) {
	issues := []Issue{
		{Path: "/extra", Rule: "unknown"},
		{Path: "/resourceId", Rule: "required", Expected: "string", Message: "is required"},
		{Path: "/limit", Rule: "max", Expected: "at most 100", Message: "must be at most 100"},
	}
	got := Validation("mindvault_preview", issues, []string{"resourceId", "limit"}, nil)
	checkFailure(t, got)
	want := "Invalid arguments for mindvault_preview (-32602): /extra is not an accepted argument; /resourceId is required; /limit must be at most 100\n" +
		"Source: request validation · Category: validation · Code: INVALID_ARGUMENTS\n" +
		"Next: Correct the invalid arguments and call mindvault_preview again (allowed arguments: resourceId, limit)."
	if got.Text != want {
		t.Errorf("text\n%s\nwant\n%s", got.Text, want)
	}
	d := got.Diagnostic
	if d.Code != CodeInvalidArguments || d.Category != "validation" || d.Source != "request" || d.JSONRPCCode != -32602 || d.Retry != "after_correction" {
		t.Errorf("%+v", d)
	}
	if len(d.Issues) != 3 || d.OmittedIssues == nil || *d.OmittedIssues != 0 {
		t.Fatalf("issues %v omitted %v", d.Issues, d.OmittedIssues)
	}
	for i, is := range d.Issues {
		if is.Path != issues[i].Path || is.Rule != issues[i].Rule || is.Expected != issues[i].Expected {
			t.Errorf("issue %d = %+v, order or content changed", i, is)
		}
	}
	if j := jsonOf(t, d.Issues); strings.Contains(j, `"message"`) || strings.Contains(j, "must be at most") {
		t.Errorf("issue messages must not be marshalled: %s", j)
	}
}

func TestValidationNoArguments(t *testing.T) {
	got := Validation("mindvault_health", []Issue{{Path: "/verbose", Rule: "unknown"}}, nil, nil)
	checkFailure(t, got)
	if want := "Correct the invalid arguments and call mindvault_health again (it takes no arguments)."; got.Diagnostic.Next != want {
		t.Errorf("Next %q", got.Diagnostic.Next)
	}
	got = Validation("", []Issue{{Path: "", Rule: "type", Expected: "object"}}, []string{}, nil)
	checkFailure(t, got)
	if !strings.HasPrefix(got.Text, "Invalid arguments (-32602): arguments must be of type object\n") {
		t.Errorf("text %q", got.Text)
	}
	if got.Diagnostic.Issues[0].Path != "" || !strings.Contains(jsonOf(t, got.Diagnostic), `"path":""`) {
		t.Errorf("root path must stay \"\" in the diagnostic: %s", jsonOf(t, got.Diagnostic))
	}
	if want := "Correct the invalid arguments and call the tool again (it takes no arguments)."; got.Diagnostic.Next != want {
		t.Errorf("Next %q", got.Diagnostic.Next)
	}
	got = Validation("mindvault_browse", nil, []string{"query"}, nil)
	checkFailure(t, got)
	if got.Diagnostic.Detail != "invalid arguments" || got.Diagnostic.Issues != nil {
		t.Errorf("no issues: %+v", got.Diagnostic)
	}
}

func TestValidationMessagesFromRules(t *testing.T) {
	cases := []struct{ rule, expected, want string }{
		{"required", "string", "/a is required"},
		{"unknown", "", "/a is not an accepted argument"},
		{"type", "integer", "/a must be of type integer"},
		{"type", "", "/a has the wrong type"},
		{"min", "at least 1", "/a must be at least 1"},
		{"max", "", "/a is out of range"},
		{"pattern", "^[a-z]+$", "/a must have the format ^[a-z]+$"},
		{"oneof", "newest, price_asc", "/a must be one of newest, price_asc"},
		{"custom", "", "/a is invalid"},
		{"custom", "a G address", "/a is invalid: expected a G address"},
	}
	for _, c := range cases {
		got := Validation("mindvault_x", []Issue{{Path: "/a", Rule: c.rule, Expected: c.expected}}, []string{"a"}, nil)
		checkFailure(t, got)
		if got.Diagnostic.Detail != c.want {
			t.Errorf("%s/%s: %q, want %q", c.rule, c.expected, got.Diagnostic.Detail, c.want)
		}
	}
}

func TestValidationBounds(t *testing.T) {
	var issues []Issue
	for i := 0; i < 25; i++ {
		issues = append(issues, Issue{Path: fmt.Sprintf("/field%02d", i), Rule: "required", Message: "is required"})
	}
	got := Validation("mindvault_publish", issues, []string{"title"}, nil)
	checkFailure(t, got)
	d := got.Diagnostic
	if len(d.Issues) != MaxIssues || *d.OmittedIssues != 5 {
		t.Fatalf("kept %d omitted %d", len(d.Issues), *d.OmittedIssues)
	}
	for i, is := range d.Issues {
		if is.Path != issues[i].Path {
			t.Errorf("issue %d is %s: order not kept", i, is.Path)
		}
	}
	line1 := strings.Split(got.Text, "\n")[0]
	if runes(line1) > MaxDetail {
		t.Errorf("line 1 has %d runes", runes(line1))
	}
	// Count the items shown plus "and N more": together they must cover all 25.
	shown := strings.Count(line1, " is required")
	var more int
	if _, err := fmt.Sscanf(line1[strings.LastIndex(line1, "; and ")+2:], "and %d more", &more); err != nil {
		t.Fatalf("no \"and N more\" in %q", line1)
	}
	if shown+more != 25 || shown == 0 {
		t.Errorf("shown %d + more %d != 25: %q", shown, more, line1)
	}
	if !strings.HasPrefix(line1, "Invalid arguments for mindvault_publish (-32602): /field00 is required; /field01 is required") {
		t.Errorf("line 1 %q", line1)
	}

	// One issue far too long for the line: cut, still within bounds, with the count.
	long := []Issue{{Path: "/" + strings.Repeat("p", 190), Rule: "x", Message: strings.Repeat("m", 150)}, {Path: "/b", Rule: "required"}}
	got = Validation(strings.Repeat("t", 128), long, nil, nil)
	checkFailure(t, got)
	line1 = strings.Split(got.Text, "\n")[0]
	if runes(line1) > MaxDetail || !strings.HasSuffix(line1, "; and 1 more") {
		t.Errorf("line 1 (%d runes) %q", runes(line1), line1)
	}

	// Many issues: only the displayable ones are processed, the count stays exact.
	many := make([]Issue, 10000)
	for i := range many {
		many[i] = Issue{Path: "/x", Rule: "unknown"}
	}
	d = Validation("mindvault_browse", many, nil, nil).Diagnostic
	if len(d.Issues) != MaxIssues || *d.OmittedIssues != 10000-MaxIssues {
		t.Errorf("kept %d omitted %d", len(d.Issues), *d.OmittedIssues)
	}
	if !strings.Contains(d.Detail, fmt.Sprintf("and %d more", 10000-strings.Count(d.Detail, "/x "))) {
		t.Errorf("detail %q", d.Detail)
	}
}

// TestValidationNoValues checks that nothing but path, rule and expected shape leaves, and that
// even those are cleaned and redacted.
func TestValidationNoValues(t *testing.T) {
	issues := []Issue{{Path: "/secretKey\n", Rule: "pattern", Expected: "S + 55 base32 characters", Message: "does not match " + testSeed}}
	got := Validation("mindvault_import_wallet", issues, []string{"secretKey"}, nil)
	checkFailure(t, got)
	assertAbsent(t, got, testSeed)
	if got.Diagnostic.Issues[0].Path != "/secretKey" {
		t.Errorf("path not cleaned: %q", got.Diagnostic.Issues[0].Path)
	}
	if strings.Contains(jsonOf(t, got.Diagnostic.Issues), "does not match") {
		t.Error("message marshalled")
	}
}
