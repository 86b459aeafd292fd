#!/bin/bash
# SPDX-License-Identifier: MIT
#
# bench/web.sh: what tracing costs an ASP.NET Core service that throws, in
# requests per second under wrk.  A benchmark, not a test: it prints
# figures and never fails on them.
#
# Usage: [BUILD=DIR] [BASE=DIR] bench/web.sh [-d SECS] [-w SECS] [-r ROUNDS] [-c CONNS] [-e ENDPOINTS] [-P] [-p] [-k] [-M]
#   -d SECS      measured wrk run per service start           (default 10, env DURATION)
#   -w SECS      wrk warm-up of the same endpoint before it     (default 5, env WARM)
#   -r ROUNDS    interleaved rounds; medians are reported       (default 5, env ROUNDS)
#   -c CONNS     wrk connections, on one wrk thread             (default 8, env CONNS)
#   -e "/fail /boom"  the endpoints measured, each alone        (default "/fail /boom")
#   -P           pin: the service to CPU 0, wrk (and perf) to CPU 1 (taskset;
#                two CPUs or more).  Off by default: on a machine that
#                others load, a pinned service cannot move off a busy CPU
#   -p           then profile: one more run of untraced, clrtrace and
#                clrtrace -x '!*' (muted: callbacks, no record), and with
#                NULLPROF=1 the null profiler, on each endpoint with
#                `perf record --call-graph dwarf` on the
#                service during the measured window; reports in
#                $BUILD/bench/out/perf-* (the .data files are large)
#                (-r 0 -p: the profiles alone)
#   -k           keep the traces and the per-run table in $BUILD/bench/out
#   -M           do not run make in the build directory first
#
# MUTED=1 adds clrtrace -x '!*' (muted: the runtime delivers the exception
# callbacks and the state machine follows them, nothing is written) to the
# interleaved configurations: what the callbacks cost before any record.
# DEVNULL=1 adds clrtrace-devnull: clrtrace writing to /dev/null, all its
# work but the kernel's copy of the records into the page cache and the
# .pending mirror (a device gets none: its halves are private memory).
# REQUESTS=1 adds clrtrace-requests: the default categories and requests
# (-e +requests: an in-process EventPipe session on ASP.NET Core's request
# events, and a probe event at each throw; DESIGN.md, "Which request").
# BUDGETS="100 1000" adds clrtrace-budgetN for each N: the default
# categories with --budget N/1, at most N errors a second written in full
# (and the first of each type and site); the others are followed by the
# machine and counted, not written: what writing costs against following.
# NO_EVENTPIPE=1 leaves EventPipe out (fewer configurations, more rounds).
# NULLPROF=1 adds null-profiler: bench/null-profiler asking for the
# exception callbacks and returning from each at once, what the runtime's
# delivery of them costs any profiler (the floor under clrtrace's loss).
#
# LOGLEVEL=Information keeps the framework's per-request log lines (four
# info lines a request, to the service's stdout, a file); by default the
# service logs at Warning, as a production service configured like the
# ASP.NET Core templates does: /fail's 500s are still logged, with their
# stack traces, by Kestrel.
#
# BASE=DIR adds clrtrace-base: DIR/clrtrace and DIR/libclrtrace.so (another
# tree's build), interleaved with the rest.
#
# The service is tests/programs/Web on the default `dotnet` (.NET 10), built
# optimized into $BUILD/bench/out.  /boom throws and catches in its handler;
# /fail lets the exception escape to the framework, which answers 500.
# Configurations, in an order rotated every round:
#   untraced   dotnet Web.dll URL
#   clrtrace   clrtrace run -q -o file:T.jsonl -- dotnet Web.dll URL (default categories)
#   eventpipe  the runtime's own exception events (keyword 0x8000, level 5,
#              with stacks), streamed to a .nettrace file
# Each run starts the service, checks the endpoint's status code, runs wrk
# -t1 -cCONNS for the warm-up and then for the measured window, and stops
# the service with SIGTERM.  It reads requests/s and latency percentiles
# from wrk, the service's CPU time during the measured window from /proc
# (every thread, and `clrtrace run`'s too), and for clrtrace the records
# written and lost (trace.dropped and runtime.shutdown's totals).  wrk is
# Debian's package: the script installs it with apt-get when it is missing
# and it runs as root.
set -u
export LC_ALL=C
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1 \
	DOTNET_GENERATE_ASPNET_CERTIFICATE=0 DOTNET_CLI_WORKLOAD_UPDATE_NOTIFY_DISABLE=1
# a stray setting in the caller's environment must not trace the baseline
unset CORECLR_ENABLE_PROFILING CORECLR_PROFILER CORECLR_PROFILER_PATH DOTNET_EnableEventPipe \
	DOTNET_EventPipeConfig DOTNET_EventPipeOutputPath COMPlus_EnableEventPipe DOTNET_PerfMapEnabled DOTNET_EnableWriteXorExecute \
	CLRTRACE_OUTPUT CLRTRACE_EVENTS CLRTRACE_EXCEPTIONS CLRTRACE_PROCESSES ASPNETCORE_URLS 2>/dev/null

srcdir=$(cd "$(dirname "$0")/.." && pwd)
. "$srcdir/bench/lib.sh"
DURATION=${DURATION:-10}
WARM=${WARM:-5}
ROUNDS=${ROUNDS:-5}
CONNS=${CONNS:-8}
ENDPOINTS="/fail /boom"
PIN=0
PROFILE=0
KEEP=0
MAKE=1
BASE=${BASE:-}
LOGLEVEL=${LOGLEVEL:-Warning}
WITH_NULLPROF=${NULLPROF:+1} # build_null_profiler sets NULLPROF to the library

usage() { sed -n '/^# Usage:/,/^# The service is/p' "$0" | sed 's/^# \{0,1\}//' | sed '$d'; }

while getopts "d:w:r:c:e:PpkMh" opt; do
	case $opt in
	d) DURATION=$OPTARG ;;
	w) WARM=$OPTARG ;;
	r) ROUNDS=$OPTARG ;;
	c) CONNS=$OPTARG ;;
	e) ENDPOINTS=$OPTARG ;;
	P) PIN=1 ;;
	p) PROFILE=1 ;;
	k) KEEP=1 ;;
	M) MAKE=0 ;;
	h) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
done
for v in DURATION WARM ROUNDS CONNS; do
	[[ ${!v} =~ ^[0-9]+$ ]] || die "$v must be a number, not '${!v}'"
done
[ "$DURATION" -gt 0 ] && [ "$CONNS" -gt 0 ] || die "DURATION and CONNS must be at least 1"
[ "$ROUNDS" -gt 0 ] || [ "$PROFILE" = 1 ] || die "ROUNDS must be at least 1 (or 0 with -p)"
for e in $ENDPOINTS; do
	[[ $e =~ ^/[A-Za-z0-9/_-]*$ ]] || die "-e takes paths such as /fail, not '$e'"
done
[[ $LOGLEVEL =~ ^(Trace|Debug|Information|Warning|Error|Critical|None)$ ]] || die "LOGLEVEL is a .NET log level, not '$LOGLEVEL'"
[ -z "$BASE" ] || { [ -x "$BASE/clrtrace" ] && [ -f "$BASE/libclrtrace.so" ]; } ||
	die "BASE=$BASE holds no clrtrace and libclrtrace.so"

# --- tools: wrk (installed when missing), curl, perf for -p -----------------------
need_wrk
command -v curl >/dev/null 2>&1 || die "curl is needed"
[ "$PROFILE" = 0 ] || command -v perf >/dev/null 2>&1 || die "-p needs perf (Debian package linux-perf)"

# --- the build directory and the service -------------------------------------------
find_build libclrtrace.so
if [ "$MAKE" = 1 ] && [ -f "$BUILD/Makefile" ]; then
	echo "bench: make -C $BUILD" >&2
	make -C "$BUILD" -s -j"$(nproc)" clrtrace libclrtrace.so >"$BUILD/bench-make.log" 2>&1 ||
		echo "bench: make failed in $BUILD; measuring the binaries already there" >&2
fi
CLRTRACE=$BUILD/clrtrace
export CLRTRACE_LIBRARY=$BUILD/libclrtrace.so
[ -x "$CLRTRACE" ] && [ -f "$CLRTRACE_LIBRARY" ] || die "no clrtrace and libclrtrace.so in $BUILD"
command -v dotnet >/dev/null 2>&1 || die "no dotnet on PATH"
build_bench Web "$srcdir/tests/programs/Web"
[ -z "$WITH_NULLPROF" ] || build_null_profiler

# service on CPU 0, wrk (and perf) on CPU 1: they do not take each other's CPU
SVC_PIN=() WRK_PIN=()
if [ "$PIN" = 1 ] && [ "$(nproc)" -ge 2 ] && command -v taskset >/dev/null 2>&1; then
	SVC_PIN=(taskset -c 0) WRK_PIN=(taskset -c 1)
	PINNING="service on CPU 0, wrk on CPU 1"
else
	PINNING="unpinned"
fi

TMP=$(mktemp -d "${TMPDIR:-/tmp}/clrtrace-web.XXXXXX") || die "mktemp failed"
SVC=""
trap '[ -n "$SVC" ] && kill -TERM $SVC 2>/dev/null; rm -rf "$TMP"' EXIT
# config endpoint round rps p50 p90 p99 max non2xx sockerr cpu_ns requests_all records dropped summaries bytes load
RESULTS=$TMP/results.tsv
: >"$RESULTS"
TICK=$(getconf CLK_TCK)
# services listen below the ephemeral range: a port wrk's connections used
# (TIME_WAIT) cannot be bound again at once
EPH=$(cut -f1 /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null)
[[ ${EPH:-} =~ ^[0-9]+$ ]] && [ "$EPH" -gt 12000 ] || EPH=32768
PORT0=$((10000 + $$ % (EPH - 11000)))
RUNNO=0

# cpu_ticks PID...: user + system clock ticks of the processes (every thread).
cpu_ticks() {
	local p t=0 f
	for p in "$@"; do
		f=$(sed 's/^.*) //' "/proc/$p/stat" 2>/dev/null) || continue
		set -- $f
		t=$((t + ${12} + ${13}))
	done
	echo $t
}

# wrk_run SECS URL [ARGS...]: wrk on one thread, its summary line (WRK ...).
wrk_run() {
	local secs=$1 url=$2
	shift 2
	"${WRK_PIN[@]}" wrk -t1 -c"$CONNS" -d"${secs}s" --timeout 10s -s "$srcdir/bench/web/summary.lua" "$@" "$url" 2>&1 |
		grep '^WRK '
}

# field LINE NAME: the value of NAME=... in a WRK line.
field() { sed -n "s/.* $2=\([0-9.]*\).*/\1/p" <<<"$1"; }

# start CONFIG TRACE URL [PERF]: start the service in the background; sets
# RUNPID (what was started) and SVC (the service process).
start() {
	local cfg=$1 trace=$2 url=$3 i
	local cmd=(env Logging__LogLevel__Default="$LOGLEVEL")
	[ "${4:-}" = perf ] && cmd+=(DOTNET_PerfMapEnabled=1 DOTNET_EnableWriteXorExecute=0)
	case $cfg in
	untraced) cmd+=("${SVC_PIN[@]}" dotnet "$DLL" "$url") ;;
	clrtrace) cmd+=("${SVC_PIN[@]}" "$CLRTRACE" run -q -o "file:$trace" -- dotnet "$DLL" "$url") ;;
	clrtrace-muted) cmd+=("${SVC_PIN[@]}" "$CLRTRACE" run -q -x '!*' -o "file:$trace" -- dotnet "$DLL" "$url") ;;
	clrtrace-requests) cmd+=("${SVC_PIN[@]}" "$CLRTRACE" run -q -e +requests -o "file:$trace" -- dotnet "$DLL" "$url") ;;
	clrtrace-budget*) cmd+=("${SVC_PIN[@]}" "$CLRTRACE" run -q --budget "${cfg#clrtrace-budget}/1" -o "file:$trace" -- dotnet "$DLL" "$url") ;;
	clrtrace-devnull) cmd+=("${SVC_PIN[@]}" "$CLRTRACE" run -q -o file:/dev/null -- dotnet "$DLL" "$url") ;;
	clrtrace-base) cmd+=(CLRTRACE_LIBRARY="$BASE/libclrtrace.so" "${SVC_PIN[@]}" "$BASE/clrtrace" run -q -o "file:$trace" -- dotnet "$DLL" "$url") ;;
	null-profiler) cmd+=(CORECLR_ENABLE_PROFILING=1 CORECLR_PROFILER='{94D19DC5-3374-47C3-9729-75E330DECA23}'
		CORECLR_PROFILER_PATH="$NULLPROF" "${SVC_PIN[@]}" dotnet "$DLL" "$url") ;;
	eventpipe) cmd+=(DOTNET_EnableEventPipe=1 DOTNET_EventPipeConfig='Microsoft-Windows-DotNETRuntime:0x8000:5'
		DOTNET_EventPipeOutputPath="$trace" DOTNET_EventPipeOutputStreaming=1 "${SVC_PIN[@]}" dotnet "$DLL" "$url") ;;
	esac
	# env and taskset exec: RUNPID is the service, or clrtrace run.  The
	# service runs in its own directory: its content root, which the
	# framework watches for changes, must not be where traces or perf data
	# are written
	(cd "$(dirname "$DLL")" && exec "${cmd[@]}") >"$TMP/svc.out" 2>"$TMP/svc.err" &
	RUNPID=$!
	SVC=$RUNPID
	for i in $(seq 300); do
		curl -s -m 2 -o /dev/null "$url/" && break
		kill -0 $RUNPID 2>/dev/null || break
		sleep 0.1
	done
	curl -s -m 2 -o /dev/null "$url/" || { cat "$TMP/svc.out" "$TMP/svc.err" >&2; die "$cfg: the service did not answer at $url"; }
	# clrtrace run forks the program: measure and stop the program itself
	case $cfg in clrtrace*) SVC=$(pgrep -P $RUNPID | head -n1) ;; esac
	[ -n "$SVC" ] || die "$cfg: no service process under $RUNPID"
}

# stop: SIGTERM to the service, wait for what was started.
stop() {
	kill -TERM "$SVC" 2>/dev/null
	wait $RUNPID
	local rc=$?
	SVC=""
	[ "$rc" = 0 ] || echo "bench: the service exited with status $rc" >&2
}

# run_one CONFIG ENDPOINT ROUND: one service run; a line in $RESULTS.
run_one() {
	local cfg=$1 ep=$2 round=$3 url trace code want w m c0 c1 pids load
	local records=0 dropped=0 summaries=0 bytes=0 all
	RUNNO=$((RUNNO + 1))
	url="http://127.0.0.1:$((PORT0 + RUNNO % 1000))"
	case $cfg in
	eventpipe) trace=$TMP/$cfg.nettrace ;;
	*) trace=$TMP/$cfg.jsonl ;;
	esac
	rm -f "$trace"
	load=$(cut -d' ' -f1 /proc/loadavg)
	start "$cfg" "$trace" "$url"
	code=$(curl -s -m 10 -o /dev/null -w '%{http_code}' "$url$ep")
	case $ep in /fail) want=500 ;; *) want=200 ;; esac
	[ "$code" = "$want" ] || echo "bench: $cfg $ep answered $code, not $want" >&2
	w=$(wrk_run "$WARM" "$url$ep")
	pids=$SVC
	[ "$RUNPID" != "$SVC" ] && pids="$SVC $RUNPID"
	c0=$(cpu_ticks $pids)
	m=$(wrk_run "$DURATION" "$url$ep")
	c1=$(cpu_ticks $pids)
	stop
	[ -n "$m" ] || die "$cfg $ep: wrk printed no summary"
	all=$(($(field "$w" requests) + $(field "$m" requests) + 2))
	if [ -f "$trace" ]; then
		bytes=$(stat -c %s "$trace")
		if [ "$cfg" != eventpipe ]; then
			records=$(wc -l <"$trace")
			summaries=$(grep -c '"event":"exception\.summary"' "$trace")
			# gaps in seq (trace.dropped) and what sinks lost to the end (the totals)
			dropped=$(awk '/"event":"trace\.dropped"/ { if (match($0, /"count":[0-9]+/)) d += substr($0, RSTART + 8, RLENGTH - 8) }
				/"event":"runtime\.shutdown"/ { if (match($0, /"dropped":[0-9]+/)) t = substr($0, RSTART + 10, RLENGTH - 10) }
				END { print d + t }' "$trace")
			grep -q '"event":"runtime\.shutdown"' "$trace" || echo "bench: $cfg $ep: the trace has no runtime.shutdown" >&2
		fi
		[ "$KEEP" = 1 ] && cp "$trace" "$OUT/web-$cfg-${ep#/}.${trace##*.}"
		rm -f "$trace" "$trace".*
	fi
	printf '%s\t%s\t%s\t%.1f\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$cfg" "$ep" "$round" \
		"$(awk -v r="$(field "$m" requests)" -v d="$(field "$m" duration_us)" 'BEGIN { print (d > 0 ? r / (d / 1e6) : 0) }')" \
		"$(field "$m" p50)" "$(field "$m" p90)" "$(field "$m" p99)" "$(field "$m" max)" "$(field "$m" non2xx)" \
		$(($(field "$m" connect) + $(field "$m" read) + $(field "$m" write) + $(field "$m" timeout))) \
		$(((c1 - c0) * 1000000000 / TICK)) "$all" "$records" "$dropped" "$summaries" "$bytes" "$load" >>"$RESULTS"
	printf ' %s%s %.0f/s' "$cfg" "$ep" "$(tail -n1 "$RESULTS" | cut -f4)" >&2
}

# profile CONFIG ENDPOINT: perf record (DWARF call graphs) of the service
# during a measured window; the data and a report in
# $OUT/perf-CONFIG-ENDPOINT.{data,txt}: CPU time per request by library,
# by clrtrace callback, and for the runtime by the managed method that
# called into it (bench/web/attribute.awk), then self time by function.
# JIT-compiled code is named through a perf map, with W^X off, which the
# map needs (for every configuration alike).
profile() {
	local cfg=$1 ep=$2 url trace data rep m svc ppid hz=999 rq
	RUNNO=$((RUNNO + 1))
	url="http://127.0.0.1:$((PORT0 + RUNNO % 1000))"
	trace=$TMP/$cfg.trace
	data=$OUT/perf-$cfg-${ep#/}.data
	rep=$OUT/perf-$cfg-${ep#/}.txt
	start "$cfg" "$trace" "$url" perf
	wrk_run "$WARM" "$url$ep" >/dev/null
	"${WRK_PIN[@]}" perf record -q --call-graph dwarf,32768 -F $hz -o "$data" -p "$SVC" -- sleep "$DURATION" >/dev/null 2>&1 &
	ppid=$!
	m=$(wrk_run "$DURATION" "$url$ep")
	wait $ppid
	svc=$SVC
	stop
	rm -f "$trace" "$trace".*
	rq=$(field "$m" requests)
	{
		perf script -i "$data" -F tid,ip,sym,dso 2>/dev/null |
			awk -v hz=$hz -v rq="$rq" -v name="$cfg $ep" -f "$srcdir/bench/web/attribute.awk"
		echo "# $cfg $ep: self time by function (us per request)"
		perf report -i "$data" --no-children --sort dso,sym -g none --stdio -n 2>/dev/null | grep -v '^#' | grep -v '^$' |
			head -n 40 | awk -v hz=$hz -v rq="$rq" '{ sub(/^ *[0-9.]+% */, ""); n = $1; $1 = ""; printf "%9.2f  %s\n", n * 1e6 / hz / rq, $0 }'
	} >"$rep"
	rm -f "/tmp/perf-$svc.map" "/tmp/perfinfo-$svc.map"
	echo "bench: profile of $cfg $ep: $rep" >&2
}

CONFIGS=(untraced clrtrace)
[ -n "${NO_EVENTPIPE:-}" ] || CONFIGS+=(eventpipe)
[ -n "$BASE" ] && CONFIGS+=(clrtrace-base)
[ -n "${MUTED:-}" ] && CONFIGS+=(clrtrace-muted)
[ -n "${DEVNULL:-}" ] && CONFIGS+=(clrtrace-devnull)
[ -n "${REQUESTS:-}" ] && CONFIGS+=(clrtrace-requests)
for b in ${BUDGETS:-}; do
	[[ $b =~ ^[1-9][0-9]*$ ]] || die "BUDGETS takes errors a second, such as \"100 1000\", not '$b'"
	CONFIGS+=("clrtrace-budget$b")
done
[ -n "$WITH_NULLPROF" ] && CONFIGS+=(null-profiler)
NCFG=${#CONFIGS[@]}
runtime=$(dotnet --list-runtimes 2>/dev/null | awk '$1 == "Microsoft.AspNetCore.App" { v = $2 } END { print v }')
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n1)
echo "bench: $ENDPOINTS, wrk -t1 -c$CONNS, ${WARM}s warm-up + ${DURATION}s measured per run, $ROUNDS rounds; $PINNING; log level $LOGLEVEL;" \
	"$(nproc) CPUs ($cpu); ASP.NET Core $runtime; $(git -C "$srcdir" describe --always --dirty 2>/dev/null || echo '?')" >&2
for ((r = 1; r <= ROUNDS; r++)); do
	printf 'round %d/%d (load %s):' "$r" "$ROUNDS" "$(cut -d' ' -f1 /proc/loadavg)" >&2
	for ep in $ENDPOINTS; do
		for ((k = 0; k < NCFG; k++)); do
			run_one "${CONFIGS[$(((k + r) % NCFG))]}" "$ep" "$r"
		done
	done
	echo >&2
done
[ "$KEEP" = 1 ] && cp "$RESULTS" "$OUT/web-results.tsv"

# --- the report ----------------------------------------------------------------------
[ "$ROUNDS" -gt 0 ] && awk -F'\t' -v rounds="$ROUNDS" -v dur="$DURATION" -v eps="$ENDPOINTS" -v cfgs="${CONFIGS[*]}" -v pinning="$PINNING, log level $LOGLEVEL" -v conns="$CONNS" '
'"$AWK_MEDIAN"'
function loss(x, y) { return y > 0 ? sprintf("%+.1f%%", (1 - x / y) * 100) : "-" }
{ nr++; c[nr] = $1 SUBSEP $2; rd[nr] = $3; for (i = 4; i <= 17; i++) v[nr, i] = $i
  v[nr, 18] = $4 > 0 ? $11 / 1e3 / ($4 * dur) : 0	# CPU us per request, this run
  k = $1 SUBSEP $2
  if (!(k in lo) || $4 < lo[k]) lo[k] = $4
  if (!(k in hi) || $4 > hi[k]) hi[k] = $4
  drop[k] += $14; rec[k] += $13; sum[k] += $15; req[k] += $12; byt[k] += $16; err[k] += $10
  if (!ldn || $17 < lmin) lmin = $17
  if ($17 > lmax) lmax = $17
  ldn++ }
END {
	ne = split(eps, ep, " "); ncf = split(cfgs, cf, " ")
	printf "\nclrtrace web benchmark: wrk -t1 -c%d on loopback, %d s measured per run, medians of %d interleaved rounds (%s)\n", conns, dur, rounds, pinning
	printf "load average (1 min) at the start of the runs: %.2f to %.2f\n", lmin, lmax
	for (e = 1; e <= ne; e++) {
		u = median("untraced" SUBSEP ep[e], 4)
		printf "\n%s\n", ep[e]
		uc = median("untraced" SUBSEP ep[e], 18)
		printf "%-14s %9s %8s %15s %7s %7s %7s %6s %9s %8s %8s %8s %7s\n", "configuration", "req/s", "loss", "req/s min-max",
			"p50 us", "p90 us", "p99 us", "cores", "cpu us/rq", "cpu +%", "rec/rq", "B/rq", "lost"
		for (i = 1; i <= ncf; i++) {
			k = cf[i] SUBSEP ep[e]
			R = median(k, 4); C = median(k, 11); U = median(k, 18)
			printf "%-14s %9.0f %8s %15s %7.0f %7.0f %7.0f %6.2f %9.1f %8s %8s %8s %7s\n", cf[i], R,
				(cf[i] == "untraced" ? "-" : loss(R, u)), sprintf("%.0f-%.0f", lo[k], hi[k]),
				median(k, 5), median(k, 6), median(k, 7), C / (dur * 1e9), U,
				(cf[i] == "untraced" || uc == 0 ? "-" : sprintf("%+.1f%%", (U / uc - 1) * 100)),
				(cf[i] ~ /^clrtrace/ ? sprintf("%.2f", rec[k] / req[k]) : "-"),
				(cf[i] == "untraced" ? "-" : sprintf("%.0f", byt[k] / req[k])),
				(cf[i] ~ /^clrtrace/ ? drop[k] : "-")
			if (err[k] > 0)
				printf "  (%s: %d socket errors in wrk)\n", cf[i], err[k]
		}
		t = median("clrtrace" SUBSEP ep[e], 4); p = median("eventpipe" SUBSEP ep[e], 4)
		printf "clrtrace loss %s", loss(t, u)
		if (p > 0)
			printf ", EventPipe loss %s", loss(p, u)
		if (p > 0 && u > p)
			printf "; clrtrace loss / EventPipe loss: %.2f", (u - t) / (u - p)
		printf "\n"
		t = median("clrtrace" SUBSEP ep[e], 18); p = median("eventpipe" SUBSEP ep[e], 18)
		if (p > uc && uc > 0)
			printf "added CPU per request: clrtrace %+.1f us, EventPipe %+.1f us; clrtrace / EventPipe: %.2f\n", t - uc, p - uc, (t - uc) / (p - uc)
		if (sum["clrtrace" SUBSEP ep[e]] > 0)
			printf "clrtrace: %.2f exception.summary records per request\n", sum["clrtrace" SUBSEP ep[e]] / req["clrtrace" SUBSEP ep[e]]
		if (drop["clrtrace" SUBSEP ep[e]] > 0)
			printf "WARNING: clrtrace lost %d records on %s: not a valid comparison\n", drop["clrtrace" SUBSEP ep[e]], ep[e]
	}
	printf "\n(loss: requests/s below untraced; cores and cpu us/rq: CPU time of the service (and clrtrace run) during the measured window,\n"
	printf " per second and per request (median of the runs), cpu +%%: over untraced;\n"
	printf " rec/rq, B/rq: records and trace bytes per request over the whole run, warm-up included; lost: records lost, all rounds)\n"
}' "$RESULTS"

if [ "$PROFILE" = 1 ]; then
	echo >&2
	for ep in $ENDPOINTS; do
		for cfg in untraced clrtrace clrtrace-muted ${WITH_NULLPROF:+null-profiler}; do
			profile "$cfg" "$ep"
		done
	done
fi
exit 0
