package mcp

import (
	"strings"
	"testing"
)

// TestDuplicateKeysRefused: a key given twice in any object of the envelope is -32600 and in
// any object of params -32602, each message naming the path; keys compare as the strings they
// decode to, and in the envelope and params also ignoring case; tools/call's arguments are
// the tool's to check, and an id given twice is never echoed.
func TestDuplicateKeysRefused(t *testing.T) {
	cases := []struct {
		name, body string
		code       int    // 0: accepted
		path       string // what the message names
		folded     bool
		id         string // the id echoed ("" none)
	}{
		{"params.name, the purchase given second", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"mindvault_preview","name":"mindvault_buy","arguments":{}}}`, CodeInvalidParams, "params.name", false, "1"},
		{"params.name, escaped", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","\u006eame":"b"}}`, CodeInvalidParams, "params.name", false, "1"},
		{"params.name, in another case", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","Name":"b"}}`, CodeInvalidParams, "params.Name", true, "1"},
		{"params, the Kelvin sign folds to k", `{"jsonrpc":"2.0","id":1,"method":"x","params":{"\u212Aey":1,"key":2}}`, CodeInvalidParams, "params.key", true, "1"},
		{"params._meta twice in two cases", `{"jsonrpc":"2.0","id":1,"method":"x","params":{"_meta":{},"_Meta":{}}}`, CodeInvalidParams, "params._Meta", true, "1"},
		{"a _meta key", `{"jsonrpc":"2.0","id":"r","method":"x","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"a","io.modelcontextprotocol/protocolVersion":"b"}}}`, CodeInvalidParams, `params._meta["io.modelcontextprotocol/protocolVersion"]`, false, `"r"`},
		{"inside _meta, exact only", `{"jsonrpc":"2.0","id":1,"method":"x","params":{"_meta":{"a":1,"A":2}}}`, 0, "", false, ""},
		{"nested in arrays", `{"jsonrpc":"2.0","id":1,"method":"x","params":{"x":[[{"k":1}],[{"k":1,"k":2}]]}}`, CodeInvalidParams, "params.x[1][0].k", false, "1"},
		{"params as an array", `{"jsonrpc":"2.0","id":1,"method":"x","params":[{"k":1,"k":2}]}`, CodeInvalidParams, "params[0].k", false, "1"},
		{"a key to quote", `{"jsonrpc":"2.0","id":1,"method":"x","params":{"a \"b\"":1,"a \"b\"":2}}`, CodeInvalidParams, `params["a \"b\""]`, false, "1"},
		{"tools/call arguments are the tool's", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","arguments":{"x":1,"x":2}}}`, 0, "", false, ""},
		{"tools/call arguments deeper are the tool's", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","arguments":{"x":{"y":[{"z":1,"z":2}]}}}}`, 0, "", false, ""},
		{"arguments given twice", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","arguments":{},"arguments":{}}}`, CodeInvalidParams, "params.arguments", false, "1"},
		{"arguments of another method", `{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"a","arguments":{"x":"1","x":"2"}}}`, CodeInvalidParams, "params.arguments.x", false, "1"},
		{"an arguments key deeper is not the tool's", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","x":{"arguments":{"k":1,"k":2}}}}`, CodeInvalidParams, "params.x.arguments.k", false, "1"},
		{"method twice", `{"jsonrpc":"2.0","id":1,"method":"tools/list","method":"tools/call","params":{"name":"a"}}`, CodeInvalidRequest, "method", false, "1"},
		{"method in another case", `{"jsonrpc":"2.0","id":1,"METHOD":"tools/list","method":"tools/call"}`, CodeInvalidRequest, "method", true, "1"},
		{"params twice", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a"},"params":{"name":"b"}}`, CodeInvalidRequest, "params", false, "1"},
		{"params escaped is params", `{"jsonrpc":"2.0","id":1,"method":"x","p\u0061rams":{"k":1,"k":2}}`, CodeInvalidParams, "params.k", false, "1"},
		{"jsonrpc twice", `{"jsonrpc":"2.0","jsonrpc":"2.0","id":1,"method":"x"}`, CodeInvalidRequest, "jsonrpc", false, "1"},
		{"id twice", `{"jsonrpc":"2.0","id":1,"id":2,"method":"x"}`, CodeInvalidRequest, "id", false, ""},
		{"id in two cases", `{"jsonrpc":"2.0","Id":1,"id":2,"method":"x"}`, CodeInvalidRequest, "id", true, ""},
		{"id twice after another duplicate", `{"jsonrpc":"2.0","method":"x","method":"y","id":1,"id":2}`, CodeInvalidRequest, "method", false, ""},
		{"below another envelope member", `{"jsonrpc":"2.0","id":1,"method":"x","extra":{"a":{"b":1,"b":2}}}`, CodeInvalidRequest, "extra.a.b", false, "1"},
		{"the envelope before params", `{"jsonrpc":"2.0","id":1,"method":"x","params":{"k":1,"k":2},"method":"y"}`, CodeInvalidRequest, "method", false, "1"},
		{"a large object", `{"jsonrpc":"2.0","id":1,"method":"x","params":{"o":` + manyKeys(40, "k33") + `}}`, CodeInvalidParams, "params.o.k33", false, "1"},
		{"a large object without duplicates", `{"jsonrpc":"2.0","id":1,"method":"x","params":{"o":` + manyKeys(500, "") + `}}`, 0, "", false, ""},
		{"a large params in two cases", `{"jsonrpc":"2.0","id":1,"method":"x","params":` + manyKeys(40, "K20") + `}`, CodeInvalidParams, "params.K20", true, "1"},
		{"the same key in sibling objects", `{"jsonrpc":"2.0","id":1,"method":"x","params":{"a":{"k":1},"b":{"k":1},"c":[{"k":1},{"k":1}]}}`, 0, "", false, ""},
		{"a long key is cut", `{"jsonrpc":"2.0","id":1,"method":"x","params":{"` + strings.Repeat("k", 300) + `":1,"` + strings.Repeat("k", 300) + `":2}}`, CodeInvalidParams, `params["` + strings.Repeat("k", 128) + `…"]`, false, "1"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			checkEnvelopeAsReference(t, []byte(tc.body))
			req, _, bad := decodeEnvelope([]byte(tc.body))
			if tc.code == 0 {
				if bad != nil {
					t.Fatalf("refused: %+v", bad)
				}
				return
			}
			if bad == nil || bad.Code != tc.code {
				t.Fatalf("want %d, got %+v", tc.code, bad)
			}
			prefix := map[int]string{CodeInvalidParams: "Invalid params: ", CodeInvalidRequest: "Invalid Request: "}[tc.code]
			if !strings.HasPrefix(bad.Message, prefix+tc.path+": is given more than once") {
				t.Errorf("message %q does not name %s", bad.Message, tc.path)
			}
			if folded := strings.Contains(bad.Message, "in another case"); folded != tc.folded {
				t.Errorf("message %q: folded = %v, want %v", bad.Message, folded, tc.folded)
			}
			if string(req.ID) != tc.id {
				t.Errorf("id = %s, want %q", req.ID, tc.id)
			}
		})
	}
}
