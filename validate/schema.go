package validate

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/invopop/jsonschema"
)

// Reflector settings that suit LLM clients: inlined (no $ref/$defs), object-rooted, closed.
func reflector(requiredFromTags bool) *jsonschema.Reflector {
	return &jsonschema.Reflector{
		DoNotReference:             true,
		ExpandedStruct:             true,
		RequiredFromJSONSchemaTags: requiredFromTags,
		Anonymous:                  true,
	}
}

// reflectSchema builds the inputSchema: invopop gives the structure and descriptions, the
// validate tags give every constraint.
func reflectSchema(t reflect.Type, m *Model) ([]byte, error) {
	s := reflector(true).ReflectFromType(t)
	s.Version, s.ID = "", ""
	s.Type = "object"
	s.AdditionalProperties = jsonschema.FalseSchema
	var required []string
	for _, f := range m.fields {
		if f.required {
			required = append(required, f.name)
		}
		if s.Properties == nil {
			return nil, fmt.Errorf("no properties reflected")
		}
		p, ok := s.Properties.Get(f.name)
		if !ok {
			return nil, fmt.Errorf("field %s missing from the reflected schema", f.name)
		}
		if err := constrain(p, f.kind, f.rules); err != nil {
			return nil, fmt.Errorf("field %s: %w", f.name, err)
		}
		if f.kind == kStrings {
			if p.Items == nil {
				return nil, fmt.Errorf("field %s: no items schema", f.name)
			}
			if err := constrain(p.Items, kString, f.dive); err != nil {
				return nil, fmt.Errorf("field %s items: %w", f.name, err)
			}
		}
	}
	s.Required = required
	return json.Marshal(s)
}

// constrain translates validate rules into JSON Schema keywords. An unknown rule is an error
// so that a new rule cannot be enforced without being advertised.
func constrain(s *jsonschema.Schema, k kind, rules []rule) error {
	for _, r := range rules {
		switch r.name {
		case "required", "omitempty", "omitnil":
		case "min", "gte", "max", "lte":
			n, err := strconv.ParseUint(r.param, 10, 64)
			if err != nil {
				return fmt.Errorf("rule %s=%s: %w", r.name, r.param, err)
			}
			// One bound, on the length, the item count or the value by the argument's kind.
			length, items, value := &s.MaxLength, &s.MaxItems, &s.Maximum
			if r.name == "min" || r.name == "gte" {
				length, items, value = &s.MinLength, &s.MinItems, &s.Minimum
			}
			switch k {
			case kString:
				*length = &n
			case kStrings:
				*items = &n
			case kInt:
				*value = json.Number(r.param)
			}
		case "oneof":
			s.Enum = nil
			for _, v := range strings.Fields(r.param) {
				s.Enum = append(s.Enum, v)
			}
		case "email":
			s.Format = "email"
		default:
			sh, ok := shapeByTag[r.name]
			if !ok {
				return fmt.Errorf("rule %q has no schema translation", r.name)
			}
			sh.schema(s)
		}
	}
	return nil
}
