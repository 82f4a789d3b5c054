#!/usr/bin/env bash
# kurabe against pgbench on one PostgreSQL server, in one run: pgbench's
# built-in select-only (-S) and tpcb-like against kurabe's select-only and
# tpcb workloads, at 1 and 8 clients, for the same time, interleaved
# (kurabe, then pgbench, for each workload and client count of each pass).
# Prints per pass the tps of each, the ratio kurabe/pgbench (goal >= 1.0)
# and the CPU each load generator used, then the median ratio per workload
# and client count.
#
# Each tool works on its own tables in the same database: pgbench -i -s
# SCALE fills public.pgbench_* once (then pgbench vacuums its tables and
# empties its history before every run, as it does by default); kurabe's
# Setup and load fill kurabe.pgbench_* anew at every kurabe run (COPY or
# batches, then VACUUM ANALYZE, as pgbench -i), before its clients start.
# Both use prepared statements (pgbench -M prepared) over TCP to 127.0.0.1,
# one connection per client, and both report tps without the time spent
# connecting.
#
# The server is a throwaway instance this script starts (initdb + postgres
# from Debian's postgresql package, as user postgres when run as root) on a
# free loopback port. The noise guard of ../shared/MACHINE.md runs before
# each timed run (bench/lib.sh); the server's own CPU (postmaster and its
# children, from /proc) is taken off what lib.sh calls foreign, so "foreign"
# here is the rest of the machine only.
#
# Environment: PASSES (3), DURATION (10 s per timed run), CLIENTS ("1 8"),
# SCALE (1), MODES ("select-only tpcb"), MUX (auto: kurabe's --mux),
# IDLE_MAX (10), IDLE_WAIT (30),
# FOREIGN_MAX (20, % of a core above which a run is flagged and repeated
# once).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

PASSES=${PASSES:-3}
MUX=${MUX:-auto}
DURATION=${DURATION:-10}
CLIENTS=${CLIENTS:-"1 8"}
SCALE=${SCALE:-1}
MODES=${MODES:-"select-only tpcb"}
IDLE_MAX=${IDLE_MAX:-10}
IDLE_WAIT=${IDLE_WAIT:-30}
FOREIGN_MAX=${FOREIGN_MAX:-20}
GOAL=1.0

pgbin=$(dirname "$(ls /usr/lib/postgresql/*/bin/initdb 2>/dev/null | tail -1)" 2>/dev/null || true)
if [[ ! -x $pgbin/initdb || ! -x $pgbin/pgbench ]]; then
	echo "pgbench.sh: PostgreSQL not found; install it with: apt-get install postgresql" >&2
	exit 2
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/kurabe-bench.XXXXXX")
chmod 755 "$tmp"
as=()
if [[ $(id -u) == 0 ]]; then
	as=(runuser -u postgres --)
	chown postgres "$tmp"
fi
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
cleanup() {
	"${as[@]}" "$pgbin/pg_ctl" -D "$tmp/pgdata" -m fast stop >/dev/null 2>&1 || true
	rm -rf "$tmp"
}
trap cleanup EXIT

go build -o "$tmp/kurabe" .
if [[ $("$tmp/kurabe" help run 2>&1) != *-scale* ]]; then
	echo "pgbench.sh: this kurabe has no tpcb workload; add workload/tpcb to workloads/workloads.go" >&2
	exit 2
fi
"${as[@]}" "$pgbin/initdb" -D "$tmp/pgdata" -U kurabe --auth=trust -E UTF8 --locale=C --no-sync >/dev/null
"${as[@]}" "$pgbin/pg_ctl" -D "$tmp/pgdata" -l "$tmp/pg.log" -w \
	-o "-c listen_addresses=127.0.0.1 -p $port -c unix_socket_directories=$tmp -c max_connections=50" start >/dev/null
read -r srvpid <"$tmp/pgdata/postmaster.pid"
dsn="postgres://kurabe@127.0.0.1:$port/postgres"
# pgbench names its tables unqualified, and the role kurabe's default
# search_path ("$user", public) would find kurabe's schema first.
pgb=(env PGOPTIONS="-c search_path=public" "$pgbin/pgbench" -h 127.0.0.1 -p "$port" -U kurabe)

# shellcheck source=bench/lib.sh
source bench/lib.sh

# measure (bench/lib.sh) reports the server's CPU (the postmaster and its
# backends) as SERVER and leaves it out of FOREIGN.
SERVER_PID=$srvpid

t0=$SECONDS
"${pgb[@]}" -i -q -s "$SCALE" postgres >"$tmp/init.out" 2>&1
init_s=$((SECONDS - t0))

echo "kurabe vs pgbench: select-only and TPC-B (sort of), scale $SCALE, on PostgreSQL $("$pgbin/postgres" --version | awk '{print $3}'), 127.0.0.1:$port"
echo "pgbench -i -s $SCALE took ${init_s} s (public.pgbench_*); kurabe loads kurabe.pgbench_* before each of its runs"
echo "pgbench: -b MODE -M prepared -c C -j C -T $DURATION; kurabe: run --mux $MUX -w tpcb --ops MODE --scale $SCALE -c C -d ${DURATION}s"
echo "cpu: the load generator's own, in cores (kurabe: during the phase; pgbench: the whole process); foreign: the rest of the machine less the server, runs above ${FOREIGN_MAX}% of a core are repeated once"
echo
printf "%-4s %-12s %-3s %12s %12s %7s %8s %8s %9s   %-15s %s\n" pass workload c "kurabe tps" "pgbench tps" ratio "k cpu" "p cpu" "server k/p" "foreign k/p" note
: >"$tmp/ratios"

# kurabe_run MODE C: one kurabe run; sets K (tps), KCPU, KF, KNOTE.
kurabe_run() {
	wait_idle
	KNOTE=${IDLE_NOTE:+kurabe: $IDLE_NOTE; }
	measure "$tmp/k.out" "$tmp/kurabe" run -q --mux "$MUX" -w tpcb --ops "$1" --scale "$SCALE" -c "$2" -d "${DURATION}s" \
		--store "$dsn" --json "$tmp/k.json"
	KF=$FOREIGN KS=$SERVER
	read -r K KCPU KERR < <(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
s = d["stores"][0]
if s.get("error"):
    sys.exit("kurabe: " + s["error"])
p = [x for x in s["phases"] if x["op"] == sys.argv[2]][0]
errs = ",".join("%s:%d" % (c["class"], c["count"]) for c in p.get("error_classes") or [])
print(p["ops_per_s"], p["process_cpu_cores"], errs or "-")' "$tmp/k.json" "$1")
	[[ $KERR == - ]] || KNOTE+="kurabe errors $KERR; "
}

# pgbench_run MODE C: one pgbench run; sets P (tps), PCPU, PF, PNOTE.
pgbench_run() {
	local mode=$1
	[[ $mode == tpcb ]] && mode=tpcb-like
	wait_idle
	PNOTE=${IDLE_NOTE:+pgbench: $IDLE_NOTE; }
	measure "$tmp/p.out" "${pgb[@]}" -b "$mode" -M prepared -c "$2" -j "$2" -T "$DURATION" postgres 2>"$tmp/p.err"
	PF=$FOREIGN PS=$SERVER
	PCPU=$(awk -v o="$OURS" 'BEGIN { printf "%.2f", o / 1000 }')
	# pgbench 15: "tps = X (without initial connection time)".
	P=$(awk '/^tps = / {print $3}' "$tmp/p.out" | tail -1)
	local failed
	failed=$(awk '/^number of failed transactions:/ {print $5}' "$tmp/p.out")
	[[ -z $failed || $failed == 0 ]] || PNOTE+="pgbench failed $failed; "
}

# row PASS MODE C NOTE: one line of the table from the last pair of runs.
row() {
	awk -v p="$1" -v m="$2" -v c="$3" -v n="$4" -v k="$K" -v t="$P" -v kc="$KCPU" -v pc="$PCPU" -v ks="$KS" -v ps="$PS" \
		-v kf="$KF" -v pf="$PF" 'BEGIN {
		printf "%-4s %-12s %-3s %12.0f %12.0f %7.3f %8.2f %8.2f %4.2f/%4.2f   %4.1f%% / %4.1f%%   %s\n",
			p, m, c, k, t, k / t, kc, pc, ks / 1000, ps / 1000, kf / 10, pf / 10, n }'
}

trap 'echo "pgbench.sh: a run failed; its output:" >&2; cat "$tmp/k.out" "$tmp/p.out" "$tmp/p.err" >&2 2>/dev/null || true' ERR
for ((p = 1; p <= PASSES; p++)); do
	for mode in $MODES; do
		for c in $CLIENTS; do
			: >"$tmp/k.out"
			: >"$tmp/p.out"
			kurabe_run "$mode" "$c"
			pgbench_run "$mode" "$c"
			if ((KF > FOREIGN_MAX * 10 || PF > FOREIGN_MAX * 10)); then
				row "$p" "$mode" "$c" "disturbed by foreign load; repeated"
				kurabe_run "$mode" "$c"
				pgbench_run "$mode" "$c"
				if ((KF > FOREIGN_MAX * 10 || PF > FOREIGN_MAX * 10)); then
					PNOTE+="disturbed by foreign load again"
				fi
			fi
			row "$p" "$mode" "$c" "$KNOTE$PNOTE"
			echo "$mode $c $(awk -v k="$K" -v t="$P" 'BEGIN { print k / t }')" >>"$tmp/ratios"
		done
	done
done
echo
python3 - "$tmp/ratios" "$GOAL" <<'EOF'
import collections, statistics, sys
by = collections.defaultdict(list)
for line in open(sys.argv[1]):
    m, c, r = line.split()
    by[(m, int(c))].append(float(r))
goal = float(sys.argv[2])
for (m, c) in sorted(by):
    v = by[(m, c)]
    med = statistics.median(v)
    print("%-12s clients %d: median ratio kurabe/pgbench %.3f over %d passes (goal >= %.1f: %s); range %.3f to %.3f"
          % (m, c, med, len(v), goal, "meets goal" if med >= goal else "BELOW goal", min(v), max(v)))
EOF
echo "note: server is the server's CPU in cores during the kurabe / pgbench run (kurabe's includes its load before the phase)."
echo "note: client and server share the 2 cores; at 8 clients the load generator's own CPU per transaction decides the result, and single-client figures swing with background load (MACHINE.md)."
