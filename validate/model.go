// Package validate is the one boundary between a tool call's JSON arguments and the tool's typed
// request struct: it decodes strictly, runs the go-playground/validator rules of the request's
// tags, and reports every problem as an issue with a JSON-pointer path and a rule name, never the
// rejected value. The same tags generate the advertised inputSchema at build time
// (internal/gen/schemagen), so what is advertised is what is accepted; the rules are
// docs/tools.md "Shared argument shapes".
package validate

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/go-playground/validator/v10"
)

// kind is the JSON shape of a request field.
type kind int

const (
	kString kind = iota
	kBool
	kInt
	kStrings
	kAmount // a string, or a number read exactly as the decimal its literal writes
)

// kindNames are the kinds as issues and the advertised schema name them.
var kindNames = [...]string{kString: "string", kBool: "boolean", kInt: "integer", kStrings: "array of strings", kAmount: "string or number"}

func (k kind) expected() string { return kindNames[k] }

// field is one compiled argument: what the schema advertises, and how to decode it.
type field struct {
	Argument
	path  []int // reflect index path: one step, or more through embedded groups
	order int   // position among the model's arguments, which is the advertised order
	kind  kind
	ptr   bool
	def   json.RawMessage // default from the jsonschema tag, decoded when the argument is absent
}

func hasRule(rs []Rule, tag string) bool {
	return slices.ContainsFunc(rs, func(r Rule) bool { return r.Name == tag })
}

// amountShape is the (first) amount shape a field names; its tag is "" for none.
func (f *field) amountShape() shape {
	for _, r := range f.Rules {
		if s := shapeByTag[r.Name]; s.schema.Number != nil {
			return s
		}
	}
	return shape{}
}

// checkRule refuses, when a tool is registered rather than on a call, a rule the schema cannot
// advertise or validator would fail on late: e.g. validateFn, which panics in the deployed binary
// (validator_novalidatefn, docs/operations.md "Binary size"), or an "a|b" alternative.
func checkRule(name, param string) error {
	switch name {
	case "dive", "required", "omitempty", "omitnil", "oneof", "email":
	case "min", "gte", "max", "lte":
		// validator panics on a bound it cannot parse.
		if _, err := strconv.ParseUint(param, 10, 64); err != nil {
			return fmt.Errorf("rule %s=%s: the bound must be a non-negative integer", name, param)
		}
	default:
		if _, ok := shapeByTag[name]; !ok {
			return fmt.Errorf("rule %q is not one this package advertises and checks", name)
		}
	}
	return nil
}

// Model is the compiled validation boundary of one request type, compiled when its tool is
// registered (refusing any rule it could not advertise). A request may embed exported structs,
// groups of arguments several requests share: their fields are arguments of the request in the
// place the group is embedded, as encoding/json and the schema reflector flatten them.
type Model struct {
	typ    reflect.Type
	fields []*field
	byName map[string]*field
}

// CrossChecker is implemented by request structs with rules that span fields (min ≤ max, at
// least one criterion). It runs only when every field is individually valid. An embedded
// group's CrossCheck is promoted to the request unless the request declares its own.
type CrossChecker interface {
	CrossCheck() []Issue
}

var (
	engine     *validator.Validate
	engineOnce sync.Once
	models     sync.Map // reflect.Type -> *Model
)

// validatorEngine is built on the first decode, not at registration: listing tools never needs it.
func validatorEngine() *validator.Validate {
	engineOnce.Do(func() {
		// Blank names are left out of validator's namespaces, so a field of an embedded group
		// (whose own name is blank) is reported at the same path as a field of the request.
		engine = validator.New(validator.WithRequiredStructEnabled(), validator.WithTagNameFuncBlankOmit())
		engine.RegisterTagNameFunc(func(f reflect.StructField) string {
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "-" {
				return ""
			}
			return name
		})
		for _, s := range shapes {
			check := s.check
			err := engine.RegisterValidation(s.tag, func(fl validator.FieldLevel) bool {
				return fl.Field().Kind() == reflect.String && check(fl.Field().String())
			})
			if err != nil {
				panic(err)
			}
		}
	})
	return engine
}

// For returns the compiled model of request type T; it panics on a request struct this
// package cannot serve, which the registry tests turn into a failing test.
func For[T any]() *Model {
	t := reflect.TypeFor[T]()
	if m, ok := models.Load(t); ok {
		return m.(*Model)
	}
	m, err := compile(t)
	if err != nil {
		panic(fmt.Sprintf("validate: %s: %v", t, err))
	}
	actual, _ := models.LoadOrStore(t, m)
	return actual.(*Model)
}

// Names lists the accepted argument names in declaration order.
func (m *Model) Names() []string {
	out := make([]string, len(m.fields))
	for i, f := range m.fields {
		out[i] = f.Name
	}
	return out
}

// Type is the request type the model decodes into.
func (m *Model) Type() reflect.Type { return m.typ }

// Rule is one entry of a validate tag, e.g. {max 8}.
type Rule struct{ Name, Param string }

// Argument is one accepted argument as the advertised schema describes it.
type Argument struct {
	Name     string
	Kind     string // "string", "boolean", "integer", "array of strings" or "string or number" (an amount)
	Required bool
	Rules    []Rule // on the argument
	Dive     []Rule // on each element of an array
}

// Arguments lists the accepted arguments in the advertised order, with their rules.
func (m *Model) Arguments() []Argument {
	out := make([]Argument, len(m.fields))
	for i, f := range m.fields {
		out[i] = f.Argument
		out[i].Rules, out[i].Dive = slices.Clone(f.Rules), slices.Clone(f.Dive)
	}
	return out
}

func compile(t reflect.Type) (*Model, error) {
	if t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("request type must be a struct")
	}
	m := &Model{typ: t, byName: map[string]*field{}}
	if err := m.addFields(t, nil); err != nil {
		return nil, err
	}
	return m, nil
}

// addFields compiles the arguments of struct type t, at the index path at; an embedded group's
// fields are the request's own, in its place (see Model).
func (m *Model) addFields(t reflect.Type, at []int) error {
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		path := append(append([]int(nil), at...), i)
		name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if sf.Anonymous && name == "" {
			// Only an exported struct by value: reflect cannot set fields reached through an
			// unexported embedded type, and a pointer would need allocating.
			if sf.Type.Kind() != reflect.Struct || !sf.IsExported() {
				return fmt.Errorf("embedded %s must be an exported struct embedded by value", sf.Name)
			}
			if err := m.addFields(sf.Type, path); err != nil {
				return err
			}
			continue
		}
		if !sf.IsExported() {
			continue
		}
		if name == "" || name == "-" {
			return fmt.Errorf("field %s needs a json name", sf.Name)
		}
		if _, dup := m.byName[name]; dup {
			return fmt.Errorf("argument %s is declared twice", name)
		}
		f, err := compileField(sf, name)
		if err != nil {
			return err
		}
		f.path, f.order = path, len(m.fields)
		m.fields = append(m.fields, f)
		m.byName[name] = f
	}
	return nil
}

func compileField(sf reflect.StructField, name string) (*field, error) {
	f := &field{Argument: Argument{Name: name}}
	ft := sf.Type
	if ft.Kind() == reflect.Pointer {
		f.ptr, ft = true, ft.Elem()
	}
	switch {
	case ft.Kind() == reflect.String:
		f.kind = kString
	case ft.Kind() == reflect.Bool:
		f.kind = kBool
	case ft.Kind() >= reflect.Int && ft.Kind() <= reflect.Int64:
		f.kind = kInt
	case ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.String:
		f.kind = kStrings
	default:
		return nil, fmt.Errorf("field %s: unsupported type %s", sf.Name, sf.Type)
	}
	inDive := false
	for _, part := range strings.Split(sf.Tag.Get("validate"), ",") {
		if part == "" {
			continue
		}
		n, p, _ := strings.Cut(part, "=")
		if err := checkRule(n, p); err != nil {
			return nil, fmt.Errorf("field %s: %w", sf.Name, err)
		}
		switch {
		case n == "dive":
			inDive = true
		case inDive:
			f.Dive = append(f.Dive, Rule{n, p})
		default:
			f.Rules = append(f.Rules, Rule{n, p})
		}
	}
	if f.kind == kString && f.amountShape().tag != "" {
		f.kind = kAmount
		// The schema says only presence and the shape of an amount (a length or a second
		// shape would bind its string form alone), so nothing else may be checked.
		for _, r := range f.Rules {
			if shapeByTag[r.Name].schema.Number == nil && r.Name != "required" && r.Name != "omitnil" && r.Name != "omitempty" {
				return nil, fmt.Errorf("field %s: an amount takes no rule %s besides its shape", sf.Name, r.Name)
			}
		}
	}
	f.Required, f.Kind = hasRule(f.Rules, "required"), f.kind.expected()
	if f.Required && f.kind == kBool && !f.ptr {
		return nil, fmt.Errorf("field %s: a required boolean must be a pointer (false is a value)", sf.Name)
	}
	if !f.Required && !f.ptr && f.kind != kStrings {
		// An optional non-pointer field needs a default, or absence and zero would be the same.
		def := schemaDefault(sf)
		switch {
		case def == "" && f.kind != kBool:
			return nil, fmt.Errorf("field %s: optional fields must be pointers or declare a default", sf.Name)
		case f.kind == kString || f.kind == kAmount:
			def = strconv.Quote(def)
		}
		if def != "" && assign(reflect.New(sf.Type).Elem(), f, json.RawMessage(def), "") != nil {
			return nil, fmt.Errorf("field %s: default %s is not %s", sf.Name, def, article(f.Kind))
		}
		f.def = json.RawMessage(def)
	}
	return f, nil
}

// schemaDefault reads "default=X" from the jsonschema tag.
func schemaDefault(sf reflect.StructField) string {
	for _, opt := range strings.Split(sf.Tag.Get("jsonschema"), ",") {
		if v, ok := strings.CutPrefix(opt, "default="); ok {
			return v
		}
	}
	return ""
}
