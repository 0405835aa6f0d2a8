// Package schemagen builds the JSON Schemas a tool advertises in tools/list, the inputSchema of its
// request model and the outputSchema of its result type, with invopop/jsonschema. It runs when the
// tool definitions are generated (go generate ./internal/tools/, which writes
// internal/tools/definitions_gen.go) and in tests, never in the endpoint: the deployed binary
// carries no schema reflector and spends no start-up time reflecting (functions/mcp's test checks).
package schemagen

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/invopop/jsonschema"

	"github.com/mindvault/mcp-endpoint/validate"
)

// DependentRequirer is a request model with arguments that need each other (JSON Schema
// dependentRequired): when a key is given, so must every name in its list be.
type DependentRequirer interface {
	DependentRequired() map[string][]string
}

// Input builds a request model's inputSchema: the reflector gives the structure, the
// descriptions and the defaults; the model's validate rules give every constraint.
// Inlined (no $ref/$defs), object-rooted and closed, which suits LLM clients.
func Input(m *validate.Model) ([]byte, error) {
	t := m.Type()
	r := &jsonschema.Reflector{DoNotReference: true, ExpandedStruct: true, RequiredFromJSONSchemaTags: true, Anonymous: true}
	s := r.ReflectFromType(t)
	s.Version, s.ID = "", ""
	s.Type = "object"
	s.AdditionalProperties = jsonschema.FalseSchema
	if d, ok := reflect.New(t).Elem().Interface().(DependentRequirer); ok {
		s.DependentRequired = d.DependentRequired()
	}
	var required []string
	for _, a := range m.Arguments() {
		if a.Required {
			required = append(required, a.Name)
		}
		if s.Properties == nil {
			return nil, fmt.Errorf("no properties reflected")
		}
		p, ok := s.Properties.Get(a.Name)
		if !ok {
			return nil, fmt.Errorf("field %s missing from the reflected schema", a.Name)
		}
		if err := constrain(p, a.Kind, a.Rules); err != nil {
			return nil, fmt.Errorf("field %s: %w", a.Name, err)
		}
		if a.Kind == "array of strings" {
			if p.Items == nil {
				return nil, fmt.Errorf("field %s: no items schema", a.Name)
			}
			if err := constrain(p.Items, "string", a.Dive); err != nil {
				return nil, fmt.Errorf("field %s items: %w", a.Name, err)
			}
		}
	}
	s.Required = required
	return json.Marshal(s)
}

// constrain translates validate rules into JSON Schema keywords. An unknown rule is an error
// so that a new rule cannot be enforced without being advertised (validate refuses it too).
func constrain(s *jsonschema.Schema, kind string, rules []validate.Rule) error {
	for _, r := range rules {
		switch r.Name {
		case "required", "omitempty", "omitnil":
		case "min", "gte", "max", "lte":
			n, err := strconv.ParseUint(r.Param, 10, 64)
			if err != nil {
				return fmt.Errorf("rule %s=%s: %w", r.Name, r.Param, err)
			}
			// One bound, on the length, the item count or the value by the argument's kind.
			length, items, value := &s.MaxLength, &s.MaxItems, &s.Maximum
			if r.Name == "min" || r.Name == "gte" {
				length, items, value = &s.MinLength, &s.MinItems, &s.Minimum
			}
			switch kind {
			case "string":
				*length = &n
			case "array of strings":
				*items = &n
			case "integer":
				*value = json.Number(r.Param)
			}
		case "oneof":
			s.Enum = nil
			for _, v := range strings.Fields(r.Param) {
				s.Enum = append(s.Enum, v)
			}
		case "email":
			s.Format = "email"
		default:
			sh, ok := validate.Shape(r.Name)
			if !ok {
				return fmt.Errorf("rule %q has no schema translation", r.Name)
			}
			minLen, maxLen := sh.MinLength, sh.MaxLength
			s.MinLength, s.MaxLength, s.Pattern = &minLen, &maxLen, sh.Pattern
			if sh.Format != "" {
				s.Format = sh.Format
			}
			if n := sh.Number; n != nil {
				if kind != "string or number" {
					return fmt.Errorf("rule %q is an amount shape on a %s", r.Name, kind)
				}
				// The string keywords bind strings only and the number keywords numbers only,
				// so each form keeps its own bounds under one schema. The reflector's Type is a
				// single name; the pair goes out as an extra keyword in its place.
				s.Type = ""
				if s.Extras == nil {
					s.Extras = map[string]any{}
				}
				s.Extras["type"] = []string{"string", "number"}
				s.Minimum, s.ExclusiveMinimum, s.Maximum = json.Number(n.Minimum), json.Number(n.ExclusiveMinimum), json.Number(n.Maximum)
			}
		}
	}
	return nil
}

// Output reflects an output struct: fields without omitempty are required, and the schema is
// closed so tests catch a result that drifts from what is advertised.
func Output(t reflect.Type) ([]byte, error) {
	r := &jsonschema.Reflector{DoNotReference: true, ExpandedStruct: true, Anonymous: true}
	s := r.ReflectFromType(t)
	s.Version, s.ID = "", ""
	if s.Type != "object" {
		return nil, fmt.Errorf("output %s must be an object", t)
	}
	return json.Marshal(s)
}
