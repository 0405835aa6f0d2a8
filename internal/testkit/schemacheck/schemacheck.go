// Package schemacheck validates JSON documents against JSON Schemas (2020-12) in tests: every
// tool result against its outputSchema, and arguments against inputSchemas. It is imported
// only by tests.
package schemacheck

import (
	"bytes"
	"fmt"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Validate reports whether instance conforms to schema, with formats asserted.
func Validate(schema, instance []byte) error { return ValidateAt(schema, "", instance) }

// ValidateAt is Validate against the subschema at the JSON pointer def of schema (e.g.
// "/$defs/ServerCard"; "" is the whole schema), for a schema that only defines its documents.
func ValidateAt(schema []byte, def string, instance []byte) error {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		return fmt.Errorf("schema is not JSON: %w", err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	if err := c.AddResource("mem:///schema.json", doc); err != nil {
		return err
	}
	sch, err := c.Compile("mem:///schema.json#" + def)
	if err != nil {
		return fmt.Errorf("schema does not compile: %w", err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(instance))
	if err != nil {
		return fmt.Errorf("instance is not JSON: %w", err)
	}
	return sch.Validate(inst)
}
