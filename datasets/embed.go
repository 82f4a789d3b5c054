// Package datasets holds the data sets shipped inside the kurabe binary
// (see README.md in this folder for where they come from).
package datasets

import _ "embed"

// KenAllGz is Japan Post's KEN_ALL.CSV (120,998 rows, CP932), gzipped.
//
//go:embed ken_all.csv.gz
var KenAllGz []byte
