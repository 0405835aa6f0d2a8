package errmap

import (
	"reflect"
	"testing"
)

// TestNextActionPassesOnlyWholeCleanCalls: a recovery call reaches the diagnostic as given, or
// not at all when any part of it is malformed or would carry a secret.
func TestNextActionPassesOnlyWholeCleanCalls(t *testing.T) {
	resume := &NextAction{Tool: "mindvault_publish", Arguments: map[string]any{"resourceId": "r0123", "profile": "demo"}}
	cases := []struct {
		name string
		in   *NextAction
		want *NextAction
	}{
		{"none", nil, nil},
		{"a complete call", resume, resume},
		{"a boolean argument", &NextAction{Tool: "mindvault_buy", Arguments: map[string]any{"resourceId": "x", "dryRun": true}},
			&NextAction{Tool: "mindvault_buy", Arguments: map[string]any{"resourceId": "x", "dryRun": true}}},
		{"no arguments", &NextAction{Tool: "mindvault_health"}, &NextAction{Tool: "mindvault_health", Arguments: map[string]any{}}},
		{"a bad tool name", &NextAction{Tool: "mindvault publish", Arguments: map[string]any{"resourceId": "x"}}, nil},
		{"a secret argument", &NextAction{Tool: "mindvault_publish", Arguments: map[string]any{"resourceId": testSeed}}, nil},
		{"a known secret", &NextAction{Tool: "mindvault_publish", Arguments: map[string]any{"resourceId": "hunter2hunter2"}}, nil},
		{"a multi-line argument", &NextAction{Tool: "mindvault_publish", Arguments: map[string]any{"resourceId": "a\nb"}}, nil},
		{"a number argument", &NextAction{Tool: "mindvault_publish_status", Arguments: map[string]any{"waitSeconds": 5}}, nil},
		{"a bad argument name", &NextAction{Tool: "mindvault_publish", Arguments: map[string]any{"resource id": "x"}}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := Map(Facts{Guides: testGuides, Source: SourceAPI, Status: 500, NextAction: tc.in, Secrets: []string{"hunter2hunter2"}}).Diagnostic.NextAction
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("nextAction %+v, want %+v", got, tc.want)
			}
		})
	}
}
