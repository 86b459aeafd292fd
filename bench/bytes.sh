#!/bin/bash
# SPDX-License-Identifier: MIT
#
# bench/bytes.sh: how many bytes and records clrtrace writes per exception,
# event by event, for bench/exceptions/Throw (3 frames between the throw
# and the catch, one finally).  A benchmark, not a test: it prints figures
# and never fails on them.  Sizes do not depend on the machine's speed, so
# one run of each configuration is enough.
#
# Usage: [BUILD=DIR] bench/bytes.sh [-n N] [-w WARMUP] [-e "CATS..."] [-k] [-M]
#   -n N        measured iterations (exceptions)                 (default 20000, env N)
#   -w WARMUP   iterations before them (traced all the same)    (default 1000, env WARMUP)
#   -e "default +stacks"  the -e arguments measured, one run each ("default": no -e)
#   -k          keep the traces in $BUILD/bench/out/bytes-*.jsonl
#   -M          do not run make in the build directory first
#
# BASE=DIR adds the same runs with DIR/clrtrace and DIR/libclrtrace.so
# (another tree's build): a before and after.  NO_EVENTPIPE=1 leaves out the
# EventPipe run (the runtime's exception events with a stack each, keyword
# 0x8000 level 5, the .nettrace file's bytes per exception).
#
# For each run: bytes and records per exception (N + WARMUP exceptions), of
# the whole file and of each event, and the average size of one record of
# each event.  It needs jq.
set -u
export LC_ALL=C
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1
unset CORECLR_ENABLE_PROFILING CORECLR_PROFILER CORECLR_PROFILER_PATH DOTNET_EnableEventPipe \
	DOTNET_EventPipeConfig DOTNET_EventPipeOutputPath COMPlus_EnableEventPipe \
	CLRTRACE_OUTPUT CLRTRACE_EVENTS CLRTRACE_EXCEPTIONS CLRTRACE_PROCESSES 2>/dev/null

srcdir=$(cd "$(dirname "$0")/.." && pwd)
. "$srcdir/bench/lib.sh"
N=${N:-20000}
WARMUP=${WARMUP:-1000}
CATS="default +stacks"
KEEP=0
MAKE=1
BASE=${BASE:-}

usage() { sed -n '/^# Usage:/,/^# BASE=DIR/p' "$0" | sed 's/^# \{0,1\}//' | sed '$d'; }

while getopts "n:w:e:kMh" opt; do
	case $opt in
	n) N=$OPTARG ;;
	w) WARMUP=$OPTARG ;;
	e) CATS=$OPTARG ;;
	k) KEEP=1 ;;
	M) MAKE=0 ;;
	h) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
done
for v in N WARMUP; do
	[[ ${!v} =~ ^[0-9]+$ ]] || die "$v must be a number, not '${!v}'"
done
[ "$N" -gt 0 ] || die "N must be at least 1"
command -v jq >/dev/null 2>&1 || die "no jq"
[ -z "$BASE" ] || { [ -x "$BASE/clrtrace" ] && [ -f "$BASE/libclrtrace.so" ]; } ||
	die "BASE=$BASE holds no clrtrace and libclrtrace.so"

find_build libclrtrace.so
if [ "$MAKE" = 1 ] && [ -f "$BUILD/Makefile" ]; then
	echo "bench: make -C $BUILD" >&2
	make -C "$BUILD" -s -j"$(nproc)" clrtrace libclrtrace.so >"$BUILD/bench-make.log" 2>&1 ||
		echo "bench: make failed in $BUILD; measuring the binaries already there" >&2
fi
[ -x "$BUILD/clrtrace" ] && [ -f "$BUILD/libclrtrace.so" ] || die "no clrtrace and libclrtrace.so in $BUILD"
command -v dotnet >/dev/null 2>&1 || die "no dotnet on PATH"
build_throw

TMP=$(mktemp -d "${TMPDIR:-/tmp}/clrtrace-bytes.XXXXXX") || die "mktemp failed"
trap 'rm -rf "$TMP"' EXIT
TOTAL=$((N + WARMUP))

# report NAME TRACE: bytes and records per exception, by event.
report() {
	local name=$1 trace=$2
	echo
	echo "$name: $(stat -c %s "$trace") bytes, $(wc -l <"$trace") records for $TOTAL exceptions"
	# one line per record: its event and its length with the newline
	jq -rR --argjson n "$TOTAL" '
		(fromjson? // {event: "(not JSON)"}) as $r | [$r.event, (utf8bytelength + 1)] | @tsv' "$trace" |
		awk -F'\t' -v n="$TOTAL" '
		{ b[$1] += $2; r[$1]++; B += $2; R++ }
		END {
			printf "  %-28s %10s %10s %10s\n", "event", "B/exc", "rec/exc", "B/record"
			for (e in b) printf "  %-28s %10.1f %10.3f %10.1f\n", e, b[e] / n, r[e] / n, b[e] / r[e] | "sort -k2,2 -rn"
			close("sort -k2,2 -rn")
			printf "  %-28s %10.1f %10.3f %10.1f\n", "all", B / n, R / n, B / R
		}'
}

# run_one LABEL CLRTRACE LIBRARY CATS
run_one() {
	local label=$1 ct=$2 lib=$3 cats=$4 trace=$TMP/bytes.jsonl args=()
	[ "$cats" = default ] || args=(-e "$cats")
	rm -f "$trace"
	CLRTRACE_LIBRARY=$lib "$ct" run -q "${args[@]}" -o "file:$trace" -- dotnet "$DLL" "$N" "$WARMUP" >"$TMP/out" 2>&1 ||
		{ cat "$TMP/out" >&2; die "$label: the traced run failed"; }
	report "$label" "$trace"
	if [ "$KEEP" = 1 ]; then
		cp "$trace" "$OUT/bytes-${label//[^A-Za-z0-9+-]/_}.jsonl"
	fi
}

runtime=$(dotnet --list-runtimes 2>/dev/null | awk '$1 == "Microsoft.NETCore.App" { v = $2 } END { print v }')
echo "bench: bytes per exception, N=$N warm-up=$WARMUP; .NET $runtime; $(git -C "$srcdir" describe --always --dirty 2>/dev/null || echo '?')"
for c in $CATS; do
	run_one "clrtrace $c" "$BUILD/clrtrace" "$BUILD/libclrtrace.so" "$c"
	[ -z "$BASE" ] || run_one "clrtrace-base $c" "$BASE/clrtrace" "$BASE/libclrtrace.so" "$c"
done
if [ -z "${NO_EVENTPIPE:-}" ]; then
	trace=$TMP/eventpipe.nettrace
	DOTNET_EnableEventPipe=1 DOTNET_EventPipeConfig='Microsoft-Windows-DotNETRuntime:0x8000:5' \
		DOTNET_EventPipeOutputPath="$trace" DOTNET_EventPipeOutputStreaming=1 \
		dotnet "$DLL" "$N" "$WARMUP" >"$TMP/out" 2>&1 || { cat "$TMP/out" >&2; die "eventpipe: the run failed"; }
	echo
	awk -v b="$(stat -c %s "$trace")" -v n="$TOTAL" \
		'BEGIN { printf "eventpipe: %d bytes (.nettrace, stacks and rundown): %.1f B/exc\n", b, b / n }'
fi
exit 0
