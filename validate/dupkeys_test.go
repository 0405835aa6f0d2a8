package validate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

// duplicateKeysByTokens is DuplicateKeys by encoding/json's tokens.
func duplicateKeysByTokens(text []byte, fold, skip string) []Dup {
	dec := json.NewDecoder(bytes.NewReader(text))
	var path []Step
	var dups []Dup
	var walk func(ctx int) bool
	walk = func(ctx int) bool {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		d, ok := tok.(json.Delim)
		if !ok {
			return true
		}
		switch d {
		case '{':
			folds := fold != "" && (ctx == ctxTop || ctx == ctxFolded)
			var keys []string
			reported := map[int]bool{}
			for dec.More() {
				kt, err := dec.Token()
				k, isKey := kt.(string)
				if err != nil || !isKey {
					return false
				}
				path = append(path, Step{Key: k, Index: -1})
				for j, o := range keys {
					if ctx == ctxSkip || (o != k && !(folds && strings.EqualFold(o, k))) {
						continue
					}
					if !reported[j] {
						reported[j] = true
						dups = append(dups, Dup{Path: append([]Step(nil), path...), Folded: o != k})
					}
					break
				}
				keys = append(keys, k)
				next := ctxInner
				switch {
				case ctx == ctxTop && fold != "" && k == fold:
					next = ctxFolded
				case ctx == ctxFolded && skip != "" && k == skip:
					next = ctxSkip
				case ctx == ctxSkip:
					next = ctxSkip
				}
				if !walk(next) {
					return false
				}
				path = path[:len(path)-1]
			}
		case '[':
			for i := 0; dec.More(); i++ {
				path = append(path, Step{Index: i})
				next := ctxInner
				if ctx == ctxSkip {
					next = ctxSkip
				}
				if !walk(next) {
					return false
				}
				path = path[:len(path)-1]
			}
		}
		_, err = dec.Token()
		return err == nil
	}
	walk(ctxTop)
	return dups
}

var dupSeeds = []string{
	`{}`, `{"a":1,"a":2}`, `{"a":1,"A":2}`, `{"a":{"b":1,"b":1}}`, `{"a":[{"b":1},{"b":2}]}`, `{"a":1,"\u0061":2}`,
	`{"a":1,"a":2,"a":3,"A":4}`, `{"x":{"k":1,"k":2},"x":{"k":1,"k":2}}`, "{\"\xff\":1,\"\xfe\":2}",
	`{"jsonrpc":"2.0","id":1,"ID":2,"method":"x","params":{"name":"a","NAME":"b","arguments":{"x":1,"x":2}}}`,
	`{"p\u0061rams":{"arguments":{"x":1,"x":2}},"params":{"arguments":{"y":[{"a":1,"a":2}]},"o":{"A":1,"a":2}}}`,
	`{"params":{"\u212Aey":1,"key":2,"a\"b":1,"a\"b":2}}`, `{"params":[{"k":1,"k":2}]}`,
	`{"params":{"o":{"k0":0,"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9,"k10":0,"k11":0,"k12":0,"k13":0,"k14":0,"k15":0,"k16":0,"k3":0,"k3":0}}}`,
}

func fmtDups(ds []Dup) string { return fmt.Sprintf("%+v", ds) }

// FuzzDuplicateKeysAsTokens: the scan of the bytes finds what encoding/json's tokens find, for
// any JSON text, folded and skipped or not.
func FuzzDuplicateKeysAsTokens(f *testing.F) {
	for _, s := range dupSeeds {
		f.Add([]byte(s), true)
		f.Add([]byte(s), false)
	}
	f.Fuzz(func(t *testing.T, text []byte, envelope bool) {
		if !json.Valid(text) || (envelope && !utf8.Valid(text)) {
			return
		}
		fold, skip := "", ""
		if envelope {
			fold, skip = "params", "arguments"
		}
		if got, want := fmtDups(DuplicateKeys(text, fold, skip)), fmtDups(duplicateKeysByTokens(text, fold, skip)); got != want {
			t.Fatalf("%q: scan %s, tokens %s", text, got, want)
		}
	})
}

// TestDuplicateKeysAllocateNothing: a text without duplicates costs no allocation.
func TestDuplicateKeysAllocateNothing(t *testing.T) {
	body := []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"mindvault_preview","arguments":{"resourceId":"rustguide"},"_meta":{"a":[1,{"b":2}]}}}`)
	if n := testing.AllocsPerRun(100, func() { DuplicateKeys(body, "params", "arguments") }); n != 0 {
		t.Fatalf("%v allocations", n)
	}
}
