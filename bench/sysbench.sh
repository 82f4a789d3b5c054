#!/usr/bin/env bash
# kurabe against sysbench on one MariaDB server, in one run: sysbench's
# oltp_point_select against kurabe's select-only workload (pgbench -S: one
# point select by primary key, outside a transaction), at 1 and 8
# clients, for the same time, interleaved (kurabe, then sysbench, for each
# client count of each pass). Prints per pass the tps of each, the ratio
# kurabe/sysbench (goal >= 1.0) and the CPU each load generator used, then
# the median ratio per client count.
#
# The two are the same operation on tables of the same row count, not the
# same table: sysbench reads SELECT c FROM sbtest1 WHERE id=? (c is
# CHAR(120)) from its table of ROWS rows; kurabe reads SELECT abalance FROM
# kurabe.pgbench_accounts WHERE aid = ? (a BIGINT) from pgbench's accounts
# at the scale holding ROWS rows. Both draw keys uniformly (sysbench is
# given --rand-type=uniform; its default, "special", reads a hot spot),
# both use server-side prepared statements over TCP to 127.0.0.1 with one
# connection per client, and both report transactions per second counted
# after the clients connected. Each tool keeps its own table in the same
# server; kurabe loads its table anew before each of its runs.
#
# The server is a throwaway mariadbd (Debian's mariadb-server) this script
# initialises and starts on a free loopback port, with its default
# settings, as kurabe's mariadb:managed does. sysbench comes from Debian's
# sysbench package (apt-get install sysbench; about 8 s on the development
# machine). The noise guard of ../shared/MACHINE.md runs before each timed
# run (bench/lib.sh); the server's CPU (from /proc) is taken off what
# lib.sh calls foreign.
#
# Environment: PASSES (3), DURATION (10 s per timed run), CLIENTS ("1 8"),
# ROWS (100000, a multiple of 100,000), STORE_OPTS (options of kurabe's
# store, e.g. driver=sql for database/sql instead of the default
# driver=wire), MUX (auto: kurabe's --mux), IDLE_MAX (10), IDLE_WAIT (30),
# FOREIGN_MAX (20, % of a core above which a run is flagged and repeated
# once).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

PASSES=${PASSES:-3}
MUX=${MUX:-auto}
DURATION=${DURATION:-10}
CLIENTS=${CLIENTS:-"1 8"}
ROWS=${ROWS:-100000}
STORE_OPTS=${STORE_OPTS:-}
IDLE_MAX=${IDLE_MAX:-10}
IDLE_WAIT=${IDLE_WAIT:-30}
FOREIGN_MAX=${FOREIGN_MAX:-20}
GOAL=1.0

if ((ROWS % 100000 != 0 || ROWS < 100000)); then
	echo "sysbench.sh: ROWS=$ROWS: want a multiple of 100000 (kurabe's select-only table is 100,000 accounts per unit of --scale)" >&2
	exit 2
fi
for prog in /usr/sbin/mariadbd /usr/bin/mariadb-install-db /usr/bin/mariadb; do
	if [[ ! -x $prog ]]; then
		echo "sysbench.sh: $prog not found; install it with: apt-get install mariadb-server mariadb-client" >&2
		exit 2
	fi
done
if ! command -v sysbench >/dev/null; then
	echo "sysbench.sh: sysbench not found; install it with: apt-get install sysbench" >&2
	exit 2
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/kurabe-bench.XXXXXX")
chmod 755 "$tmp"
user=()
if [[ $(id -u) == 0 ]]; then
	user=(--user=mysql)
	chown mysql "$tmp"
fi
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
pass=$(python3 -c 'import secrets; print(secrets.token_hex(12))')
srvpid=
cleanup() {
	if [[ -n $srvpid ]]; then
		kill "$srvpid" 2>/dev/null || true
		wait "$srvpid" 2>/dev/null || true
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT

go build -o "$tmp/kurabe" .
if [[ $("$tmp/kurabe" help run 2>&1) != *-scale* ]]; then
	echo "sysbench.sh: this kurabe has no select-only workload; add workload/tpcb to workloads/workloads.go" >&2
	exit 2
fi
mariadb-install-db --no-defaults --datadir="$tmp/data" "${user[@]}" --auth-root-authentication-method=normal \
	--skip-test-db >"$tmp/install.log" 2>&1
sock=$tmp/mysql.sock
/usr/sbin/mariadbd --no-defaults --datadir="$tmp/data" --port="$port" --bind-address=127.0.0.1 --socket="$sock" \
	--pid-file="$tmp/mysqld.pid" --log-error="$tmp/mysqld.log" --skip-name-resolve "${user[@]}" 2>>"$tmp/mysqld.log" &
srvpid=$!
for ((i = 0; i < 600; i++)); do
	mariadb-admin --no-defaults -uroot --socket="$sock" ping >/dev/null 2>&1 && break
	if ! kill -0 "$srvpid" 2>/dev/null; then
		echo "sysbench.sh: mariadbd stopped while starting; its log:" >&2
		cat "$tmp/mysqld.log" >&2
		exit 1
	fi
	sleep 0.1
done
mariadb --no-defaults -uroot --socket="$sock" <<EOF
CREATE USER 'kurabe'@'127.0.0.1' IDENTIFIED BY '$pass';
GRANT ALL ON *.* TO 'kurabe'@'127.0.0.1';
CREATE DATABASE sbtest;
EOF
version=$(mariadb --no-defaults -uroot --socket="$sock" -N -e 'SELECT VERSION()')
export MYSQL_PWD=$pass # kurabe reads the password from here; it never appears in its output
store="mariadb://kurabe@127.0.0.1:$port/kurabe${STORE_OPTS:+?$STORE_OPTS}"
sb=(sysbench oltp_point_select --db-driver=mysql --mysql-host=127.0.0.1 --mysql-port="$port" --mysql-user=kurabe
	--mysql-password="$pass" --mysql-db=sbtest --tables=1 --table-size="$ROWS")

# shellcheck source=bench/lib.sh
source bench/lib.sh

# measure (bench/lib.sh) reports mariadbd's CPU as SERVER and leaves it
# out of FOREIGN.
SERVER_PID=$srvpid

t0=$SECONDS
"${sb[@]}" prepare >"$tmp/prepare.out"
prep_s=$((SECONDS - t0))

echo "kurabe vs sysbench: point select by primary key, $ROWS rows, on MariaDB $version, 127.0.0.1:$port"
echo "sysbench oltp_point_select prepare took ${prep_s} s (sbtest.sbtest1); kurabe loads kurabe.pgbench_accounts before each of its runs"
echo "sysbench: oltp_point_select --rand-type=uniform --threads C --time $DURATION; kurabe: run --mux $MUX -w select-only --scale $((ROWS / 100000)) -c C -d ${DURATION}s${STORE_OPTS:+ (store options $STORE_OPTS)}"
echo "cpu: the load generator's own, in cores (kurabe: during the phase; sysbench: the whole process); foreign: the rest of the machine less the server, runs above ${FOREIGN_MAX}% of a core are repeated once"
echo
printf "%-4s %-3s %12s %13s %7s %8s %8s %9s   %-15s %s\n" pass c "kurabe tps" "sysbench tps" ratio "k cpu" "s cpu" "server k/s" "foreign k/s" note
: >"$tmp/ratios"

# kurabe_run C: one kurabe run; sets K (tps), KCPU, KF, KS, KNOTE.
kurabe_run() {
	wait_idle
	KNOTE=${IDLE_NOTE:+kurabe: $IDLE_NOTE; }
	measure "$tmp/k.out" "$tmp/kurabe" run -q --mux "$MUX" -w select-only --scale $((ROWS / 100000)) -c "$1" -d "${DURATION}s" \
		--store "$store" --json "$tmp/k.json"
	KF=$FOREIGN KS=$SERVER
	read -r K KCPU KERR < <(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
s = d["stores"][0]
if s.get("error"):
    sys.exit("kurabe: " + s["error"])
p = [x for x in s["phases"] if x["op"] == "select-only"][0]
errs = ",".join("%s:%d" % (c["class"], c["count"]) for c in p.get("error_classes") or [])
print(p["ops_per_s"], p["process_cpu_cores"], errs or "-")' "$tmp/k.json")
	[[ $KERR == - ]] || KNOTE+="kurabe errors $KERR; "
}

# sysbench_run C: one sysbench run; sets S (tps), SCPU, SF, SS, SNOTE.
sysbench_run() {
	wait_idle
	SNOTE=${IDLE_NOTE:+sysbench: $IDLE_NOTE; }
	measure "$tmp/s.out" "${sb[@]}" --rand-type=uniform --threads="$1" --time="$DURATION" run
	SF=$FOREIGN SS=$SERVER
	SCPU=$(awk -v o="$OURS" 'BEGIN { printf "%.2f", o / 1000 }')
	# "    transactions:                        123456 (12345.67 per sec.)"
	S=$(awk '$1 == "transactions:" { sub(/^\(/, "", $3); print $3 }' "$tmp/s.out")
	local errs
	errs=$(awk '$1 == "ignored" && $2 == "errors:" { print $3 }' "$tmp/s.out")
	[[ -z $errs || $errs == 0 ]] || SNOTE+="sysbench ignored errors $errs; "
}

# row PASS C NOTE: one line of the table from the last pair of runs.
row() {
	awk -v p="$1" -v c="$2" -v n="$3" -v k="$K" -v s="$S" -v kc="$KCPU" -v sc="$SCPU" -v ks="$KS" -v ss="$SS" \
		-v kf="$KF" -v sf="$SF" 'BEGIN {
		printf "%-4s %-3s %12.0f %13.0f %7.3f %8.2f %8.2f %4.2f/%4.2f   %4.1f%% / %4.1f%%   %s\n",
			p, c, k, s, k / s, kc, sc, ks / 1000, ss / 1000, kf / 10, sf / 10, n }'
}

trap 'echo "sysbench.sh: a run failed; its output:" >&2; cat "$tmp/k.out" "$tmp/s.out" >&2 2>/dev/null || true' ERR
for ((p = 1; p <= PASSES; p++)); do
	for c in $CLIENTS; do
		: >"$tmp/k.out"
		: >"$tmp/s.out"
		kurabe_run "$c"
		sysbench_run "$c"
		if ((KF > FOREIGN_MAX * 10 || SF > FOREIGN_MAX * 10)); then
			row "$p" "$c" "disturbed by foreign load; repeated"
			kurabe_run "$c"
			sysbench_run "$c"
			if ((KF > FOREIGN_MAX * 10 || SF > FOREIGN_MAX * 10)); then
				SNOTE+="disturbed by foreign load again"
			fi
		fi
		row "$p" "$c" "$KNOTE$SNOTE"
		echo "$c $(awk -v k="$K" -v s="$S" 'BEGIN { print k / s }')" >>"$tmp/ratios"
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
    v = by[c]
    med = statistics.median(v)
    print("point select clients %d: median ratio kurabe/sysbench %.3f over %d passes (goal >= %.1f: %s); range %.3f to %.3f"
          % (c, med, len(v), goal, "meets goal" if med >= goal else "BELOW goal", min(v), max(v)))
EOF
echo "note: server is the server's CPU in cores during the kurabe / sysbench run (kurabe's includes its load before the phase)."
echo "note: client and server share the 2 cores; at 8 clients the load generator's own CPU per query decides the result, and single-client figures swing with background load (MACHINE.md)."
