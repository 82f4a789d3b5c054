package store

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"unicode/utf8"
)

// IndexName returns kurabe_<table>_<columns joined by _>, the name SQL
// stores give a secondary index. When that is longer than max bytes (a
// server's identifier limit) it keeps the start, cut at a character
// boundary, and ends in _ and 8 hex digits of the whole name's SHA-256, so
// the name is the same at every Setup and two long names stay apart.
func IndexName(table string, cols []string, max int) string {
	name := "kurabe_" + table + "_" + strings.Join(cols, "_")
	if len(name) <= max {
		return name
	}
	sum := sha256.Sum256([]byte(name))
	cut := max - 1 - 8
	for cut > 0 && !utf8.RuneStart(name[cut]) {
		cut--
	}
	return name[:cut] + "_" + hex.EncodeToString(sum[:4])
}
