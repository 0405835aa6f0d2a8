package sandbox

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestParseFaultsValid(t *testing.T) {
	tests := []struct {
		name string
		plan string
		want []Fault
	}{
		{"empty", "  ", nil},
		{"status with defaults", "service=api,target=GET /resources,kind=status,status=503",
			[]Fault{{Service: "api", Target: "GET /resources", Kind: "status", Status: 503}}},
		{"whitespace, case and trailing separators", " service = horizon , target = get  /accounts/* , kind = HTML , status = 502 ; ",
			[]Fault{{Service: "horizon", Target: "GET /accounts/*", Kind: "html", Status: 502}}},
		{"target defaults to all", "service=rpc,kind=drop",
			[]Fault{{Service: "rpc", Target: "*", Kind: "drop"}}},
		{"all options", "service=api,target=* /resources/*/meta,kind=status,status=429,count=2,retry-after=3,header=X-A:1,header=x-b: two",
			[]Fault{{Service: "api", Target: "* /resources/*/meta", Kind: "status", Status: 429, Count: 2, RetryAfter: "3",
				Headers: []Header{{"X-A", "1"}, {"X-B", "two"}}}}},
		{"two rules", "service=rpc,target=getHealth,kind=rpcerror,code=-32603,message=data stores are not initialized;service=horizon,kind=delay,delay=1500ms",
			[]Fault{{Service: "rpc", Target: "getHealth", Kind: "rpcerror", Code: -32603, Message: "data stores are not initialized"},
				{Service: "horizon", Target: "*", Kind: "delay", Delay: 1500 * time.Millisecond}}},
		{"json form", `[{"service":"api","target":"GET /resources","kind":"status","status":500,"body":"{\"error\":\"a, b\"}","header":["X-A: 1"]},
			{"service":"rpc","kind":"rpcerror","code":"-32001","count":1,"retry-after":"Wed, 21 Oct 2015 07:28:00 GMT"}]`,
			[]Fault{{Service: "api", Target: "GET /resources", Kind: "status", Status: 500, Body: `{"error":"a, b"}`, Headers: []Header{{"X-A", "1"}}},
				{Service: "rpc", Target: "*", Kind: "rpcerror", Code: -32001, Count: 1, RetryAfter: "Wed, 21 Oct 2015 07:28:00 GMT"}}},
		{"malformed with a body", "service=horizon,target=GET /,kind=malformed,body=[1]",
			[]Fault{{Service: "horizon", Target: "GET /", Kind: "malformed", Body: "[1]"}}},
		{"custody kinds target POST /create", "service=sponsor,kind=ownkey;service=sponsor,target=POST /create,kind=cosigner,count=1",
			[]Fault{{Service: "sponsor", Target: "POST /create", Kind: "ownkey"},
				{Service: "sponsor", Target: "POST /create", Kind: "cosigner", Count: 1}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseFaults(tt.plan)
			if err != nil {
				t.Fatalf("ParseFaults: %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestParseFaultsInvalid(t *testing.T) {
	tests := []struct{ plan, want string }{
		{"kind=status,status=500", `rule 1 ("kind=status,status=500"): service: required`},
		{"service=api,kind=drop;service=db,kind=drop", `rule 2 ("service=db,kind=drop"): service: unknown service "db"`},
		{"service=api", "kind: required"},
		{"service=api,kind=explode", `kind: unknown kind "explode"`},
		{"service=horizon,kind=cosigner", "kind: cosigner is only for service=sponsor"},
		{"service=sponsor,target=GET /health,kind=ownkey", "target: kind=ownkey applies to POST /create"},
		{"service=api,kind=status", "status: required with kind=status"},
		{"service=api,kind=status,status=abc", "status: want an HTTP status"},
		{"service=api,kind=status,status=99", "status: want an HTTP status"},
		{"service=api,kind=html", "status: required with kind=html"},
		{"service=api,kind=empty,status=504,body=x", "body: not allowed with kind=empty"},
		{"service=api,kind=status,status=500,body=", "body: empty"},
		{"service=api,kind=rpcerror,code=1", "kind: rpcerror is only for service=rpc"},
		{"service=rpc,kind=rpcerror", "code: required with kind=rpcerror"},
		{"service=rpc,kind=rpcerror,code=x", "code: want an integer"},
		{"service=rpc,kind=delay", "delay: required with kind=delay"},
		{"service=rpc,kind=delay,delay=soon", "delay: want a positive Go duration"},
		{"service=rpc,kind=delay,delay=-1s", "delay: want a positive Go duration"},
		{"service=api,kind=drop,count=0", "count: want an integer ≥ 1"},
		{"service=api,kind=drop,header=X:1", "header: has no effect with kind=drop"},
		{"service=api,kind=drop,retry-after=1", "retry-after: not allowed with kind=drop"},
		{"service=api,kind=status,status=429,retry-after=soon", "retry-after: want seconds"},
		{"service=api,kind=status,status=500,header=NoColon", "header: want Name:Value"},
		{"service=api,kind=status,status=500,colour=red", "colour: unknown key"},
		{"service=api,kind=status,status=500,status=501", "status: given twice"},
		{"service=api,kind=status,status=500,oops", "oops: want key=value"},
		{"service=api,target=/resources,kind=drop", `target: want "METHOD /path"`},
		{"service=api,target=GET resources,kind=drop", `target: want "METHOD /path"`},
		{"service=api,target=GET /a?b=1,kind=drop", `target: want "METHOD /path"`},
		{"service=rpc,target=POST /,kind=drop", "target: for service=rpc want a JSON-RPC method name"},
		{"service=api,kind=malformed,message=x", "message: not allowed with kind=malformed"},
		{"service=api,kind=status,status=503,retry-after=Wed, 21 Oct 2015 07:28:00 GMT", "want key=value"}, // a date's comma needs the JSON form
		{`[{"service":"api","kind":"status","status":true}]`, "rule 1 (\"JSON object 1\"): status: want a string or a number"},
		{`[{"service":"api","kind":"drop"},{"service":"api","kind":"status"}]`, `rule 2 ("JSON object 2"): status: required`},
		{`[{"service":"api"`, "JSON form"},
	}
	for _, tt := range tests {
		t.Run(tt.plan, func(t *testing.T) {
			_, err := ParseFaults(tt.plan)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("ParseFaults(%q) = %v, want an error containing %q", tt.plan, err, tt.want)
			}
		})
	}
}

func TestMatchTarget(t *testing.T) {
	tests := []struct {
		pattern, key string
		want         bool
	}{
		{"*", "GET /anything", true},
		{"*", "getHealth", true},
		{"GET /resources", "GET /resources", true},
		{"GET /resources", "POST /resources", false},
		{"* /resources", "POST /resources", true},
		{"GET /resources/*/meta", "GET /resources/rustguide/meta", true},
		{"GET /resources/*/meta", "GET /resources/rustguide/verification", false},
		{"GET /resources/*", "GET /resources/a/meta", false}, // * is exactly one segment
		{"GET /", "GET /", true},
		{"GET /", "GET /accounts", false},
		{"getHealth", "getHealth", true},
		{"getHealth", "getNetwork", false},
	}
	for _, tt := range tests {
		if got := matchTarget(tt.pattern, tt.key); got != tt.want {
			t.Errorf("matchTarget(%q, %q) = %v, want %v", tt.pattern, tt.key, got, tt.want)
		}
	}
}

func TestStartRejectsBadPlan(t *testing.T) {
	if _, err := Start(Options{Faults: "service=api,kind=nope"}); err == nil {
		t.Fatal("Start accepted an invalid plan")
	}
	sb, _ := start(t, "")
	if err := sb.SetFaults("service=api"); err == nil {
		t.Fatal("SetFaults accepted an invalid plan")
	}
}

// The examples in doc.go must stay valid.
func TestDocExamplesParse(t *testing.T) {
	for _, plan := range []string{
		"service=api,target=GET /resources,kind=status,status=503,count=1",
		"service=api,target=GET /resources/*/meta,kind=status,status=429,retry-after=2",
		"service=horizon,target=GET /accounts/*,kind=html,status=502",
		"service=horizon,target=GET /accounts/*,kind=malformed",
		"service=horizon,kind=empty,status=504; service=rpc,target=getHealth,kind=drop",
		"service=rpc,target=getTransaction,kind=rpcerror,code=-32603,message=data stores are not initialized",
		"service=rpc,target=getLatestLedger,kind=delay,delay=30s",
		"service=rpc,kind=status,status=429,retry-after=1,header=X-Provider:gateway",
		"service=api,target=GET /resources/*,kind=status,status=503,paid=true,count=1",
		"service=api,target=POST /verify-content,kind=drop,paid=true",
		"service=sponsor,target=POST /create,kind=status,status=429,retry-after=5",
		`[{"service":"api","target":"GET /resources","kind":"status","status":500,"body":"{\"error\":\"a, b\"}"}]`,
	} {
		if _, err := ParseFaults(plan); err != nil {
			t.Errorf("%s: %v", plan, err)
		}
	}
}

// Every kind of the table parses as the table describes it: with its required keys on each
// service it names (its default target filled in), not without them, and not on another
// service; every key it names is a key the parser knows.
func TestFaultKindsTable(t *testing.T) {
	values := map[string]string{"status": "503", "code": "6", "delay": "1s", "body": "x", "message": "m"}
	services := []string{ServiceAPI, ServiceHorizon, ServiceRPC, ServiceSponsor}
	for _, k := range FaultKinds {
		t.Run(k.Name, func(t *testing.T) {
			for _, key := range append(append(slices.Clone(k.Needs), k.Allows...), k.Forbids...) {
				if !isKnownKey(key) {
					t.Errorf("names the unknown key %q", key)
				}
			}
			rule := func(service string, needs []string) string {
				r := "service=" + service + ",kind=" + k.Name
				for _, key := range needs {
					r += "," + key + "=" + values[key]
				}
				return r
			}
			for _, sv := range services {
				applies := k.Services == nil || slices.Contains(k.Services, sv)
				got, err := ParseFaults(rule(sv, k.Needs))
				switch {
				case applies && err != nil:
					t.Errorf("%s: %v", sv, err)
				case applies && k.Targets != nil && got[0].Target != k.Targets[0]:
					t.Errorf("%s: target %q, want the default %q", sv, got[0].Target, k.Targets[0])
				case !applies && err == nil:
					t.Errorf("accepted on service=%s", sv)
				}
				if applies && len(k.Needs) > 0 {
					if _, err := ParseFaults(rule(sv, nil)); err == nil {
						t.Errorf("%s: accepted without %v", sv, k.Needs)
					}
				}
			}
		})
	}
	if !strings.Contains(FaultKindsMarkdown(), "| `cosigner` | `sponsor` (`POST /create`) | - |") {
		t.Fatalf("table:\n%s", FaultKindsMarkdown())
	}
}
