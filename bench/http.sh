#!/usr/bin/env bash
# Compares kurabe http with wrk, ab -k and siege -b against nginx on
# loopback, in one run: nginx serves a 58-byte and an 80 KB file, and for
# each file every tool runs with the same connections for the same time,
# one after another. Prints each tool's requests per second and CPU, and
# kurabe's requests per second as a ratio of each (goals: >= 1.0x wrk,
# >= 2x ab and siege).
#
# nginx, wrk, apache2-utils (ab) and siege come from Debian's packages and
# are installed when missing (as root or through sudo); the script says how
# long that took. nginx runs from a temporary prefix (its workers as nobody
# when the script runs as root, as this user otherwise), with
# access logging off and keep-alive without a request limit, so that no
# tool pays for reconnects the others do not.
#
# The noise guard of ../shared/MACHINE.md (bench/lib.sh): before each timed
# run the script waits (bounded) until the machine is nearly idle, records
# the CPU that other processes (not the tool, not nginx) used during the
# run, and repeats a disturbed run once, saying so.
#
# Client and server share this machine's cores, so a tool that needs less
# CPU per request leaves more to nginx: the ratio measures the whole
# client, not only its clock. siege hung at the end of some timed runs on
# these machines, so it runs under timeout.
#
# Environment: CONNS (50), DURATION (10, seconds per run), IDLE_MAX (10, %
# of one core the machine may use before a run), IDLE_WAIT (30, seconds to
# wait for that), FOREIGN_MAX (20, % of one core of foreign CPU that marks a
# run disturbed), PORT (18088).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

CONNS=${CONNS:-50}
DURATION=${DURATION:-10}
IDLE_MAX=${IDLE_MAX:-10}
IDLE_WAIT=${IDLE_WAIT:-30}
FOREIGN_MAX=${FOREIGN_MAX:-20}
PORT=${PORT:-18088}

for v in CONNS DURATION IDLE_MAX IDLE_WAIT FOREIGN_MAX PORT; do
	if ! [[ ${!v} =~ ^[0-9]+$ ]] || ((${!v} < 1)); then
		echo "http.sh: $v=${!v}: want a whole number, 1 or more" >&2
		exit 2
	fi
done

# --- the peers, from Debian's packages ---------------------------------------
missing=()
command -v nginx >/dev/null || [[ -x /usr/sbin/nginx ]] || missing+=(nginx)
command -v wrk >/dev/null || missing+=(wrk)
command -v ab >/dev/null || missing+=(apache2-utils)
command -v siege >/dev/null || missing+=(siege)
if ((${#missing[@]} > 0)); then
	sudo=""
	[[ $(id -u) -ne 0 ]] && sudo="sudo -n"
	echo "installing ${missing[*]} from Debian's packages"
	t0=$SECONDS
	# Keep the nginx package from starting a system-wide server.
	policy=/usr/sbin/policy-rc.d
	added_policy=""
	if [[ ! -e $policy ]]; then
		printf '#!/bin/sh\nexit 101\n' | $sudo tee "$policy" >/dev/null && $sudo chmod +x "$policy" && added_policy=1
	fi
	export DEBIAN_FRONTEND=noninteractive
	$sudo apt-get update -qq
	$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
	[[ -z $added_policy ]] || $sudo rm -f "$policy"
	echo "installed in $((SECONDS - t0)) s"
fi
NGINX=$(command -v nginx || echo /usr/sbin/nginx)

tmp=$(mktemp -d "${TMPDIR:-/tmp}/kurabe-http-bench.XXXXXX")
nginx_pid=""
cleanup() {
	if [[ -n $nginx_pid ]]; then
		kill "$nginx_pid" 2>/dev/null || true
		wait "$nginx_pid" 2>/dev/null || true
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT
mkdir -p "$tmp/bin" "$tmp/www" "$tmp/nginx/logs" "$tmp/siege"
# nginx's workers run as nobody when started by root: they must be able to
# read the files.
chmod 755 "$tmp" "$tmp/www"

go build -o "$tmp/bin/kurabe" .

# --- nginx on 127.0.0.1 -------------------------------------------------------
head -c 57 /dev/zero | tr '\0' 'k' >"$tmp/www/58.txt"
echo >>"$tmp/www/58.txt"
head -c 81920 /dev/urandom >"$tmp/www/80k.bin"
chmod 644 "$tmp/www/"*
cat >"$tmp/nginx/nginx.conf" <<EOF
daemon off;
worker_processes auto;
pid $tmp/nginx/nginx.pid;
error_log $tmp/nginx/logs/error.log warn;
events { worker_connections 4096; }
http {
	access_log off;
	sendfile on;
	tcp_nopush on;
	keepalive_timeout 65;
	keepalive_requests 100000000;
	client_body_temp_path $tmp/nginx/body;
	proxy_temp_path $tmp/nginx/proxy;
	fastcgi_temp_path $tmp/nginx/fastcgi;
	uwsgi_temp_path $tmp/nginx/uwsgi;
	scgi_temp_path $tmp/nginx/scgi;
	types { text/plain txt; application/octet-stream bin; }
	server {
		listen 127.0.0.1:$PORT;
		root $tmp/www;
	}
}
EOF
"$NGINX" -p "$tmp/nginx" -c "$tmp/nginx/nginx.conf" -e "$tmp/nginx/logs/error.log" &
nginx_pid=$!
for _ in $(seq 50); do
	curl_ok=0
	if (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; then
		curl_ok=1
		break
	fi
	sleep 0.1
done
if ((curl_ok == 0)); then
	echo "http.sh: nginx did not start on 127.0.0.1:$PORT:" >&2
	cat "$tmp/nginx/logs/error.log" >&2
	exit 1
fi
nginx_version=$("$NGINX" -v 2>&1 | sed 's/.*nginx\///')

# siege reads its settings from a file: keep-alive, no HTML parsing, no
# delay, no log, the summary as JSON.
cat >"$tmp/siege/siegerc" <<EOF
verbose = false
color = off
quiet = true
json_output = true
show-logfile = false
logging = false
parser = false
protocol = HTTP/1.1
chunked = true
cache = false
connection = keep-alive
concurrent = $CONNS
limit = $((CONNS > 255 ? CONNS : 255))
delay = 0.0
internet = false
benchmark = true
EOF

# shellcheck source=bench/lib.sh
source bench/lib.sh

# nginx_ticks sets NGINX_TICKS: CPU ticks used so far by nginx's processes.
nginx_ticks() {
	local p line f
	NGINX_TICKS=0
	for p in /proc/[0-9]*; do
		[[ -r $p/stat ]] || continue
		read -r line <"$p/stat" 2>/dev/null || continue
		[[ $line == *"(nginx)"* ]] || continue
		line=${line##*) }
		read -r -a f <<<"$line"
		NGINX_TICKS=$((NGINX_TICKS + f[11] + f[12]))
	done
}

# run_tool NAME URL: runs one tool for DURATION with CONNS connections and
# sets RPS, OURS (the tool's CPU), SRV (nginx's) and FOREIGN, in thousandths
# of a core, and NOTE.
run_tool() {
	local name=$1 url=$2 try out="$tmp/$1.out" n0 t0 dt prev=""
	NOTE=""
	for try in 1 2; do
		wait_idle
		[[ -z $IDLE_NOTE ]] || NOTE="${NOTE:+$NOTE; }$IDLE_NOTE"
		nginx_ticks
		n0=$NGINX_TICKS
		now_us
		t0=$NOW_US
		case $name in
		# wrk needs a connection per thread at least.
		wrk) measure "$out" wrk -t $((CONNS < 2 ? CONNS : 2)) -c "$CONNS" -d "${DURATION}s" "$url" ;;
		ab) measure "$out" ab -k -q -c "$CONNS" -t "$DURATION" -n 100000000 "$url" ;;
		# SIGINT makes a hung siege print its summary; KILL follows.
		siege) measure "$out" timeout -s INT -k 10 $((DURATION + 10)) siege -R "$tmp/siege/siegerc" -b -c "$CONNS" -t "${DURATION}S" "$url" 2>"$tmp/siege.err" || true ;;
		kurabe) measure "$out" "$tmp/bin/kurabe" http -q -c "$CONNS" -t "$DURATION" --format ab --json "$tmp/kurabe.json" "$url" 2>"$tmp/kurabe.err" || true ;;
		esac
		now_us
		dt=$((NOW_US - t0))
		nginx_ticks
		SRV=$(permille $((NGINX_TICKS - n0)) "$dt")
		FOREIGN=$((FOREIGN > SRV ? FOREIGN - SRV : 0))
		case $name in
		wrk) RPS=$(awk '/^Requests\/sec:/ { print $2 }' "$out") ;;
		ab | kurabe) RPS=$(awk '/^Requests per second:/ { print $4 }' "$out") ;;
		siege) RPS=$(sed -n 's/.*"transaction_rate":[[:space:]]*\([0-9.]*\).*/\1/p' "$out" "$tmp/siege.err" | head -1) ;;
		esac
		# Every response must be a 200: wrk, ab and siege count error
		# responses as requests served.
		if grep -Eq '^Non-2xx|^  Non-2xx|^Failed requests: +[1-9]' "$out"; then
			echo "http.sh: $name got failed or non-2xx responses; the comparison would not be fair:" >&2
			cat "$out" >&2
			exit 1
		fi
		if [[ -z $RPS && $name == siege ]]; then
			NOTE="${NOTE:+$NOTE; }siege hung and printed no rate (try $try)"
			if ((try == 2)); then
				# Keep the first try's figures, disturbed as they were.
				if [[ -n $prev ]]; then
					read -r RPS OURS SRV FOREIGN <<<"$prev"
				else
					RPS=0
				fi
				break
			fi
			continue
		fi
		if [[ -z $RPS ]]; then
			echo "http.sh: $name printed no rate:" >&2
			cat "$out" >&2
			[[ $name != siege ]] || cat "$tmp/siege.err" >&2
			exit 1
		fi
		if [[ $name == kurabe ]]; then
			# Which of kurabe's HTTP clients ran (lean or fasthttp).
			client=$(sed -n 's/.*"client": *"\([^"]*\)".*/\1/p' "$tmp/kurabe.json" | head -1)
			NOTE="${NOTE:+$NOTE; }client ${client:-unknown}"
		fi
		if ((FOREIGN <= FOREIGN_MAX * 10)) || ((try == 2)); then
			break
		fi
		prev="$RPS $OURS $SRV $FOREIGN"
		NOTE="repeated: foreign CPU $((FOREIGN / 10))% of a core in the first run"
	done
	if ((FOREIGN > FOREIGN_MAX * 10)); then
		NOTE="${NOTE:+$NOTE; }DISTURBED: foreign CPU $((FOREIGN / 10))% of a core"
	fi
}

echo "kurabe http vs wrk, ab -k, siege -b: nginx $nginx_version on 127.0.0.1:$PORT, $CONNS connections, ${DURATION}s per run, $(nproc) CPUs"
echo "wrk $(wrk -v 2>&1 | head -1 | awk '{print $2}'); ab $(ab -V | head -1 | awk '{print $5}' | tr -d ,); siege $(siege --version 2>&1 | head -1 | awk '{print $2}'); $("$tmp/bin/kurabe" version | head -1)"
echo
printf "%-8s %-7s %12s %10s %10s %9s   %s\n" file tool "req/s" "tool CPU" "nginx CPU" "foreign" "note"
for file in 58.txt 80k.bin; do
	url="http://127.0.0.1:$PORT/$file"
	declare -A rps=()
	for tool in wrk ab siege kurabe; do
		run_tool "$tool" "$url"
		rps[$tool]=$RPS
		awk -v f="$file" -v t="$tool" -v r="$RPS" -v o="$OURS" -v s="$SRV" -v x="$FOREIGN" -v n="$NOTE" 'BEGIN {
			printf "%-8s %-7s %12.0f %10.2f %10.2f %8.1f%%   %s\n", f, t, r, o / 1000, s / 1000, x / 10, n }'
	done
	awk -v f="$file" -v k="${rps[kurabe]}" -v w="${rps[wrk]}" -v a="${rps[ab]}" -v s="${rps[siege]}" 'BEGIN {
		sr = s > 0 ? sprintf("%.2fx", k / s) : "n/a"
		printf "%-8s kurabe/wrk %.2fx (goal >= 1.0)   kurabe/ab %.2fx (goal >= 2)   kurabe/siege %s (goal >= 2)\n\n", f, k / w, k / a, sr }'
	unset rps
done
