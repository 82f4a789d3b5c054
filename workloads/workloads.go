// Package workloads is the table of built-in workloads. Adding a workload
// means adding its folder under workload/ and one line here.
package workloads

import (
	"kurabe/workload"
	"kurabe/workload/bbs"
	"kurabe/workload/crud"
	"kurabe/workload/load"
	"kurabe/workload/point"
	"kurabe/workload/rangeread"
	"kurabe/workload/tpcb"
	"kurabe/workload/ycsb"
)

// Entry is one built-in workload.
type Entry struct {
	Name string
	New  func() workload.Definition
}

// Builtin lists the workloads kurabe ships, in the order help shows them.
var Builtin = []Entry{
	{"bbs", bbs.New},
	{"range", rangeread.New},
	{"point", point.New},
	{"crud", crud.New},
	{"load", load.New},
	{"tpcb", tpcb.New},
	{"select-only", tpcb.NewSelectOnly},
	{"ycsb", ycsb.New},
}

// Names returns the workload names.
func Names() []string {
	var out []string
	for _, e := range Builtin {
		out = append(out, e.Name)
	}
	return out
}
