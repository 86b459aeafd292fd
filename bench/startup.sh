#!/bin/bash
# SPDX-License-Identifier: MIT
#
# bench/startup.sh: what tracing costs a program's start-up.  A benchmark,
# not a test: it prints figures and never fails on them.
#
# Usage: [BUILD=DIR] [BASE=DIR] bench/startup.sh [-r RUNS] [-M] [-w]
#   -r RUNS   runs of each configuration, interleaved (default 20, env RUNS)
#   -M        do not run make in the build directory first
#   -w        the ASP.NET Core service too (tests/programs/StartupWeb, which
#             stops once IHostApplicationLifetime.ApplicationStarted fired):
#             web-untraced, web-startup (-e +startup --ready: what
#             `clrtrace startup` needs of a service), web-tiers (the same
#             with +tiers)
#
# The program is bench/exceptions/Throw with no exception (`Throw.dll 0 0`):
# a hello world that prints one line.  Configurations, interleaved run by run:
#   untraced       dotnet Throw.dll 0 0
#   clrtrace       clrtrace run -q -o file:T.jsonl -- dotnet Throw.dll 0 0
#                  (default categories)
#   clrtrace-none  the same with -e none (the library loaded, nothing traced)
#   clrtrace-startup  the same with -e +startup: what `clrtrace startup`
#                  reads (issue 30's target: at most 1.15x untraced wall time)
#   clrtrace-tiers the same with -e +startup,+tiers: the compile tiers too
#                  (an EventPipe session on the runtime's JIT events)
#   profiler-env   no `clrtrace run`: the variables `clrtrace env` prints,
#                  default categories (what run itself costs is the rest)
#   null-profiler  bench/null-profiler asking for no events (NULLPROF_MASK=0):
#                  what loading any profiler costs the runtime
#   clrtrace-base  with BASE=DIR: DIR/clrtrace and DIR/libclrtrace.so
# It prints the median wall time and CPU time (user+system of the process
# tree) of each, measured by bench/timer, their differences from untraced
# and the ratios.
set -u
export LC_ALL=C
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1
unset CORECLR_ENABLE_PROFILING CORECLR_PROFILER CORECLR_PROFILER_PATH DOTNET_EnableEventPipe \
	CLRTRACE_OUTPUT CLRTRACE_EVENTS CLRTRACE_EXCEPTIONS CLRTRACE_PROCESSES 2>/dev/null

srcdir=$(cd "$(dirname "$0")/.." && pwd)
. "$srcdir/bench/lib.sh"
RUNS=${RUNS:-20}
MAKE=1
WEB=0
BASE=${BASE:-}
while getopts "r:Mwh" opt; do
	case $opt in
	r) RUNS=$OPTARG ;;
	M) MAKE=0 ;;
	w) WEB=1 ;;
	h) sed -n 's/^# Usage: /Usage: /p' "$0"; exit 0 ;;
	*) exit 2 ;;
	esac
done
[[ $RUNS =~ ^[1-9][0-9]*$ ]] || die "RUNS must be a number, not '$RUNS'"
[ -z "$BASE" ] || { [ -x "$BASE/clrtrace" ] && [ -f "$BASE/libclrtrace.so" ]; } ||
	die "BASE=$BASE holds no clrtrace and libclrtrace.so"
find_build libclrtrace.so
if [ "$MAKE" = 1 ] && [ -f "$BUILD/Makefile" ]; then
	make -C "$BUILD" -s -j"$(nproc)" clrtrace libclrtrace.so >"$BUILD/bench-make.log" 2>&1 ||
		echo "bench: make failed in $BUILD; measuring the binaries already there" >&2
fi
CLRTRACE=$BUILD/clrtrace
[ -x "$CLRTRACE" ] && [ -f "$BUILD/libclrtrace.so" ] || die "no clrtrace and libclrtrace.so in $BUILD"
command -v dotnet >/dev/null 2>&1 || die "no dotnet on PATH"
build_throw
build_null_profiler
# the timer: wall and CPU time of one run, in nanoseconds and microseconds
TIMER=$BUILD/bench/out/timer
if [ ! -x "$TIMER" ] || [ "$srcdir/bench/timer/timer.c" -nt "$TIMER" ]; then
	${CC:-gcc} -std=gnu11 -O2 -Wall -Wextra -o "$TIMER" "$srcdir/bench/timer/timer.c" || die "could not build the timer"
fi

TMP=$(mktemp -d "${TMPDIR:-/tmp}/clrtrace-startup.XXXXXX") || die "mktemp failed"
trap 'rm -rf "$TMP"' EXIT
RESULTS=$TMP/results.tsv # config wall_ns cpu_ns
CONFIGS=(untraced clrtrace clrtrace-none clrtrace-startup clrtrace-tiers profiler-env null-profiler)
# the variables of profiler-env, as `clrtrace env` prints them (export NAME='VALUE' lines)
PENV=$(CLRTRACE_LIBRARY=$BUILD/libclrtrace.so "$CLRTRACE" env -o "file:$TMP/t.jsonl") || die "clrtrace env failed"
[ -n "$BASE" ] && CONFIGS+=(clrtrace-base)
if [ "$WEB" = 1 ]; then
	THROW_DLL=$DLL
	build_bench StartupWeb "$srcdir/tests/programs/StartupWeb"
	WEB_DLL=$DLL
	DLL=$THROW_DLL
	CONFIGS+=(web-untraced web-startup web-tiers)
fi

# run_one CONFIG: one run, a line in $RESULTS (KEEP=0: the warm-up run).
run_one() {
	local cfg=$1 keep=$2 rc
	local T=("$TIMER" -o "$TMP/times")
	rm -f "$TMP/t.jsonl" "$TMP/times"
	case $cfg in
	untraced) "${T[@]}" dotnet "$DLL" 0 0 ;;
	clrtrace) CLRTRACE_LIBRARY=$BUILD/libclrtrace.so "${T[@]}" "$CLRTRACE" run -q -o "file:$TMP/t.jsonl" -- dotnet "$DLL" 0 0 ;;
	clrtrace-none) CLRTRACE_LIBRARY=$BUILD/libclrtrace.so "${T[@]}" "$CLRTRACE" run -q -e none -o "file:$TMP/t.jsonl" -- dotnet "$DLL" 0 0 ;;
	clrtrace-startup) CLRTRACE_LIBRARY=$BUILD/libclrtrace.so "${T[@]}" "$CLRTRACE" run -q -e +startup -o "file:$TMP/t.jsonl" -- dotnet "$DLL" 0 0 ;;
	clrtrace-tiers) CLRTRACE_LIBRARY=$BUILD/libclrtrace.so "${T[@]}" "$CLRTRACE" run -q -e +startup,+tiers -o "file:$TMP/t.jsonl" -- dotnet "$DLL" 0 0 ;;
	profiler-env) (eval "$PENV" && exec "${T[@]}" dotnet "$DLL" 0 0) ;;
	null-profiler) CORECLR_ENABLE_PROFILING=1 CORECLR_PROFILER='{94D19DC5-3374-47C3-9729-75E330DECA23}' \
		CORECLR_PROFILER_PATH=$NULLPROF NULLPROF_MASK=0 "${T[@]}" dotnet "$DLL" 0 0 ;;
	clrtrace-base) CLRTRACE_LIBRARY=$BASE/libclrtrace.so "${T[@]}" "$BASE/clrtrace" run -q -o "file:$TMP/t.jsonl" -- dotnet "$DLL" 0 0 ;;
	web-untraced) "${T[@]}" dotnet "$WEB_DLL" http://127.0.0.1:0 exit ;;
	web-startup) CLRTRACE_LIBRARY=$BUILD/libclrtrace.so "${T[@]}" "$CLRTRACE" run -q -e +startup --ready '^started ' \
		-o "file:$TMP/t.jsonl" -- dotnet "$WEB_DLL" http://127.0.0.1:0 exit ;;
	web-tiers) CLRTRACE_LIBRARY=$BUILD/libclrtrace.so "${T[@]}" "$CLRTRACE" run -q -e +startup,+tiers --ready '^started ' \
		-o "file:$TMP/t.jsonl" -- dotnet "$WEB_DLL" http://127.0.0.1:0 exit ;;
	esac >"$TMP/out" 2>"$TMP/err"
	rc=$?
	[ "$rc" = 0 ] && grep -q '^THROW \|^started ' "$TMP/out" && [ -s "$TMP/times" ] ||
		{ cat "$TMP/out" "$TMP/err" >&2; die "$cfg run failed (status $rc)"; }
	[ "$keep" = 1 ] && printf '%s\t%s\t%s\n' "$cfg" $(cat "$TMP/times") >>"$RESULTS"
	return 0
}

echo "bench: start-up, $RUNS interleaved runs each; $(nproc) CPUs; $(git -C "$srcdir" describe --always --dirty 2>/dev/null)" >&2
for cfg in "${CONFIGS[@]}"; do
	run_one "$cfg" 0
done
for ((r = 0; r < RUNS; r++)); do
	for ((k = 0; k < ${#CONFIGS[@]}; k++)); do
		run_one "${CONFIGS[$(((k + r) % ${#CONFIGS[@]}))]}" 1
	done
	printf '.' >&2
done
echo >&2
awk -F'\t' -v runs="$RUNS" -v list="${CONFIGS[*]}" '
'"$AWK_MEDIAN"'
{ nr++; c[nr] = $1; v[nr, 2] = $2; v[nr, 3] = $3 }
END {
	n = split(list, cf, " ")
	printf "\nstart-up of a hello world (Throw.dll 0 0), medians of %d interleaved runs\n", runs
	printf "(web-*: the ASP.NET Core service from exec to exit, compared with web-untraced)\n\n"
	printf "%-16s %10s %8s %8s %10s %8s %8s\n", "configuration", "wall ms", "+ms", "ratio", "cpu ms", "+ms", "ratio"
	for (i = 1; i <= n; i++) {
		W = median(cf[i], 2); C = median(cf[i], 3)
		if (i == 1 || cf[i] == "web-untraced") { w0 = W; c0 = C }
		printf "%-16s %10.1f %+8.1f %8s %10.1f %+8.1f %8s\n", cf[i], W / 1e6, (W - w0) / 1e6,
			(w0 > 0 ? sprintf("%.3f", W / w0) : "-"), C / 1e6, (C - c0) / 1e6, (c0 > 0 ? sprintf("%.3f", C / c0) : "-")
	}
}' "$RESULTS"
exit 0
