#!/bin/bash
# Usage: [GEN0=HEX] bench/abort-race.sh [-n RUNS]
# How a .NET 8 process ends after an exception nobody catches while 4 other
# threads throw (Storm's unhandled scenario), untraced and traced,
# interleaved: the exit statuses and how many runs gave each.  Expected:
# 134 (SIGABRT).  .NET 8 restores the default action of its thread
# suspension signal (SIGRTMIN, 34) before abort(), so a garbage collection
# on another thread in that window kills the process with 162 instead
# (.NET 9 stopped restoring it, dotnet/runtime#105578).  GEN0 sets
# DOTNET_GCgen0size (default 10000, 64 KiB: a collection every few hundred
# exceptions) to make the window busy; GEN0= leaves the runtime's default.
# A figure, not a test: the same rate traced and untraced says the race is
# the runtime's (tests/stress-exit.sh accepts 162 on .NET 8 for that reason).
# BASE=DIR adds traced-base: DIR/clrtrace and DIR/libclrtrace.so (another
# tree's build), interleaved with the rest.  MUTED=1 adds muted: clrtrace
# -x '!*' (the callbacks followed, no record written).  NULLPROF=1 adds
# null-profiler: bench/null-profiler, which asks for the exception callbacks
# and returns from each at once (what a profiler's presence alone does).
# Needs the Storm program as tests/stress-exit.sh builds it (run that first).
srcdir=$(cd "$(dirname "$0")/.." && pwd)
. "$srcdir/bench/lib.sh"
runs_option 300 "$@"
WITH_NULLPROF=${NULLPROF:+1} # build_null_profiler sets NULLPROF to the library
find_build libclrtrace.so
[ -z "$WITH_NULLPROF" ] || build_null_profiler
[ -z "${BASE:-}" ] || { [ -x "$BASE/clrtrace" ] && [ -f "$BASE/libclrtrace.so" ]; } ||
	die "BASE=$BASE holds no clrtrace and libclrtrace.so"
# the newest of tests/lib.sh's .NET 8 builds (one directory per pack and sources)
prog="$(ls -dt "$BUILD/tests/out/bin/Storm-net8-"*/ 2>/dev/null | head -1)Storm"
[ -x "$prog" ] || die "no .NET 8 Storm program in $BUILD/tests/out/bin (run tests/stress-exit.sh)"
OUT=$BUILD/bench/out/abort-race
mkdir -p "$OUT"
GEN0=${GEN0-10000}
if [ -n "$GEN0" ]; then export DOTNET_GCgen0size=$GEN0; fi
echo "bench: $RUNS runs each of ${prog#"$BUILD"/} unhandled 4, DOTNET_GCgen0size=${GEN0:-(default)}, $(nproc) CPUs" >&2
for i in $(seq "$RUNS"); do
	timeout 120 "$prog" unhandled 4 >/dev/null 2>&1
	echo "untraced $?"
	rm -f "$OUT/t.jsonl"*
	CLRTRACE_LIBRARY="$BUILD/libclrtrace.so" timeout 120 "$BUILD/clrtrace" run -q -o "file:$OUT/t.jsonl" -- "$prog" unhandled 4 >/dev/null 2>&1
	echo "traced $?"
	if [ -n "${MUTED:-}" ]; then
		rm -f "$OUT/t.jsonl"*
		CLRTRACE_LIBRARY="$BUILD/libclrtrace.so" timeout 120 "$BUILD/clrtrace" run -q -x '!*' -o "file:$OUT/t.jsonl" -- "$prog" unhandled 4 >/dev/null 2>&1
		echo "muted $?"
	fi
	if [ -n "$WITH_NULLPROF" ]; then
		CORECLR_ENABLE_PROFILING=1 CORECLR_PROFILER='{94D19DC5-3374-47C3-9729-75E330DECA23}' \
			CORECLR_PROFILER_PATH="$NULLPROF" timeout 120 "$prog" unhandled 4 >/dev/null 2>&1
		echo "null-profiler $?"
	fi
	if [ -n "${BASE:-}" ]; then
		rm -f "$OUT/t.jsonl"*
		CLRTRACE_LIBRARY="$BASE/libclrtrace.so" timeout 120 "$BASE/clrtrace" run -q -o "file:$OUT/t.jsonl" -- "$prog" unhandled 4 >/dev/null 2>&1
		echo "traced-base $?"
	fi
done 2>/dev/null | sort | uniq -c | awk '{ printf "%-14s exit %3s: %5d of %d runs\n", $2, $3, $1, '"$RUNS"' }'
rm -f "$OUT/t.jsonl"*
