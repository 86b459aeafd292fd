#!/bin/bash
# SPDX-License-Identifier: MIT
#
# bench/soak.sh: clrtrace left on, as an operator leaves it: an ASP.NET Core
# service that throws at a fixed rate on 4 connections for a long time,
# traced with the production defaults (the default output: rotated,
# compressed, bounded), next to the same service untraced under the same
# load at the same time.  A benchmark, not a test: it prints figures and
# never fails on them.
#
# Usage: [BUILD=DIR] bench/soak.sh [-m MINUTES] [-R RATE] [-i SECS] [-s SIZE] [-M]
#   -m MINUTES  how long the load runs                  (default 10, env MINUTES;
#               the long form is 60)
#   -R RATE     requests per second in all, on 4 wrk connections, half of
#               them /fail (the framework answers 500), half /boom (caught
#               in the handler)                            (default 200, env RATE)
#   -i SECS     how often the services' RSS is read      (default 30, env INTERVAL)
#   -s SIZE     max-size of the traced run's files, to see rotation in a
#               short soak; empty = the default output's own (default empty,
#               env SIZE)
#   -M          do not run make in the build directory first
#
# It prints, every interval, the RSS of both services (traced, untraced,
# the ratio) and the trace's disk use; at the end the requests each
# served, the files rotated, compressed and removed, the disk used, the
# records kept, the exceptions left out (sampling, -x) and lost, and
# `clrtrace check` over the rotated set.  wrk is Debian's package.
set -u
export LC_ALL=C
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1 \
	DOTNET_GENERATE_ASPNET_CERTIFICATE=0 DOTNET_CLI_WORKLOAD_UPDATE_NOTIFY_DISABLE=1
unset CORECLR_ENABLE_PROFILING CORECLR_PROFILER CORECLR_PROFILER_PATH DOTNET_EnableEventPipe \
	CLRTRACE_OUTPUT CLRTRACE_EVENTS CLRTRACE_EXCEPTIONS CLRTRACE_PROCESSES ASPNETCORE_URLS 2>/dev/null

srcdir=$(cd "$(dirname "$0")/.." && pwd)
. "$srcdir/bench/lib.sh"
MINUTES=${MINUTES:-10}
RATE=${RATE:-200}
INTERVAL=${INTERVAL:-30}
SIZE=${SIZE:-}
MAKE=1

usage() { sed -n '/^# Usage:/,/^# It prints/p' "$0" | sed 's/^# \{0,1\}//' | sed '$d'; }
while getopts "m:R:i:s:Mh" opt; do
	case $opt in
	m) MINUTES=$OPTARG ;;
	R) RATE=$OPTARG ;;
	i) INTERVAL=$OPTARG ;;
	s) SIZE=$OPTARG ;;
	M) MAKE=0 ;;
	h) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
done
for v in MINUTES RATE INTERVAL; do
	[[ ${!v} =~ ^[0-9]+$ ]] && [ "${!v}" -gt 0 ] || die "$v must be a number above 0, not '${!v}'"
done
[ -z "$SIZE" ] || [[ $SIZE =~ ^[0-9]+[KMG]?$ ]] || die "-s takes a size such as 16M, not '$SIZE'"
need_wrk
command -v curl >/dev/null 2>&1 || die "curl is needed"

find_build libclrtrace.so
if [ "$MAKE" = 1 ] && [ -f "$BUILD/Makefile" ]; then
	make -C "$BUILD" -s -j"$(nproc)" clrtrace libclrtrace.so >"$BUILD/bench-make.log" 2>&1 ||
		echo "bench: make failed in $BUILD; measuring the binaries already there" >&2
fi
CLRTRACE=$BUILD/clrtrace
export CLRTRACE_LIBRARY=$BUILD/libclrtrace.so
[ -x "$CLRTRACE" ] && [ -f "$CLRTRACE_LIBRARY" ] || die "no clrtrace and libclrtrace.so in $BUILD"
build_bench Web "$srcdir/tests/programs/Web"

TMP=$(mktemp -d "${TMPDIR:-/tmp}/clrtrace-soak.XXXXXX") || die "mktemp failed"
TRACES=$TMP/traces
mkdir -p "$TRACES"
PIDS=()
trap 'for p in "${PIDS[@]}"; do kill -TERM $p 2>/dev/null; done; wait; rm -rf "$TMP"' EXIT
EPH=$(cut -f1 /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null)
[[ ${EPH:-} =~ ^[0-9]+$ ]] && [ "$EPH" -gt 12000 ] || EPH=32768
PORT=$((10000 + $$ % (EPH - 11000)))
URL_U=http://127.0.0.1:$PORT URL_T=http://127.0.0.1:$((PORT + 1))

# the load: 4 connections, each waiting 4000/RATE ms between requests,
# alternating /fail and /boom
cat >"$TMP/soak.lua" <<EOF
local n = 0
request = function()
   n = n + 1
   if n % 2 == 0 then return wrk.format("GET", "/fail") end
   return wrk.format("GET", "/boom")
end
delay = function() return $((4000 / RATE)) end
EOF
cat "$srcdir/bench/web/summary.lua" >>"$TMP/soak.lua"

# wait_up URL PID: until the service answers
wait_up() {
	local i
	for i in $(seq 300); do
		curl -s -m 2 -o /dev/null "$1/" && return 0
		kill -0 "$2" 2>/dev/null || break
		sleep 0.1
	done
	die "the service at $1 did not answer"
}
rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status" 2>/dev/null || echo 0; }

# the output the production defaults give, in a directory of its own; with
# -s the same with a smaller max-size, to see rotation in a short soak
OUTSPEC=()
[ -z "$SIZE" ] || OUTSPEC=(-o "file:$TRACES/clrtrace-Web-%p.jsonl,max-size=$SIZE,keep=8,min-free=10%")
DLLDIR=$(dirname "$DLL")
(cd "$DLLDIR" && exec env Logging__LogLevel__Default=Warning dotnet "$DLL" "$URL_U") >"$TMP/u.out" 2>&1 &
UPID=$!
PIDS+=($UPID)
# run from the traces' directory: the default output is relative to it
(cd "$TRACES" && exec env Logging__LogLevel__Default=Warning "$CLRTRACE" run "${OUTSPEC[@]}" -- \
	dotnet "$DLL" "$URL_T") >"$TMP/t.out" 2>"$TMP/t.err" &
RPID=$!
PIDS+=($RPID)
wait_up "$URL_U" $UPID
wait_up "$URL_T" $RPID
TPID=$(pgrep -P $RPID | head -n1)
[ -n "$TPID" ] || die "no traced service under clrtrace run ($RPID)"

SECS=$((MINUTES * 60))
echo "bench: soak $MINUTES min, $RATE requests/s on 4 connections (/fail and /boom) to each service;" \
	"output ${SIZE:+max-size=$SIZE }$([ -z "$SIZE" ] && echo 'the default');" \
	"$(nproc) CPUs; $(git -C "$srcdir" describe --always --dirty 2>/dev/null || echo '?')" >&2
wrk -t2 -c4 -d"${SECS}s" --timeout 10s -s "$TMP/soak.lua" "$URL_U" >"$TMP/wrk-u.out" 2>&1 &
WU=$!
wrk -t2 -c4 -d"${SECS}s" --timeout 10s -s "$TMP/soak.lua" "$URL_T" >"$TMP/wrk-t.out" 2>&1 &
WT=$!
printf '%8s %12s %12s %7s %10s %6s\n' "time_s" "rss_untraced" "rss_traced" "ratio" "disk_kb" "files"
t0=$SECONDS
MAXU=0 MAXT=0
while kill -0 $WU 2>/dev/null || kill -0 $WT 2>/dev/null; do
	u=$(rss_kb $UPID) t=$(rss_kb $TPID)
	[ "$u" -gt "$MAXU" ] && MAXU=$u
	[ "$t" -gt "$MAXT" ] && MAXT=$t
	printf '%8d %10d K %10d K %7.3f %10d %6d\n' $((SECONDS - t0)) "$u" "$t" \
		"$(awk -v a="$t" -v b="$u" 'BEGIN { print (b > 0 ? a / b : 0) }')" \
		"$(du -sk "$TRACES" | cut -f1)" "$(find "$TRACES" -type f | wc -l)"
	sleep "$INTERVAL" & wait $! 2>/dev/null
done
wait $WU $WT
kill -TERM $UPID $TPID 2>/dev/null
wait $UPID
wait $RPID
rc=$?
PIDS=()
reqs() { sed -n 's/^WRK requests=\([0-9]*\).*non2xx=\([0-9]*\).*/\1/p' "$1"; }
echo "requests served: untraced $(reqs "$TMP/wrk-u.out"), traced $(reqs "$TMP/wrk-t.out"); clrtrace run exited $rc"
echo "peak RSS: untraced ${MAXU} K, traced ${MAXT} K ($(awk -v a="$MAXT" -v b="$MAXU" 'BEGIN { printf "%.3f", (b > 0 ? a / b : 0) }'))"
echo "files: $(find "$TRACES" -name '*.jsonl' | wc -l) .jsonl, $(find "$TRACES" -name '*.zst' | wc -l) .zst;" \
	"disk used $(du -sk "$TRACES" | cut -f1) K"
echo "clrtrace run said:"
sed 's/^/  /' "$TMP/t.err" | tail -n 8
echo "stats --json: errors, throws, fates, left out, lost, retention:"
"$CLRTRACE" stats --json "$TRACES" 2>&1 | jq -c '{errors: .exceptions.errors.total, throws: .exceptions.errors.throws,
	fates: .exceptions.errors.by_fate, left_out: (.exceptions.left_out // null), lost: .dropped.records,
	retention: (.retention // null)}' 2>/dev/null | sed 's/^/  /' || echo "  (stats failed)"
echo "check over the set:"
"$CLRTRACE" check "$TRACES" 2>&1 | tail -n 5 | sed 's/^/  /'
exit 0
