package credentials

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Dir stores one JSON file per profile in a directory, mode 0600 (os.CreateTemp's).
type Dir struct {
	path string
}

// NewDir opens the directory store at path, creating the last folder (mode 0700) when its
// parent exists. A parent that does not exist is refused rather than created: a mistyped path
// must not silently grow a tree somewhere and put wallet secrets in it.
func NewDir(path string) (*Dir, error) {
	parent := filepath.Dir(filepath.Clean(path))
	if st, err := os.Stat(parent); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("dir store %s: its parent folder %s does not exist (create it, or use another path)", path, parent)
	}
	if err := os.Mkdir(path, 0o700); err != nil && !os.IsExist(err) {
		return nil, fmt.Errorf("dir store: %w", err)
	}
	if st, err := os.Stat(path); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("dir store %s is not a folder", path)
	}
	return &Dir{path: path}, nil
}

// Kind implements Store.
func (d *Dir) Kind() string { return "dir" }

// ReadOnly implements Store.
func (d *Dir) ReadOnly() bool { return false }

func (d *Dir) file(name string) string { return filepath.Join(d.path, name+".json") }

// Get implements Store.
func (d *Dir) Get(_ context.Context, name string) (Profile, error) {
	if !ValidName(name) {
		return Profile{}, Missing(d, name, "credentials")
	}
	b, err := os.ReadFile(d.file(name))
	if errors.Is(err, fs.ErrNotExist) {
		return Profile{}, Missing(d, name, "credentials")
	}
	if err != nil {
		return Profile{}, StoreFailure(d, "read a profile", err)
	}
	var p Profile
	if err := json.Unmarshal(b, &p); err != nil {
		return Profile{}, StoreFailure(d, "decode a profile", fmt.Errorf("profile %q is not valid JSON", name))
	}
	p.Name = name
	return loaded(d, p)
}

// List implements Store.
func (d *Dir) List(context.Context) ([]string, error) {
	entries, err := os.ReadDir(d.path)
	if err != nil {
		return nil, StoreFailure(d, "list profiles", err)
	}
	names := []string{}
	for _, e := range entries {
		n, ok := strings.CutSuffix(e.Name(), ".json")
		if ok && e.Type().IsRegular() && ValidName(n) {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	return names, nil
}

// Create implements Store: the complete file is written under a temporary name, then
// hard-linked into place, which fails if the name exists — so creation is exclusive and a
// reader never sees a half-written profile.
func (d *Dir) Create(_ context.Context, p Profile) error {
	if !ValidName(p.Name) {
		return StoreFailure(d, "create a profile", fmt.Errorf("invalid profile name"))
	}
	tmp, err := d.writeTemp(p)
	if err != nil {
		return err
	}
	defer os.Remove(tmp)
	if err := os.Link(tmp, d.file(p.Name)); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return Exists(d, p.Name)
		}
		return StoreFailure(d, "create a profile", err)
	}
	return nil
}

// Discard implements Discarder. The file is first renamed aside — atomic, so no update can
// land between the comparison and the removal — then removed if its bytes are exactly what
// Create wrote for p, or linked back under its name otherwise. If that name was taken again
// in between, the moved file is kept (never lost) and the failure says so.
func (d *Dir) Discard(_ context.Context, p Profile) (bool, error) {
	if !ValidName(p.Name) {
		return false, nil
	}
	f, err := os.CreateTemp(d.path, ".discard-*")
	if err != nil {
		return false, StoreFailure(d, "discard a profile", err)
	}
	aside := f.Name()
	f.Close()
	if err := os.Rename(d.file(p.Name), aside); err != nil {
		os.Remove(aside)
		if errors.Is(err, fs.ErrNotExist) {
			return false, nil
		}
		return false, StoreFailure(d, "discard a profile", err)
	}
	got, err := os.ReadFile(aside)
	if err == nil && bytes.Equal(got, p.encode()) {
		if err := os.Remove(aside); err != nil {
			return false, StoreFailure(d, "discard a profile", err)
		}
		return true, nil
	}
	if err := os.Link(aside, d.file(p.Name)); err != nil {
		return false, StoreFailure(d, "restore a profile it would not discard (kept as "+filepath.Base(aside)+")", err)
	}
	os.Remove(aside)
	return false, nil
}

// Update implements Store: write a temporary file and rename it over the old one.
func (d *Dir) Update(_ context.Context, p Profile) error {
	if !ValidName(p.Name) {
		return Missing(d, p.Name, "credentials")
	}
	if _, err := os.Stat(d.file(p.Name)); err != nil {
		return Missing(d, p.Name, "credentials")
	}
	tmp, err := d.writeTemp(p)
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, d.file(p.Name)); err != nil {
		os.Remove(tmp)
		return StoreFailure(d, "update a profile", err)
	}
	return nil
}

func (d *Dir) writeTemp(p Profile) (string, error) {
	f, err := os.CreateTemp(d.path, ".tmp-*")
	if err != nil {
		return "", StoreFailure(d, "write a profile", err)
	}
	_, err = f.Write(p.encode())
	if err = cmp.Or(err, f.Sync(), f.Close()); err != nil { // every call runs: the file is closed whatever the write did
		os.Remove(f.Name())
		return "", StoreFailure(d, "write a profile", err)
	}
	return f.Name(), nil
}
