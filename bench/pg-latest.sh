#!/usr/bin/env bash
# kurabe against pgbench on one PostgreSQL server, in one run: pgbench runs
# a custom script (-f, prepared protocol) holding exactly the statement of
# kurabe's bbs read-latest with N=1, and kurabe runs read-latest with
# --latest 1, both at 1 and at 8 clients, for the same time, on the same
# table. Prints per pass and client count the ops/s of each and the ratio
# kurabe/pgbench (goal >= 1.0).
#
# "Exactly the statement" includes its parameter: kurabe prepares
# ... LIMIT $1 and binds 1, so pgbench's script sets a variable (LIMIT :n,
# which -M prepared sends as $1). That matters: with a parameter the
# server plans the statement anew on every execution (its custom plan for
# LIMIT 1 is estimated far cheaper than the generic plan for an unknown
# limit, so the plan cache never settles on the generic one), about 10 µs
# of server CPU per query here; with LIMIT 1 written into the text it runs
# one cached generic plan. The "pgbench lit" column is that literal
# statement, for reference: it is less work for the server.
#
# The server is a throwaway instance this script starts (initdb + postgres
# from Debian's postgresql package, as user postgres when run as root) on a
# free loopback port, with the noise guard of MACHINE.md before each run;
# a pass that other processes disturbed is shown, then run once more, and
# the second try counts.
# Its CPU (postmaster and backends) is shown as "server", apart from the
# foreign load (bench/lib.sh, SERVER_PID).
#
# Two more columns tell kurabe's own cost from the client library's and
# Go's: bench/pgloop, a bare pgx loop issuing the same prepared statement,
# and bench/pgwire, the leanest Go loop (pgconn connects, then per query one
# pre-built Bind+Execute+Sync write and a buffered read).
#
# Environment: PASSES (3), DURATION (5 s per timed run), CLIENTS ("1 8"),
# MUX (auto: kurabe's --mux), IDLE_MAX (10), IDLE_WAIT (30), FOREIGN_MAX
# (20); as in sqlite-latest.sh.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

PASSES=${PASSES:-3}
MUX=${MUX:-auto}
DURATION=${DURATION:-5}
CLIENTS=${CLIENTS:-"1 8"}
IDLE_MAX=${IDLE_MAX:-10}
IDLE_WAIT=${IDLE_WAIT:-30}
FOREIGN_MAX=${FOREIGN_MAX:-20}
GOAL=1.0

pgbin=$(dirname "$(ls /usr/lib/postgresql/*/bin/initdb 2>/dev/null | tail -1)" 2>/dev/null || true)
if [[ ! -x $pgbin/initdb || ! -x $pgbin/pgbench ]]; then
	echo "pg-latest.sh: PostgreSQL not found; install it with: apt-get install postgresql" >&2
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
go build -o "$tmp/pgloop" ./bench/pgloop
go build -o "$tmp/pgwire" ./bench/pgwire
"${as[@]}" "$pgbin/initdb" -D "$tmp/pgdata" -U kurabe --auth=trust -E UTF8 --locale=C --no-sync >/dev/null
"${as[@]}" "$pgbin/pg_ctl" -D "$tmp/pgdata" -l "$tmp/pg.log" -w \
	-o "-c listen_addresses=127.0.0.1 -p $port -c unix_socket_directories=$tmp -c max_connections=50" start >/dev/null
dsn="postgres://kurabe@127.0.0.1:$port/postgres"

# shellcheck source=bench/lib.sh
source bench/lib.sh
# measure reports the server's CPU (postmaster and backends) as SERVER and
# leaves it out of FOREIGN.
read -r SERVER_PID <"$tmp/pgdata/postmaster.pid"

# Each kurabe run fills the table before its phase (--prefill: its Setup
# empties the table, then 20,000 posts go in by batches, verified), and the
# peers read what the last one wrote. kurabe's measured phase is then
# read-latest alone, as pgbench's run is: no write phase right before it
# leaves the server flushing, vacuuming or checkpointing while kurabe
# reads, and the server's CPU columns compare the same work.
cat >"$tmp/latest.sql" <<'EOF'
\set n 1
SELECT "id", "category", "text", "created" FROM "kurabe"."posts" ORDER BY "id" DESC LIMIT :n;
EOF
cat >"$tmp/literal.sql" <<'EOF'
SELECT "id", "category", "text", "created" FROM "kurabe"."posts" ORDER BY "id" DESC LIMIT 1;
EOF

# pg SCRIPT C: one pgbench run; sets TPS.
pg() {
	measure "$tmp/p.out" "$pgbin/pgbench" -n -f "$1" -M prepared -c "$2" -j "$2" -T "$DURATION" \
		-h 127.0.0.1 -p "$port" -U kurabe postgres
	# pgbench 15 prints "tps = X (without initial connection time)".
	TPS=$(awk '/^tps = / {print $3}' "$tmp/p.out" | tail -1)
}

# loop PROGRAM C: one run of bench/pgloop or bench/pgwire; sets LOOP (ops/s).
loop() {
	measure "$tmp/l.json" "$tmp/$1" -dsn "$dsn" -d "${DURATION}s" -c "$2"
	LOOP=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["ops_per_s"])' "$tmp/l.json")
}

echo "kurabe vs pgbench: bbs read-latest N=1 on PostgreSQL $("$pgbin/postgres" --version | awk '{print $3}'), 127.0.0.1:$port"
echo "pgbench: -f latest.sql (LIMIT :n, n=1) -M prepared -n -T $DURATION; kurabe: --mux $MUX --ops read-latest --latest 1 --prefill 20k -d ${DURATION}s (the prefill refills the table before the phase)"
echo "cpu: the client's own, in cores (kurabe: during read-latest; pgbench: the whole process); server: postmaster and backends, in cores, over kurabe's whole run (prefill too) and pgbench's"
echo "foreign: the machine's non-idle time less this script's children and the server; runs above ${FOREIGN_MAX}% of a core are flagged"
echo
printf "%-4s %-3s %9s %9s %6s %11s %9s %9s %11s %11s   %-13s %s\n" \
	pass c kurabe pgbench ratio "pgbench lit" "pgx loop" "wire loop" "cpu k/p" "server k/p" "foreign k/p" note
: >"$tmp/ratios"
# runs C: kurabe and its peers at C clients, one after another, each after
# the noise guard; sets their figures and NOTES.
runs() {
	local c=$1
	NOTES=""
	wait_idle
	[[ -z $IDLE_NOTE ]] || NOTES+="kurabe: $IDLE_NOTE; "
	measure "$tmp/k.out" "$tmp/kurabe" run -q --mux "$MUX" -c "$c" -d "${DURATION}s" --ops read-latest --latest 1 --prefill 20k \
		--store "$dsn" --json "$tmp/k.json"
	kf=$FOREIGN ks=$SERVER
	read -r k kc < <(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); p={x["op"]:x for x in d["stores"][0]["phases"]}; r=p["read-latest"]; assert r["ops"]>0 and not r["errors"], r; print(r["ops_per_s"], r["process_cpu_cores"])' "$tmp/k.json")
	wait_idle
	[[ -z $IDLE_NOTE ]] || NOTES+="pgbench: $IDLE_NOTE; "
	pg "$tmp/latest.sql" "$c"
	t=$TPS pf=$FOREIGN ps=$SERVER pc=$OURS
	wait_idle
	pg "$tmp/literal.sql" "$c"
	lit=$TPS
	wait_idle
	loop pgloop "$c"
	l=$LOOP
	wait_idle
	loop pgwire "$c"
	w=$LOOP
}

# row PASS C NOTE: one line of the table from the last runs.
row() {
	awk -v p="$1" -v c="$2" -v n="$3" -v k="$k" -v t="$t" -v lit="$lit" -v l="$l" -v w="$w" -v kc="$kc" -v pc="$pc" \
		-v ks="$ks" -v ps="$ps" -v kf="$kf" -v pf="$pf" 'BEGIN {
		printf "%-4s %-3s %9.0f %9.0f %6.3f %11.0f %9.0f %9.0f %5.2f/%5.2f %5.2f/%5.2f   %4.1f%%/%4.1f%%   %s\n",
			p, c, k, t, k / t, lit, l, w, kc, pc / 1000, ks / 1000, ps / 1000, kf / 10, pf / 10, n }'
}

for ((p = 1; p <= PASSES; p++)); do
	for c in $CLIENTS; do
		runs "$c"
		if ((kf > FOREIGN_MAX * 10 || pf > FOREIGN_MAX * 10)); then
			row "$p" "$c" "${NOTES}disturbed by foreign load; repeated"
			runs "$c"
			if ((kf > FOREIGN_MAX * 10 || pf > FOREIGN_MAX * 10)); then
				NOTES+="disturbed by foreign load again"
			fi
		fi
		row "$p" "$c" "$NOTES"
		echo "$c $(awk -v k="$k" -v t="$t" -v lit="$lit" 'BEGIN { print k / t, k / lit }')" >>"$tmp/ratios"
	done
done
echo
python3 - "$tmp/ratios" "$GOAL" <<'EOF'
import collections, statistics, sys
by = collections.defaultdict(list)
lit = collections.defaultdict(list)
for line in open(sys.argv[1]):
    c, r, rl = line.split()
    by[int(c)].append(float(r))
    lit[int(c)].append(float(rl))
goal = float(sys.argv[2])
for c in sorted(by):
    m = statistics.median(by[c])
    print("clients %d: median ratio kurabe/pgbench %.3f over %d passes (goal >= %.1f: %s); range %.3f to %.3f; against the literal LIMIT 1 %.3f"
          % (c, m, len(by[c]), goal, "meets goal" if m >= goal else "BELOW goal", min(by[c]), max(by[c]), statistics.median(lit[c])))
EOF
echo "note: kurabe's process runs the clients only; pgbench too. Both share the 2 cores with the server, so the client's own CPU per query decides the result at 8 clients."
