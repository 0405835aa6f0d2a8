package docs

import (
	"os"
	"testing"
)

// TestREADMEIsCurrent fails when the README's generated sections differ from the code.
// Regenerate on purpose with UPDATE_README=1 go test ./internal/docs/ (or make docs).
func TestREADMEIsCurrent(t *testing.T) {
	const path = "../../README.md"
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want, err := Render(string(b))
	if err != nil {
		t.Fatal(err)
	}
	if os.Getenv("UPDATE_README") == "1" {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if want != string(b) {
		t.Fatal("README.md's generated tool table or error-code list is stale: run make docs")
	}
}
