package e2e_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/mindvault/mcp-endpoint/internal/credentials"
)

// nextActionOf reads the diagnostic's nextAction (nil when absent).
func nextActionOf(t *testing.T, r result) map[string]any {
	t.Helper()
	var resp struct {
		Result struct {
			Meta struct {
				Diag struct {
					NextAction map[string]any `json:"nextAction"`
				} `json:"io.mindvault/error"`
			} `json:"_meta"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(r.raw), &resp); err != nil {
		t.Fatal(err)
	}
	return resp.Result.Meta.Diag.NextAction
}

// actionResource is the resourceId argument of a nextAction ("" when there is none).
func actionResource(act map[string]any) string {
	args, _ := act["arguments"].(map[string]any)
	id, _ := args["resourceId"].(string)
	return id
}

// resumeAction is the nextAction a publish failure must carry for resource id.
func resumeAction(tool, id string, extra map[string]any) map[string]any {
	args := map[string]any{"resourceId": id}
	for k, v := range extra {
		args[k] = v
	}
	return map[string]any{"tool": tool, "arguments": args}
}

// publisherProfile stores a seeded account (or, with account "", a wallet whose account does
// not exist) as profile name and registers it as a publisher through the tool.
func publisherProfile(e *env, name, account string) credentials.Profile {
	e.t.Helper()
	if account == "" {
		if err := e.b.Deps.Store.Create(context.Background(), credentials.Profile{Name: name, SecretKey: newSeed(e.t)}); err != nil {
			e.t.Fatal(err)
		}
	} else {
		addProfile(e, name, account, "")
	}
	e.ok("mindvault_register", e.call("mindvault_register", `{"name":"`+name+` Publisher","email":"`+name+`@example.org","profile":"`+name+`"}`))
	p, err := e.b.Deps.Store.Get(context.Background(), name)
	if err != nil || p.APIKey == "" {
		e.t.Fatalf("profile %s has no API key: %v", name, err)
	}
	return p
}

// strand creates a resource straight through the API, as a publish that stopped after its
// first step left it: created, fee never paid.
func strand(e *env, apiKey, title string) string {
	e.t.Helper()
	body := `{"title":"` + title + `","price":"1","externalUrl":"https://example.org/` + strings.ToLower(strings.ReplaceAll(title, " ", "-")) + `"}`
	req, _ := http.NewRequest(http.MethodPost, e.sb.APIURL+"/resources", bytes.NewReader([]byte(body)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("x-api-key", apiKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	var created struct {
		ID string `json:"id"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&created); err != nil || resp.StatusCode != http.StatusCreated {
		e.t.Fatalf("create: HTTP %d %v", resp.StatusCode, err)
	}
	return created.ID
}

// writes counts the POST requests the API saw on the publishing routes.
func writes(e *env) int {
	n := 0
	for _, target := range []string{"POST /resources", "POST /resources/*/register", "POST /verify-content", "POST /publishers"} {
		n += e.sb.Count("api", target)
	}
	return n
}

func stepStatuses(out map[string]any) string {
	var s []string
	for _, st := range out["steps"].([]any) {
		m := st.(map[string]any)
		s = append(s, m["name"].(string)+"="+m["status"].(string))
	}
	return strings.Join(s, " ")
}

// TestPublishRefusesBeforeStranding: a wallet that cannot pay the verification fee fails the
// dry run and the real call with the same code, before anything is created or paid.
func TestPublishRefusesBeforeStranding(t *testing.T) {
	e := newEnv(t, nil)
	publisherProfile(e, "zero", "zero")
	publisherProfile(e, "notrust", "notrust")
	publisherProfile(e, "nowhere", "")
	const args = `{"title":"Stranded Notes","price":"1","externalUrl":"https://example.org/stranded","profile":"%s"%s}`
	cases := []struct {
		profile, code, category string
	}{
		{"zero", "INSUFFICIENT_USDC", "payment"},
		{"notrust", "TRUSTLINE_MISSING", "payment"},
		{"nowhere", "ACCOUNT_MISSING", "not_found"},
	}
	for _, tc := range cases {
		for _, dry := range []bool{true, false} {
			name := tc.profile + " real call"
			extra := ""
			if dry {
				name, extra = tc.profile+" dry run", `,"dryRun":true`
			}
			t.Run(name, func(t *testing.T) {
				e := e.in(t)
				e.faults("")
				r := e.call("mindvault_publish", fmt.Sprintf(args, tc.profile, extra))
				e.fails("mindvault_publish", r, failure{category: tc.category, code: tc.code, source: "x402"})
				if r.Meta.Diag.ExecutionStarted {
					t.Error("a refusal before creating must not count as started")
				}
				if n := e.sb.Count("api", "POST /resources"); n != 0 {
					t.Fatalf("the API saw %d POST /resources, want 0", n)
				}
				if n := e.sb.PaidRequests("*"); n != 0 {
					t.Fatalf("a payment was sent (%d)", n)
				}
				if e.sb.Count("api", "GET /agent/status") != 1 || e.sb.Count("horizon", "GET /accounts/*") != 1 {
					t.Fatal("the check must read the current fee and the wallet")
				}
			})
		}
	}
	t.Run("a wallet that can pay passes the dry run with the fee and its balance", func(t *testing.T) {
		e := e.in(t)
		e.faults("")
		demo, _ := e.b.Deps.Store.Get(context.Background(), "demo")
		demo.APIKey = e.sb.DemoAPIKey
		if err := e.b.Deps.Store.Update(context.Background(), demo); err != nil {
			t.Fatal(err)
		}
		out := e.ok("mindvault_publish", e.call("mindvault_publish", `{"title":"Fine","price":"1","externalUrl":"https://example.org/fine","dryRun":true}`))
		if out["feeUsdc"] != "0.1000000" || out["usdcBalance"] == nil || stepStatuses(out) != "create=planned verify=planned register=planned" {
			t.Fatalf("dry run: %v", out)
		}
		if writes(e) != 0 {
			t.Fatal("a dry run sent a write")
		}
	})
	t.Run("a dry run on mainnet needs the confirmation too", func(t *testing.T) {
		e := e.in(t)
		e.faults("")
		e.b.Config.Network = "mainnet"
		defer func() { e.b.Config.Network = "sandbox" }()
		e.fails("mindvault_publish", e.call("mindvault_publish", `{"title":"Main","price":"1","externalUrl":"https://example.org/main","dryRun":true}`),
			failure{category: "validation", code: "MAINNET_NOT_CONFIRMED", source: "request"})
	})
	t.Run("title, price and externalUrl, or resourceId alone", func(t *testing.T) {
		e := e.in(t)
		for args, paths := range map[string][]string{
			`{}`:            {"/title", "/price", "/externalUrl"},
			`{"title":"t"}`: {"/price", "/externalUrl"},
			`{"resourceId":"r1","title":"t","description":"d"}`: {"/title", "/description"},
		} {
			r := e.call("mindvault_publish", args)
			e.fails("mindvault_publish", r, failure{category: "validation", code: "INVALID_ARGUMENTS", source: "request"})
			var got []string
			var resp struct {
				Result struct {
					Meta struct {
						Diag struct {
							Issues []struct{ Path string } `json:"issues"`
						} `json:"io.mindvault/error"`
					} `json:"_meta"`
				} `json:"result"`
			}
			_ = json.Unmarshal([]byte(r.raw), &resp)
			for _, is := range resp.Result.Meta.Diag.Issues {
				got = append(got, is.Path)
			}
			if !reflect.DeepEqual(got, paths) {
				t.Errorf("%s: issues at %v, want %v", args, got, paths)
			}
		}
	})
}

// TestPublishResume: a failure after creation names the steps done and the resume call; the
// resume runs only the missing steps, and publish_status says what the resource waits for.
func TestPublishResume(t *testing.T) {
	e := newEnv(t, nil)
	demo, _ := e.b.Deps.Store.Get(context.Background(), "demo")
	demo.APIKey = e.sb.DemoAPIKey
	if err := e.b.Deps.Store.Update(context.Background(), demo); err != nil {
		t.Fatal(err)
	}

	t.Run("the fee payment fails after creation, the resume pays once and finishes", func(t *testing.T) {
		e := e.in(t)
		e.faults("service=api,target=POST /verify-content,paid=true,kind=status,status=402,header=PAYMENT-REQUIRED:" + verifyRefused("invalid_exact_stellar_payload_simulation_failed"))
		r := e.call("mindvault_publish", `{"title":"Paid Later","price":"1","externalUrl":"https://example.org/later-paid","profile":"demo"}`)
		e.fails("mindvault_publish", r, failure{category: "payment", code: "PAYMENT_SIMULATION_FAILED", source: "x402", status: 402, state: "yes", retry: "no"})
		if e.sb.Count("api", "POST /resources") != 1 || e.sb.PaidRequests("POST /verify-content") != 1 {
			t.Fatal("want one creation and one paid verification")
		}
		act := nextActionOf(t, r)
		id := actionResource(act)
		if want := resumeAction("mindvault_publish_status", id, nil); id == "" || !reflect.DeepEqual(act, want) {
			t.Fatalf("nextAction %v, want %v", act, want)
		}
		if line := r.Content[0].Text; !strings.Contains(line, "resource "+id+" was created; its verification fee was not paid") {
			t.Fatalf("the failure does not say which steps are done: %s", line)
		}

		st := e.ok("mindvault_publish_status", e.call("mindvault_publish_status", `{"resourceId":"`+id+`","waitSeconds":30}`))
		if st["waitingFor"] != "fee" || st["settled"] != false || st["timedOut"] != false || st["attempts"] != float64(1) ||
			!strings.HasPrefix(st["message"].(string), "Waiting for the verification fee, not for verification") ||
			!strings.Contains(st["message"].(string), `mindvault_publish {"resourceId":"`+id+`"}`) {
			t.Fatalf("publish_status of a resource without its fee: %v", st)
		}

		e.faults("")
		before := usdc(e, e.sb.Demo.Address)
		// The status (the failure's look) names the resume call, which pays the fee.
		resume := st["nextAction"].(map[string]any)
		argsJSON, _ := json.Marshal(resume["arguments"])
		out := e.ok("mindvault_publish", e.call(resume["tool"].(string), string(argsJSON)))
		if stepStatuses(out) != "create=skipped verify=done register=done" || out["verificationStatus"] != "verified" ||
			out["onchainStatus"] != "registered" || out["feePaidUsdc"] != "0.1000000" || out["nextAction"] != nil {
			t.Fatalf("resume: %v", out)
		}
		if e.sb.Count("api", "POST /resources") != 0 || e.sb.PaidRequests("POST /verify-content") != 1 || e.sb.Count("api", "POST /resources/*/register") != 1 {
			t.Fatalf("resume sent %d creations, %d paid verifications, %d registrations; want 0, 1, 1",
				e.sb.Count("api", "POST /resources"), e.sb.PaidRequests("POST /verify-content"), e.sb.Count("api", "POST /resources/*/register"))
		}
		if got := new(big.Rat).Sub(before, usdc(e, e.sb.Demo.Address)); got.Cmp(rat("0.1")) != 0 {
			t.Fatalf("the resume moved %s USDC, want the fee 0.1", got.FloatString(7))
		}
		if _, ok := e.sb.RegistryResource(id); !ok {
			t.Fatal("the resumed resource is not on chain")
		}

		e.faults("")
		again := e.ok("mindvault_publish", e.call("mindvault_publish", `{"resourceId":"`+id+`"}`))
		if !strings.HasPrefix(again["message"].(string), "Nothing to resume") || stepStatuses(again) != "create=skipped verify=skipped register=skipped" {
			t.Fatalf("a second resume: %v", again)
		}
		if e.sb.PaidRequests("*") != 0 || writes(e) != 0 {
			t.Fatal("a finished resource was paid for or written again")
		}
	})

	t.Run("registration fails, the resume registers only", func(t *testing.T) {
		e := e.in(t)
		e.faults("service=api,target=POST /resources/*/register,kind=status,status=502,count=1")
		out := e.ok("mindvault_publish", e.call("mindvault_publish", `{"title":"Register Later","price":"1","externalUrl":"https://example.org/register-later"}`))
		id := out["resourceId"].(string)
		if out["onchainStatus"] != "failed" || !reflect.DeepEqual(out["nextAction"], resumeAction("mindvault_publish", id, nil)) {
			t.Fatalf("publish with a failed registration: %v", out)
		}
		st := e.ok("mindvault_publish_status", e.call("mindvault_publish_status", `{"resourceId":"`+id+`"}`))
		if st["waitingFor"] != "registration" || !reflect.DeepEqual(st["nextAction"], resumeAction("mindvault_publish", id, nil)) {
			t.Fatalf("publish_status after a failed registration: %v", st)
		}

		e.faults("")
		dry := e.ok("mindvault_publish", e.call("mindvault_publish", `{"resourceId":"`+id+`","dryRun":true}`))
		if stepStatuses(dry) != "create=skipped verify=skipped register=planned" || writes(e) != 0 {
			t.Fatalf("dry resume: %v", dry)
		}
		res := e.ok("mindvault_publish", e.call("mindvault_publish", `{"resourceId":"`+id+`"}`))
		if stepStatuses(res) != "create=skipped verify=skipped register=done" || res["onchainStatus"] != "registered" {
			t.Fatalf("resume: %v", res)
		}
		if e.sb.PaidRequests("*") != 0 || e.sb.Count("api", "POST /resources") != 0 || e.sb.Count("api", "POST /resources/*/register") != 1 {
			t.Fatal("the resume must register only: no fee, no creation, one registration")
		}
	})

	t.Run("a resource stranded without funds", func(t *testing.T) {
		e := e.in(t)
		e.faults("")
		zero := publisherProfile(e, "broke", "zero")
		id := strand(e, zero.APIKey, "Stranded Guide")
		st := e.ok("mindvault_publish_status", e.call("mindvault_publish_status", `{"resourceId":"`+id+`"}`))
		if st["waitingFor"] != "fee" {
			t.Fatalf("status of a stranded resource: %v", st)
		}
		r := e.call("mindvault_publish", `{"resourceId":"`+id+`","profile":"broke"}`)
		e.fails("mindvault_publish", r, failure{category: "payment", code: "INSUFFICIENT_USDC", source: "x402",
			next: "then call mindvault_publish with resourceId " + id})
		if e.sb.PaidRequests("*") != 0 {
			t.Fatal("paid from a wallet that cannot")
		}
		zeroAcct, _ := e.sb.Account("zero")
		if err := e.sb.Fund(zeroAcct.Address, 1_0000000); err != nil {
			t.Fatal(err)
		}
		out := e.ok("mindvault_publish", e.call("mindvault_publish", `{"resourceId":"`+id+`","profile":"broke"}`))
		if stepStatuses(out) != "create=skipped verify=done register=done" || e.sb.PaidRequests("POST /verify-content") != 1 {
			t.Fatalf("resume after funding: %v", out)
		}
	})

	t.Run("a payment with an unknown outcome points to the status, not to paying again", func(t *testing.T) {
		e := e.in(t)
		e.faults("service=api,target=POST /verify-content,paid=true,kind=drop")
		r := e.call("mindvault_publish", `{"title":"Unknown Fee","price":"1","externalUrl":"https://example.org/unknown-fee"}`)
		e.fails("mindvault_publish", r, failure{category: "network", code: "NETWORK_ERROR", source: "x402", state: "unknown", retry: "no"})
		act := nextActionOf(t, r)
		id := actionResource(act)
		if act["tool"] != "mindvault_publish_status" || id == "" || !strings.Contains(r.Content[0].Text, "do not pay its fee again before") {
			t.Fatalf("nextAction %v: %s", act, r.Content[0].Text)
		}
	})

	t.Run("nothing to resume, someone else's, unknown", func(t *testing.T) {
		e := e.in(t)
		e.faults("")
		out := e.ok("mindvault_publish", e.call("mindvault_publish", `{"resourceId":"llmprompts"}`))
		if !strings.HasPrefix(out["message"].(string), "Nothing to resume") {
			t.Fatalf("a finished resource: %v", out)
		}
		r := e.call("mindvault_publish", `{"resourceId":"sorobanaudit"}`) // waits for its fee, but it is Northwind's
		e.fails("mindvault_publish", r, failure{category: "auth", code: "FORBIDDEN", source: "api", next: "Only its publisher can resume it"})
		e.fails("mindvault_publish", e.call("mindvault_publish", `{"resourceId":"nosuchresource"}`),
			failure{category: "not_found", code: "NOT_FOUND", source: "api", status: 404})
		if e.sb.PaidRequests("*") != 0 || writes(e) != 0 || e.sb.Count("api", "GET /agent/status") != 0 {
			t.Fatal("a resume with nothing to do (or nothing it may do) read the fee, paid or wrote")
		}
	})
}
