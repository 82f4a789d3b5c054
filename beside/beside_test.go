package beside

import (
	"os"
	"path/filepath"
	"testing"
)

func TestHint(t *testing.T) {
	k := Kind{Listed: "the things", Own: "kurabe's own things are elsewhere"}
	dir := t.TempDir()
	for _, name := range []string{"b.yml", "a.yaml", "notes.txt", "c.yaml.bak"} {
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "d.yaml"), 0o755); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ path, want string }{
		// .yaml and .yml files, by name; other files and a directory
		// named like a YAML file are not listed.
		{filepath.Join(dir, "nosuch.yaml"), "the things in " + dir + "/ are a.yaml, b.yml"},
		// A directory with no YAML file: where kurabe's own are.
		{filepath.Join(empty, "nosuch.yaml"), "kurabe's own things are elsewhere"},
		// A directory that is not there either.
		{filepath.Join(dir, "gone", "nosuch.yaml"), "kurabe's own things are elsewhere"},
	} {
		if got := k.Hint(c.path); got != c.want {
			t.Errorf("%s: got %q, want %q", c.path, got, c.want)
		}
	}
}

func TestIsYAML(t *testing.T) {
	for name, want := range map[string]bool{"a.yaml": true, "a.yml": true, "a.yaml.bak": false, "yaml": false, "a.json": false} {
		if got := IsYAML(name); got != want {
			t.Errorf("IsYAML(%q) = %v, want %v", name, got, want)
		}
	}
}
