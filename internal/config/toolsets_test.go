package config

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestToolsets(t *testing.T) {
	cases := []struct {
		name     string
		env      map[string]string
		toolsets []string // nil: every toolset
		readOnly bool
		problem  string // part of the MINDVAULT_TOOLSETS or MINDVAULT_READ_ONLY problem, "" for none
	}{
		{"default: everything", nil, nil, false, ""},
		{"one", map[string]string{"MINDVAULT_TOOLSETS": "catalog"}, []string{"catalog"}, false, ""},
		{"kept in the documented order, any case, spaces and repeats",
			map[string]string{"MINDVAULT_TOOLSETS": " ops, Catalog ,registry-writes,,catalog"}, []string{"catalog", "registry-writes", "ops"}, false, ""},
		{"read-only", map[string]string{"MINDVAULT_READ_ONLY": "true"}, nil, true, ""},
		{"read-only off", map[string]string{"MINDVAULT_READ_ONLY": "false"}, nil, false, ""},
		{"unknown name", map[string]string{"MINDVAULT_TOOLSETS": "catalog,walet"},
			[]string{}, false, `unknown toolset "walet"; the toolsets are catalog, wallet, payments, publishing, registry, registry-writes, ops`},
		{"names none", map[string]string{"MINDVAULT_TOOLSETS": " , "}, []string{}, false, "names no toolset; list one or more of catalog"},
		{"bad read-only", map[string]string{"MINDVAULT_READ_ONLY": "maybe"}, nil, false, "must be true or false"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := load(tc.env, false)
			var problems Problems
			errors.As(err, &problems)
			var got string
			for _, p := range problems {
				if p.Var == "MINDVAULT_TOOLSETS" || p.Var == "MINDVAULT_READ_ONLY" {
					got = p.Reason
				}
			}
			if tc.problem == "" && got != "" || !strings.Contains(got, tc.problem) {
				t.Fatalf("problem %q, want %q", got, tc.problem)
			}
			if (c.Toolsets == nil) != (tc.toolsets == nil) || !slices.Equal(c.Toolsets, tc.toolsets) || c.ReadOnly != tc.readOnly {
				t.Errorf("toolsets %q read-only %v, want %q %v", c.Toolsets, c.ReadOnly, tc.toolsets, tc.readOnly)
			}
		})
	}
}
