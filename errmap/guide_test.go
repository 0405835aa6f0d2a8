package errmap

import (
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"strings"
	"testing"
)

// testGuides stands in for the tools layer's: the roles the shared sentences name, under the
// names the real tools have, so the golden Next lines read as the endpoint's do. Each real
// tool's own sentences and traits are declared, and tested, in internal/tools.
var testGuides = func() *Guides {
	byTool := map[string]Guide{}
	for tool, role := range map[string]Role{
		"mindvault_wallet_info":       RoleWallet,
		"mindvault_list_profiles":     RoleProfiles,
		"mindvault_setup_wallet":      RoleNewWallet,
		"mindvault_browse":            RoleFind,
		"mindvault_search":            RoleFind,
		"mindvault_preview":           RolePrice,
		"mindvault_buy":               RoleBuy,
		"mindvault_purchase_history":  RoleHistory,
		"mindvault_check_consistency": RoleCompare,
		"mindvault_registry_lookup":   RoleEntry,
		"mindvault_registry_info":     RoleContract,
		"mindvault_register_onchain":  RoleRegisterOnchain,
		"mindvault_tx_status":         RoleTxStatus,
		"mindvault_network_profile":   RoleServices,
	} {
		byTool[tool] = Guide{Role: role}
	}
	return NewGuides(byTool)
}()

// nextContract is the contract category's sentence with the stand-in roles.
const nextContract = "Verify the contract ID and network with mindvault_registry_info."

// TestGuideRefines: a tool's declared sentences and traits refine the shared advice in the
// documented order, and a role no tool plays, or the failing tool's own, is left out.
func TestGuideRefines(t *testing.T) {
	table := &Guides{roles: map[Role][]string{RoleFind: {"find_a", "find_b"}, RoleWallet: {"wallet"}}}
	cases := []struct {
		name string
		in   nextInput
		want string
	}{
		{"code sentence wins over the code's", nextInput{code: CodeInsufficientUSDC, cat: CategoryPayment, tool: "t",
			guide: Guide{Codes: map[string]string{CodeInsufficientUSDC: "Own."}}, guides: table}, "Own."},
		{"code's sentence wins over the category sentence", nextInput{code: CodeInsufficientUSDC, cat: CategoryPayment, tool: "t",
			guide: Guide{Categories: map[Category]string{CategoryPayment: "Own."}}, guides: table},
			"Fund the wallet with USDC (wallet shows its balance), then call t again."},
		{"category sentence for a code with none", nextInput{code: CodePaymentRequired, cat: CategoryPayment, tool: "t",
			guide: Guide{Categories: map[Category]string{CategoryPayment: "Own."}}, guides: table}, "Own."},
		{"an unknown outcome wins over the tool", nextInput{code: CodeInsufficientUSDC, cat: CategoryPayment, tool: "t", state: StateUnknown,
			guide: Guide{Codes: map[string]string{CodeInsufficientUSDC: "Own."}}, guides: table},
			"Check the current state before calling t again, and do not repeat it blindly: the outcome is unknown."},
		{"several tools in a role", nextInput{code: CodeNotFound, cat: CategoryNotFound, tool: "t", guides: table},
			"Confirm the id with find_a or find_b, then call t with it."},
		{"the failing tool's own role left out", nextInput{code: CodeInsufficientUSDC, cat: CategoryPayment, tool: "wallet", guides: table},
			"Fund the wallet with USDC, then call wallet again."},
		{"a role nobody plays left out", nextInput{code: CodePriceChanged, cat: CategoryPayment, tool: "t", guides: table},
			"Check the new price, then call t again."},
		{"nothing declared", nextInput{code: CodeCredentialsMissing, cat: CategoryAuth, tool: "t"},
			"Pass a profile that exists and has a wallet, then call t again."},
		{"one of two roles", nextInput{code: CodeCredentialsMissing, cat: CategoryAuth, tool: "t",
			guides: &Guides{roles: map[Role][]string{RoleNewWallet: {"new"}}}},
			"Pass a profile that exists and has a wallet (new creates one), then call t again."},
		{"no id", nextInput{code: CodeNotFound, cat: CategoryNotFound, tool: "t", guide: Guide{NoID: true}, guides: table},
			"Ask the operator to check the service URLs this endpoint uses: the route was not found."},
		{"a profile", nextInput{code: CodeForbidden, cat: CategoryAuth, tool: "t", guide: Guide{Profile: true}, guides: table},
			"Pass a profile your access token may use, then call t again."},
		{"a creator's write", nextInput{code: CodeForbidden, cat: CategoryAuth, tool: "t", guide: Guide{CreatorWrite: true, Profile: true}, guides: table},
			"Pass the profile of the resource's creator, the wallet that registered it, then call t again."},
		{"no buyer of a repeat", nextInput{code: CodeAlreadyPurchased, cat: CategoryConflict, tool: "t", guides: table},
			"Use your earlier purchase, or buy it again with allowRepeat: true."},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := advise(c.in); got != c.want {
				t.Errorf("Next = %q\nwant   %q", got, c.want)
			}
		})
	}
}

// TestNewGuidesRefusesBugs: a Guide that could not be what its tool meant fails at start.
func TestNewGuidesRefusesBugs(t *testing.T) {
	for _, c := range []struct {
		name, tool string
		g          Guide
	}{
		{"not a tool name", "two words", Guide{}},
		{"undocumented code", "guide_test_a", Guide{Codes: map[string]string{"MADE_UP": "Do it."}}},
		{"empty code sentence", "guide_test_b", Guide{Codes: map[string]string{CodeNotFound: " "}}},
		{"undocumented category", "guide_test_c", Guide{Categories: map[Category]string{"weird": "Do it."}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Errorf("NewGuides(%q) accepted %+v", c.tool, c.g)
				}
			}()
			NewGuides(map[string]Guide{c.tool: c.g})
		})
	}
}

// TestTxStatusAction: the lookup step names the tool that plays the role, and a pending
// transaction's failure carries it.
func TestTxStatusAction(t *testing.T) {
	a := testGuides.TxStatusAction(testTxHash)
	if a == nil || a.Tool != "mindvault_tx_status" || a.Arguments["txHash"] != testTxHash {
		t.Fatalf("%+v", a)
	}
	if got := (*Guides)(nil).TxStatusAction(testTxHash); got != nil || !strings.Contains(jsonOf(t, a), testTxHash) {
		t.Errorf("%v", got)
	}
	f := FromError(MarkPending(errors.New("lost"), testTxHash), Call{Guides: testGuides, Tool: "mindvault_set_price"})
	if na := f.Diagnostic.NextAction; na == nil || na.Tool != "mindvault_tx_status" {
		t.Errorf("a pending transaction's next action is %+v", na)
	}
}

// TestRolesListsEveryRole: Roles() holds every Role constant guide.go declares, so the tools
// layer's check that each role is played sees a new one.
func TestRolesListsEveryRole(t *testing.T) {
	file, err := parser.ParseFile(token.NewFileSet(), "guide.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	declared := 0
	for _, d := range file.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, spec := range g.Specs {
			v := spec.(*ast.ValueSpec)
			if id, ok := v.Type.(*ast.Ident); !ok || id.Name != "Role" {
				continue
			}
			for _, val := range v.Values {
				role := Role(strings.Trim(val.(*ast.BasicLit).Value, `"`))
				declared++
				if !slices.Contains(Roles(), role) {
					t.Errorf("Roles() lacks %s", role)
				}
			}
		}
	}
	if declared != len(Roles()) || declared == 0 {
		t.Errorf("%d roles declared, Roles() has %d", declared, len(Roles()))
	}
}

// TestIsToolNameIsToolRE: NewGuides' check without a pattern accepts exactly what toolRE does.
func TestIsToolNameIsToolRE(t *testing.T) {
	long := strings.Repeat("a", 128)
	for _, s := range []string{"", "mindvault_buy", "a.b-c_D9", "bad name", "tool/x", "ü", long, long + "a", "-", "x\n"} {
		if got, want := isToolName(s), toolRE.MatchString(s); got != want {
			t.Errorf("isToolName(%q) = %v, toolRE says %v", s, got, want)
		}
	}
}
