# Shared by the bench scripts: CPU accounting and the noise guard of
# ../shared/MACHINE.md (wait until the machine is idle before a timed run,
# record the CPU other processes use during it). Source it; it needs
# IDLE_MAX (% of one core) and IDLE_WAIT (seconds) set. A script that runs
# a server of its own sets SERVER_PID to the server's main process, so that
# measure reports the server's CPU apart (SERVER) instead of as foreign.

HZ=$(getconf CLK_TCK)

# --- CPU accounting, all with shell builtins (no forks while measuring) ----

# sys_sample sets SYS_BUSY: the machine's non-idle ticks (user, nice, system,
# irq, softirq, steal) from the first line of /proc/stat.
sys_sample() {
	local cpu u n s idle iow irq sirq st rest
	read -r cpu u n s idle iow irq sirq st rest </proc/stat
	SYS_BUSY=$((u + n + s + irq + sirq + st))
}

# own_sample sets OWN: ticks used by this shell and by the children it has
# reaped (utime, stime, cutime, cstime of /proc/$$/stat).
own_sample() {
	local line f
	read -r line <"/proc/$$/stat"
	line=${line##*) }
	read -r -a f <<<"$line"
	OWN=$((f[11] + f[12] + f[13] + f[14]))
}

# server_ticks PID sets TICKS: ticks used by PID, by the children it has
# reaped, and by its live descendants (a PostgreSQL postmaster and its
# backends, or a single mariadbd), found through /proc/PID/task/*/children.
# Builtins only. Returns 1, with TICKS 0, when PID is gone.
server_ticks() {
	local todo=("$1") pid line f kids st k
	TICKS=0
	while ((${#todo[@]})); do
		pid=${todo[-1]}
		unset 'todo[-1]'
		read -r line 2>/dev/null <"/proc/$pid/stat" || {
			[[ $pid != "$1" ]] || return 1
			continue
		}
		read -r -a st <<<"${line##*) }"
		if [[ $pid == "$1" ]]; then
			TICKS=$((TICKS + st[11] + st[12] + st[13] + st[14]))
		else
			TICKS=$((TICKS + st[11] + st[12]))
		fi
		for f in /proc/"$pid"/task/*/children; do
			read -r -a kids 2>/dev/null <"$f" || [[ ${#kids[@]} -gt 0 ]] || continue
			for k in "${kids[@]}"; do
				todo+=("$k")
			done
		done
	done
}

# now_us sets NOW_US: wall clock in microseconds.
now_us() {
	local t=${EPOCHREALTIME/[.,]/}
	NOW_US=$((10#$t))
}

# permille TICKS MICROSECONDS: thousandths of one core, averaged.
permille() { echo $(($1 * 1000 * 1000000 / HZ / $2)); }

# wait_idle waits until the machine used under IDLE_MAX % of one core over
# one second (nothing of ours runs meanwhile), at most IDLE_WAIT seconds.
# Sets IDLE_NOTE to "" when idle was reached, else to a warning.
wait_idle() {
	local deadline=$((SECONDS + IDLE_WAIT)) b0 t0 load
	while :; do
		sys_sample
		b0=$SYS_BUSY
		now_us
		t0=$NOW_US
		sleep 1
		sys_sample
		now_us
		load=$(((SYS_BUSY - b0) * 1000 * 1000000 / HZ / (NOW_US - t0)))
		if ((load <= IDLE_MAX * 10)); then
			IDLE_NOTE=""
			return
		fi
		if ((SECONDS >= deadline)); then
			IDLE_NOTE="machine not idle before run ($((load / 10))% of a core after ${IDLE_WAIT}s)"
			return
		fi
	done
}

# measure OUT CMD...: runs CMD with stdout to OUT and sets FOREIGN, OURS and
# SERVER, in thousandths of one core averaged over the run: OURS is the CPU
# of this shell and its children (the benchmarked process), SERVER that of
# the server SERVER_PID and its descendants (0 when SERVER_PID is unset),
# FOREIGN the rest of the machine's non-idle time.
measure() {
	local out=$1 b0 o0 t0 dt total ours s0=0 server=0
	shift
	if [[ -n ${SERVER_PID:-} ]]; then
		server_ticks "$SERVER_PID" || true
		s0=$TICKS
	fi
	own_sample
	o0=$OWN
	sys_sample
	b0=$SYS_BUSY
	now_us
	t0=$NOW_US
	"$@" >"$out"
	now_us
	dt=$((NOW_US - t0))
	sys_sample
	own_sample
	if [[ -n ${SERVER_PID:-} ]]; then
		server_ticks "$SERVER_PID" || true
		server=$((TICKS - s0))
	fi
	total=$((SYS_BUSY - b0 - server))
	ours=$((OWN - o0))
	FOREIGN=$(permille $((total > ours ? total - ours : 0)) "$dt")
	OURS=$(permille "$ours" "$dt")
	SERVER=$(permille "$server" "$dt")
}

