// Package beside says, for a file kurabe was asked to read and did not
// find, which files of the same kind are in its directory: the names the
// user may have meant, or, in a directory that holds none, where kurabe's
// own are. Flow files and scenario files both ask it, so that the two
// kinds' "no such file" read alike and are listed the same way.
package beside

import (
	"os"
	"path/filepath"
	"strings"
)

// Kind is a kind of YAML file kurabe reads by path.
type Kind struct {
	// Listed names the files in a listing: "the flow files" gives "the
	// flow files in DIR/ are a.yaml, b.yaml".
	Listed string
	// Own says where kurabe's own files of the kind are, for a directory
	// that holds none.
	Own string
}

// IsYAML says whether a file name is one of a YAML file.
func IsYAML(name string) bool {
	return strings.HasSuffix(name, ".yaml") || strings.HasSuffix(name, ".yml")
}

// Hint says which YAML files the directory of the missing path holds, in
// the order of their names, or where kurabe's own are when it holds none
// (or cannot be read). Directories named like a YAML file are left out.
func (k Kind) Hint(path string) string {
	dir := filepath.Dir(path)
	var names []string
	if ents, err := os.ReadDir(dir); err == nil {
		for _, e := range ents {
			if !e.IsDir() && IsYAML(e.Name()) {
				names = append(names, e.Name())
			}
		}
	}
	if len(names) == 0 {
		return k.Own
	}
	return k.Listed + " in " + dir + string(filepath.Separator) + " are " + strings.Join(names, ", ")
}
