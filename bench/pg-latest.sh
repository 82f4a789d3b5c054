#!/usr/bin/env bash
# kurabe against pgbench on one PostgreSQL server, in one run: pgbench runs
# a custom script (-f, prepared protocol) holding exactly the statement of
# kurabe's bbs read-latest with N=1, and kurabe runs read-latest with
# --latest 1, both at 1 and at 8 clients, for the same time, on the same
# table. Prints per pass and client count the ops/s of each and the ratio
# kurabe/pgbench (goal >= 1.0).
#
# The server is a throwaway instance this script starts (initdb + postgres
# from Debian's postgresql package, as user postgres when run as root) on a
# free loopback port, with the noise guard of MACHINE.md before each run.
#
# A third column runs bench/pgloop, a bare pgx loop issuing the same
# prepared statement, to tell kurabe's own cost from the driver's.
#
# Environment: PASSES (3), DURATION (5 s per timed run), CLIENTS ("1 8"),
# IDLE_MAX (10), IDLE_WAIT (30), FOREIGN_MAX (20); as in sqlite-latest.sh.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

PASSES=${PASSES:-3}
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
"${as[@]}" "$pgbin/initdb" -D "$tmp/pgdata" -U kurabe --auth=trust -E UTF8 --locale=C --no-sync >/dev/null
"${as[@]}" "$pgbin/pg_ctl" -D "$tmp/pgdata" -l "$tmp/pg.log" -w \
	-o "-c listen_addresses=127.0.0.1 -p $port -c unix_socket_directories=$tmp -c max_connections=50" start >/dev/null
dsn="postgres://kurabe@127.0.0.1:$port/postgres"

# shellcheck source=bench/lib.sh
source bench/lib.sh

# kurabe fills the table once: write for a few seconds (its Setup empties
# the table, so each kurabe run writes first and reads after).
cat >"$tmp/latest.sql" <<'EOF'
SELECT "id", "category", "text", "created" FROM "kurabe"."posts" ORDER BY "id" DESC LIMIT 1;
EOF

echo "kurabe vs pgbench: bbs read-latest N=1 on PostgreSQL $("$pgbin/postgres" --version | awk '{print $3}'), 127.0.0.1:$port"
echo "pgbench: -f latest.sql -M prepared -n -T $DURATION; kurabe: --ops write,read-latest --latest 1 -d ${DURATION}s (its write phase refills the table)"
echo "foreign CPU: machine non-idle time minus this script's and its children's (see bench/lib.sh); runs above ${FOREIGN_MAX}% of a core are flagged"
echo
printf "%-5s %-8s %14s %14s %8s %14s %10s   %-20s %s\n" pass clients "kurabe ops/s" "pgbench tps" ratio "pgx loop" "k/loop" "foreign k/p" note
: >"$tmp/ratios"
for ((p = 1; p <= PASSES; p++)); do
	for c in $CLIENTS; do
		notes=""
		wait_idle
		[[ -z $IDLE_NOTE ]] || notes+="$IDLE_NOTE; "
		measure "$tmp/k.out" "$tmp/kurabe" run -q -c "$c" -d "${DURATION}s" --ops write,read-latest --latest 1 \
			--store "$dsn" --json "$tmp/k.json"
		kf=$FOREIGN
		k=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); p={x["op"]:x for x in d["stores"][0]["phases"]}; r=p["read-latest"]; assert r["ops"]>0 and not r["errors"], r; print(r["ops_per_s"])' "$tmp/k.json")
		wait_idle
		[[ -z $IDLE_NOTE ]] || notes+="$IDLE_NOTE; "
		measure "$tmp/p.out" "$pgbin/pgbench" -n -f "$tmp/latest.sql" -M prepared -c "$c" -j "$c" -T "$DURATION" \
			-h 127.0.0.1 -p "$port" -U kurabe postgres
		pf=$FOREIGN
		wait_idle
		measure "$tmp/l.json" "$tmp/pgloop" -dsn "$dsn" -d "${DURATION}s" -c "$c"
		l=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["ops_per_s"])' "$tmp/l.json")
		# pgbench 15 prints "tps = X (without initial connection time)".
		t=$(awk '/^tps = / {print $3}' "$tmp/p.out" | tail -1)
		if ((kf > FOREIGN_MAX * 10 || pf > FOREIGN_MAX * 10)); then
			notes+="disturbed by foreign load"
		fi
		awk -v p="$p" -v c="$c" -v k="$k" -v t="$t" -v l="$l" -v kf="$kf" -v pf="$pf" -v n="$notes" 'BEGIN {
			printf "%-5s %-8s %14.0f %14.0f %8.3f %14.0f %10.3f   %4.1f%% / %4.1f%%        %s\n", p, c, k, t, k / t, l, k / l, kf / 10, pf / 10, n }'
		echo "$c $(awk -v k="$k" -v t="$t" 'BEGIN { print k / t }')" >>"$tmp/ratios"
	done
done
echo
python3 - "$tmp/ratios" "$GOAL" <<'EOF'
import collections, statistics, sys
by = collections.defaultdict(list)
for line in open(sys.argv[1]):
    c, r = line.split()
    by[int(c)].append(float(r))
goal = float(sys.argv[2])
for c in sorted(by):
    m = statistics.median(by[c])
    print("clients %d: median ratio kurabe/pgbench %.3f over %d passes (goal >= %.1f: %s); range %.3f to %.3f"
          % (c, m, len(by[c]), goal, "meets goal" if m >= goal else "BELOW goal", min(by[c]), max(by[c])))
EOF
echo "note: kurabe's process runs the clients only; pgbench too. Both share the 2 cores with the server, so the client's own CPU per query decides the result at 8 clients."
