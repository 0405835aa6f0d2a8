package ledger

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Switch is the deployment's spending switch (docs/operations.md "Pausing all spending"): while
// it is paused no instance signs a payment. It lives next to the journal, so every instance
// that shares the ledger shares it.
type Switch interface {
	// Set pauses spending (paused) or lets it start again; pausing a paused switch keeps its
	// first since and by.
	Set(ctx context.Context, paused bool, by string) (Pause, error)
	// State reads the switch; a switch never set is not paused.
	State(ctx context.Context) (Pause, error)
}

// Pause is the switch's state: since when and by whom it was last paused or resumed.
type Pause struct {
	Paused bool      `json:"paused"`
	Since  time.Time `json:"since"`
	By     string    `json:"by"`
}

// The switch's item in the ledger table: one item, plain attributes, never expiring.
const (
	switchPK   = "control#spending"
	attrPaused = "paused"
	attrSince  = "since"
	attrBy     = "by"
	pauseExpr  = "SET #paused = :on, #since = :since, #by = :by"
	pauseCond  = "attribute_not_exists(#paused) OR #paused = :off" // a second pause keeps the first's since and by
	resumeExpr = "SET #paused = :off, #since = :since, #by = :by"
)

// Set implements Switch with one UpdateItem, conditional for a pause.
func (d *Dynamo) Set(ctx context.Context, paused bool, by string) (Pause, error) {
	now := time.Now().UTC()
	// DynamoDB refuses a name or value the expressions do not use: each form gets its own.
	names := map[string]string{"#paused": attrPaused, "#since": attrSince, "#by": attrBy}
	values := map[string]types.AttributeValue{":off": &types.AttributeValueMemberBOOL{Value: false},
		":since": str(now.Format(time.RFC3339Nano)), ":by": str(by)}
	expr, cond := resumeExpr, ""
	if paused {
		expr, cond = pauseExpr, pauseCond
		values[":on"] = &types.AttributeValueMemberBOOL{Value: true}
	}
	_, err := d.updateKey(ctx, switchPK, expr, cond, names, values, "")
	switch {
	case err == nil:
		return Pause{Paused: paused, Since: now, By: by}, nil
	case paused && conditionFailed(err):
		return d.State(ctx) // already paused: its first pause stands
	}
	return Pause{}, d.unavailable("journal write", switchPK, err)
}

// State implements Switch with one strongly consistent GetItem.
func (d *Dynamo) State(ctx context.Context) (Pause, error) {
	it, err := d.getKey(ctx, switchPK)
	if err != nil {
		return Pause{}, d.unavailable("journal read", switchPK, err)
	}
	var p Pause
	if v, ok := it[attrPaused].(*types.AttributeValueMemberBOOL); ok {
		p.Paused = v.Value
	}
	p.By = strValue(it[attrBy])
	if s := strValue(it[attrSince]); s != "" {
		if p.Since, err = time.Parse(time.RFC3339Nano, s); err != nil {
			return Pause{}, d.unavailable("journal read", switchPK, fmt.Errorf("attribute %s: %w", attrSince, err))
		}
	}
	return p, nil
}

// FileSwitch is the switch of a local deployment: a small JSON file (MINDVAULT_PAUSE_FILE) that
// the local server and `mindvault-local spending` both read, or, with no Path, memory.
type FileSwitch struct {
	Path string
	mu   sync.Mutex
	mem  Pause
}

// State implements Switch: a missing file is a switch never set.
func (f *FileSwitch) State(context.Context) (Pause, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.read()
}

func (f *FileSwitch) read() (Pause, error) {
	if f.Path == "" {
		return f.mem, nil
	}
	b, err := os.ReadFile(f.Path)
	if errors.Is(err, os.ErrNotExist) {
		return Pause{}, nil
	}
	var p Pause
	if err == nil {
		err = json.Unmarshal(b, &p)
	}
	if err != nil {
		return Pause{}, fmt.Errorf("%w: pause file %s: %w", ErrUnavailable, f.Path, err)
	}
	return p, nil
}

// Set implements Switch.
func (f *FileSwitch) Set(_ context.Context, paused bool, by string) (Pause, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	cur, err := f.read()
	if err != nil || (paused && cur.Paused) {
		return cur, err
	}
	p := Pause{Paused: paused, Since: time.Now().UTC(), By: by}
	if f.Path == "" {
		f.mem = p
		return p, nil
	}
	// Written aside, then renamed: a reader never sees half a file.
	b, _ := json.Marshal(p)
	err = os.MkdirAll(filepath.Dir(f.Path), 0o700)
	if err == nil {
		err = os.WriteFile(f.Path+".tmp", b, 0o600)
	}
	if err == nil {
		err = os.Rename(f.Path+".tmp", f.Path)
	}
	if err != nil {
		return Pause{}, fmt.Errorf("%w: pause file: %w", ErrUnavailable, err)
	}
	return p, nil
}
