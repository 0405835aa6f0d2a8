package e2e_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/mindvault/mcp-endpoint/internal/credentials"
)

// sequence is an account's sequence number as Horizon reports it: it moves only when a
// transaction from the account is applied (and pays its fee).
func sequence(e *env, address string) string {
	e.t.Helper()
	var acct struct {
		Sequence string `json:"sequence"`
	}
	getJSON(e.t, e.sb.HorizonURL+"/accounts/"+address, &acct)
	return acct.Sequence
}

// units renders 7-decimal units as the decimal string the tools take.
func units(n int64) string { return fmt.Sprintf("%d.%07d", n/10_000_000, n%10_000_000) }

// A write that would change nothing is answered from the registry read: changed false, no
// transaction, no fee. A write that changes something is sent once: changed true.
func TestWritesThatChangeNothingAreNotSent(t *testing.T) {
	e := newEnv(t, nil)
	id := ownedBy(e, e.sb.Demo.Address)
	cur, _ := e.sb.RegistryResource(id)
	creator, _ := e.sb.Account("creator")
	shuffled := slices.Clone(cur.Tags)
	slices.Reverse(shuffled)
	for i := range shuffled {
		shuffled[i] = " " + strings.ToUpper(shuffled[i])
	}
	quoted := func(ss []string) string {
		b, _ := jsonMarshal(ss)
		return string(b)
	}

	cases := []struct {
		tool, same, change string // the arguments beyond resourceId
		field              string // the output field that echoes the value
	}{
		{"mindvault_set_listed", fmt.Sprintf(`"listed":%v`, cur.Listed), fmt.Sprintf(`"listed":%v`, !cur.Listed), "listed"},
		// 1.5 and 1.5000000 are one price: the comparison is on units.
		{"mindvault_set_price", `"price":"` + strings.TrimRight(units(cur.Price), "0") + `"`, `"price":"` + units(cur.Price+1) + `"`, "price"},
		// Same set after normalisation (order, case, spaces): no change.
		{"mindvault_set_tags", `"tags":` + quoted(shuffled), `"tags":["fresh","tags"]`, "tags"},
		{"mindvault_update_metadata", `"metadata":"` + cur.Metadata + `"`, `"metadata":"ipfs://bafychangedpointer"`, "metadata"},
		// Last: the transfer hands the resource to another wallet.
		{"mindvault_transfer_ownership", `"newCreator":"` + cur.Creator + `"`, `"newCreator":"` + creator.Address + `"`, "newCreator"},
	}
	for _, tc := range cases {
		t.Run(tc.tool, func(t *testing.T) {
			e := e.in(t)
			e.faults("")
			seq := sequence(e, e.sb.Demo.Address)
			before, _ := e.sb.RegistryResource(id)
			out := e.ok(tc.tool, e.call(tc.tool, `{"resourceId":"`+id+`",`+tc.same+`}`))
			if out["changed"] != false || out["txHash"] != nil || out["ledger"] != nil || out["message"] == nil || out[tc.field] == nil {
				t.Fatalf("no-op: %v", out)
			}
			if !strings.Contains(out["message"].(string), "Nothing was sent") {
				t.Errorf("message %q does not say nothing was sent", out["message"])
			}
			if n := e.sb.Count("rpc", "sendTransaction"); n != 0 {
				t.Fatalf("a no-op sent %d transactions", n)
			}
			if n := e.sb.Count("rpc", "simulateTransaction"); n == 0 {
				t.Fatal("the current entry was not read from the contract")
			}
			if after, _ := e.sb.RegistryResource(id); fmt.Sprint(after) != fmt.Sprint(before) || sequence(e, e.sb.Demo.Address) != seq {
				t.Fatalf("a no-op changed the chain: %+v → %+v", before, after)
			}

			out = e.ok(tc.tool, e.call(tc.tool, `{"resourceId":"`+id+`",`+tc.change+`}`))
			if out["changed"] != true || len(out["txHash"].(string)) != 64 {
				t.Fatalf("change: %v", out)
			}
			if n := e.sb.Count("rpc", "sendTransaction"); n != 1 {
				t.Fatalf("a change sent %d transactions, want 1", n)
			}
			if after, _ := e.sb.RegistryResource(id); fmt.Sprint(after) == fmt.Sprint(before) {
				t.Fatal("the change did not apply")
			}
		})
	}
}

// After set_tags with [] the result still shows tags: [], on a change and on a no-op.
func TestSetTagsEmptyShowsEmptyTags(t *testing.T) {
	e := newEnv(t, nil)
	id := ownedBy(e, e.sb.Demo.Address)
	if cur, _ := e.sb.RegistryResource(id); len(cur.Tags) == 0 {
		t.Fatalf("%s has no tags to clear", id)
	}
	for _, wantChanged := range []bool{true, false} {
		e.faults("")
		r := e.call("mindvault_set_tags", `{"resourceId":"`+id+`","tags":[]}`)
		out := e.ok("mindvault_set_tags", r)
		tags, present := out["tags"].([]any)
		if !present || len(tags) != 0 || !strings.Contains(string(r.Structured), `"tags":[]`) || out["changed"] != wantChanged {
			t.Fatalf("changed %v: %s", wantChanged, r.Structured)
		}
		if n, want := e.sb.Count("rpc", "sendTransaction"), map[bool]int{true: 1, false: 0}[wantChanged]; n != want {
			t.Fatalf("sendTransaction %d, want %d", n, want)
		}
	}
	if cur, _ := e.sb.RegistryResource(id); len(cur.Tags) != 0 {
		t.Fatalf("tags on chain: %v", cur.Tags)
	}
}

// A wallet that is not the creator never hears "nothing to change" for a value it could not
// have set: the contract's refusal comes back, and nothing is sent either way.
func TestNoOpRequiresTheCreator(t *testing.T) {
	e := newEnv(t, nil)
	creator, _ := e.sb.Account("creator")
	id := ownedBy(e, creator.Address)
	cur, _ := e.sb.RegistryResource(id)
	e.faults("")
	e.fails("mindvault_set_listed", e.call("mindvault_set_listed", fmt.Sprintf(`{"resourceId":"%s","listed":%v}`, id, cur.Listed)),
		failure{category: "auth", code: "CONTRACT_UNAUTHORIZED", source: "registry"})
	if n := e.sb.Count("rpc", "sendTransaction"); n != 0 {
		t.Fatalf("sent %d transactions", n)
	}

	// A transfer whose new creator already owns the resource is done, whoever asks again:
	// after a transfer (say, retried after an unknown outcome) the old creator no longer is.
	if err := e.b.Deps.Store.Create(context.Background(), credentials.Profile{Name: "creator", SecretKey: creator.Secret}); err != nil {
		t.Fatal(err)
	}
	args := `{"resourceId":"` + id + `","newCreator":"` + e.sb.Demo.Address + `","profile":"creator"}`
	if out := e.ok("mindvault_transfer_ownership", e.call("mindvault_transfer_ownership", args)); out["changed"] != true {
		t.Fatalf("transfer: %v", out)
	}
	e.faults("")
	if out := e.ok("mindvault_transfer_ownership", e.call("mindvault_transfer_ownership", args)); out["changed"] != false {
		t.Fatalf("repeated transfer: %v", out)
	}
	if n := e.sb.Count("rpc", "sendTransaction"); n != 0 {
		t.Fatalf("the repeated transfer sent %d transactions", n)
	}
}
