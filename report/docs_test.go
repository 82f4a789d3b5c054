package report

import (
	"math/rand/v2"
	"time"

	"kurabe/hist"
	"kurabe/result"
	"kurabe/store"
)

// latencies returns a latency summary of n exponential values around scale
// nanoseconds, drawn from rng.
func latencies(rng *rand.Rand, n int, scale float64) result.Latency {
	r := hist.NewRecorder()
	for range n {
		r.Record(int64(rng.ExpFloat64() * scale))
	}
	var s hist.Snapshot
	r.AddTo(&s)
	return result.Summarize(&s)
}

// series returns a per-second timeline of secs seconds after warm seconds
// of warm-up, around opsPerSec, with a stall at second stall (0: none).
func series(rng *rand.Rand, warm, secs int, opsPerSec, p99us float64, stall int) []result.Second {
	var out []result.Second
	for i := 1; i <= warm+secs; i++ {
		f := 0.9 + 0.2*rng.Float64()
		if i <= warm {
			f *= 0.5 + 0.5*float64(i)/float64(warm+1) // warming up
		}
		if i == stall+warm {
			f = 0.1
		}
		ops := opsPerSec * f
		out = append(out, result.Second{T: float64(i), Warmup: i <= warm, Ops: int64(ops), OpsPerSec: ops,
			P50: p99us / 8 / f, P99: p99us / f, Max: p99us * 2 / f})
	}
	return out
}

// richDoc is a seeded document with everything the charts and the HTML
// report draw: two stores, two operations, three repeats, per-second
// series with a warm-up and a stall, and an environment.
func richDoc() *result.Document {
	rng := rand.New(rand.NewPCG(7, 7))
	d := &result.Document{
		Schema: result.Schema, Kurabe: "0.0.0-test", Seed: 7,
		Command: []string{"run", "--store", "file:", "--store", "sqlite:?journal_mode=wal", "--ops", "write,read-latest", "--repeat", "3", "-d", "8s", "--warmup", "2s"},
		Started: time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC), Finished: time.Date(2026, 11, 1, 9, 2, 0, 0, time.UTC),
		Run: result.RunConfig{Workload: "bbs", Ops: []string{"write", "read-latest"}, Clients: 4, Duration: result.Duration(8 * time.Second),
			Warmup: result.Duration(2 * time.Second), Params: map[string]string{"latest": "100"}, Dir: "/tmp/kurabe-x", Repeat: 3},
		Env: result.Environment{OS: "linux/amd64", Kernel: "6.1.0", CPU: "Test CPU @ 2.00GHz", Cores: 2, MemoryBytes: 24 << 30,
			GoVersion: "go1.26.0", Hostname: "bench", Filesystems: map[string]string{"/tmp/kurabe-x": "ext4"}},
	}
	type st struct {
		label, driver, version string
		opts                   map[string]string
		ops                    [2]float64 // ops/s of write, read-latest
		lat                    [2]float64 // latency scale, ns
	}
	for _, s := range []st{
		{"file", "file", "", map[string]string{"sync": "none"}, [2]float64{150000, 48000}, [2]float64{3000, 40000}},
		{"sqlite", "sqlite", "3.53.4", map[string]string{"journal_mode": "wal", "synchronous": "full"}, [2]float64{9500, 12000}, [2]float64{4e5, 2e5}},
	} {
		rs := result.Store{Label: s.label, Spec: s.label + ":", Info: store.Info{Driver: s.driver, Version: s.version, Target: "/tmp/kurabe-x/" + s.label, Options: s.opts}}
		for rep := range 3 {
			for i, op := range d.Run.Ops {
				ops := s.ops[i] * (0.95 + 0.1*rng.Float64())
				p := result.Phase{Op: op, Repeat: rep, Clients: 4, Elapsed: 8, Ops: int64(ops * 8), OpsPerSec: ops,
					Latency: latencies(rng, 4000, s.lat[i]), FinishRatio: 1 + rng.Float64()/10,
					Series: series(rng, 2, 8, ops, s.lat[i]*4.6/1e3, 5)}
				if op == "write" {
					p.Verify = []result.Verify{{Table: "posts", Acked: p.Ops, After: p.Ops}}
					p.BytesWritten = p.Ops * 30
				} else {
					p.BytesRead = p.Ops * 3000
				}
				rs.Phases = append(rs.Phases, p)
			}
		}
		d.Stores = append(d.Stores, rs)
	}
	return d
}

// varyDoc is a seeded --vary document: SQLite over journal_mode ×
// synchronous, one operation, one lost write.
func varyDoc() *result.Document {
	rng := rand.New(rand.NewPCG(9, 9))
	d := &result.Document{
		Schema: result.Schema, Kurabe: "0.0.0-test", Seed: 9,
		Started: time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC), Finished: time.Date(2026, 11, 2, 9, 1, 0, 0, time.UTC),
		Run: result.RunConfig{Workload: "bbs", Ops: []string{"write"}, Clients: 2, Count: 2000, Dir: "/tmp/kurabe-v",
			Vary: []result.Axis{{Name: "journal_mode", Values: []string{"delete", "wal"}}, {Name: "synchronous", Values: []string{"off", "full"}}}},
		Env: result.Environment{OS: "linux/amd64", Cores: 2, GoVersion: "go1.26.0"},
	}
	base := map[string]float64{"delete off": 9000, "delete full": 900, "wal off": 30000, "wal full": 12000}
	for _, jm := range []string{"delete", "wal"} {
		for _, sy := range []string{"off", "full"} {
			ops := base[jm+" "+sy]
			spec := "sqlite:?journal_mode=" + jm + "&synchronous=" + sy
			p := result.Phase{Op: "write", Clients: 2, Elapsed: 2000 / ops, Ops: 2000, OpsPerSec: ops, Latency: latencies(rng, 2000, 2e9/ops),
				FinishRatio: 1.1, Series: series(rng, 0, 3, ops, 4.6e6/ops, 0), BytesWritten: 60000,
				Verify: []result.Verify{{Table: "posts", Acked: 2000, After: 2000}}}
			if jm == "delete" && sy == "off" {
				p.Verify[0].After, p.Verify[0].Lost = 1999, 1
			}
			d.Stores = append(d.Stores, result.Store{Label: "sqlite?" + "journal_mode=" + jm + "&synchronous=" + sy, Spec: spec,
				Variant: []result.Setting{{Name: "journal_mode", Value: jm}, {Name: "synchronous", Value: sy}},
				Info:    store.Info{Driver: "sqlite", Version: "3.53.4", Target: "/tmp/kurabe-v/db", Options: map[string]string{"journal_mode": jm, "synchronous": sy}},
				Phases:  []result.Phase{p}})
		}
	}
	return d
}
