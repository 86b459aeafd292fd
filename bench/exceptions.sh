#!/bin/bash
# SPDX-License-Identifier: MIT
#
# bench/exceptions.sh: what tracing costs a program that throws and catches
# exceptions.  A benchmark, not a test: it always exits 0 once it has
# measured something, whatever the figures.
#
# Usage: [BUILD=DIR] bench/exceptions.sh [-n N] [-w WARMUP] [-r ROUNDS] [-T THREADS] [-k] [-M]
#   -n N        measured iterations (exceptions) per run      (default 50000, env N) 
#   -w WARMUP   iterations before the measured loop           (default 1000, env WARMUP)
#   -r ROUNDS   interleaved rounds; medians are reported      (default 7, env ROUNDS)
#   -T "1 2 4"  threads mode: untraced, clrtrace and eventpipe with the N
#               exceptions split between each number of throwing threads;
#               prints exceptions/s and the speed-up over one thread
#   -k          keep the traces and the per-run table in $BUILD/bench/out
#   -M          do not run make in the build directory first
#
# BASE=DIR adds the configuration clrtrace-base: the default categories with
# DIR/clrtrace and DIR/libclrtrace.so (another tree's build), for a before and
# after in one run.
#
# REQUESTS=1 adds clrtrace-requests: the default categories and requests
# (-e +requests): the in-process EventPipe session and, at each throw, the
# probe that reads the thread's activity (no request here: its cost alone).
#
# BUILD is a configured build directory holding clrtrace and libclrtrace.so;
# by default the first of ./clrtrace, ../build*/clrtrace, <srcdir>/build*/clrtrace.
#
# Each round runs five configurations (six with BASE), in an order rotated every round:
#   untraced      dotnet Throw.dll N WARMUP
#   clrtrace      clrtrace run -q -o file:T.jsonl -- dotnet Throw.dll N WARMUP
#   eventpipe     the runtime's own exception events (keyword 0x8000, level 5),
#                 streamed to a .nettrace file
#   clrtrace-none clrtrace run -q -e none ...  (a loaded profiler, no category)
#   clrtrace-stacks clrtrace run -q -e +stacks ... (the stack at each throw)
#   clrtrace-muted clrtrace run -q -x '!*' ... (exception callbacks delivered
#                 and followed by the state machine, every type filtered out:
#                 the floor of exception tracing, before any record is written)
# and reads per run: the loop time the program measures itself (primary: no
# start-up, no JIT, no shutdown), the whole process' wall time, and its CPU
# time (user + system of every thread of the program and of `clrtrace run`,
# from /usr/bin/time: work moved to another thread still counts).
set -u
export LC_ALL=C
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1 \
	DOTNET_GENERATE_ASPNET_CERTIFICATE=0 DOTNET_CLI_WORKLOAD_UPDATE_NOTIFY_DISABLE=1
# a stray setting in the caller's environment must not trace the baseline
unset CORECLR_ENABLE_PROFILING CORECLR_PROFILER CORECLR_PROFILER_PATH DOTNET_EnableEventPipe \
	DOTNET_EventPipeConfig DOTNET_EventPipeOutputPath COMPlus_EnableEventPipe \
	CLRTRACE_OUTPUT CLRTRACE_EVENTS CLRTRACE_EXCEPTIONS CLRTRACE_PROCESSES 2>/dev/null

srcdir=$(cd "$(dirname "$0")/.." && pwd)
. "$srcdir/bench/lib.sh"
N=${N:-50000}
WARMUP=${WARMUP:-1000}
ROUNDS=${ROUNDS:-7}
KEEP=0
MAKE=1
THREADS_MODE=""
BASE=${BASE:-}

usage() { sed -n '/^# Usage:/,/^# BUILD is/p' "$0" | sed 's/^# \{0,1\}//' | sed '$d'; }

while getopts "n:w:r:T:kMh" opt; do
	case $opt in
	n) N=$OPTARG ;;
	w) WARMUP=$OPTARG ;;
	r) ROUNDS=$OPTARG ;;
	T) THREADS_MODE=$OPTARG ;;
	k) KEEP=1 ;;
	M) MAKE=0 ;;
	h) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
done
for v in N WARMUP ROUNDS; do
	[[ ${!v} =~ ^[0-9]+$ ]] || die "$v must be a number, not '${!v}'"
done
[ "$N" -gt 0 ] && [ "$ROUNDS" -gt 0 ] || die "N and ROUNDS must be at least 1"
for t in $THREADS_MODE; do
	[[ $t =~ ^[1-9][0-9]*$ ]] || die "-T takes thread counts, not '$t'"
done
[ -z "$BASE" ] || { [ -x "$BASE/clrtrace" ] && [ -f "$BASE/libclrtrace.so" ]; } ||
	die "BASE=$BASE holds no clrtrace and libclrtrace.so"
[ -x /usr/bin/time ] || die "no /usr/bin/time (Debian package time) for the CPU time"

# --- the build directory --------------------------------------------------------
find_build libclrtrace.so
if [ "$MAKE" = 1 ] && [ -f "$BUILD/Makefile" ]; then
	TMPDIR_MAKE_LOG=$BUILD/bench-make.log
	echo "bench: make -C $BUILD" >&2
	make -C "$BUILD" -s -j"$(nproc)" clrtrace libclrtrace.so >"$TMPDIR_MAKE_LOG" 2>&1 ||
		echo "bench: make failed in $BUILD; measuring the binaries already there" >&2
fi
CLRTRACE=$BUILD/clrtrace
export CLRTRACE_LIBRARY=$BUILD/libclrtrace.so
[ -x "$CLRTRACE" ] && [ -f "$CLRTRACE_LIBRARY" ] || die "no clrtrace and libclrtrace.so in $BUILD"
command -v dotnet >/dev/null 2>&1 || die "no dotnet on PATH"

# --- the C# program, built out of the source tree ----------------------------------
build_throw

TMP=$(mktemp -d "${TMPDIR:-/tmp}/clrtrace-bench.XXXXXX") || die "mktemp failed"
trap 'rm -rf "$TMP"' EXIT
RESULTS=$TMP/results.tsv # config round loop_ns wall_ns bytes records summaries exc_bytes cpu_ns maxrss_kb
: >"$RESULTS"
TOTAL=$((N + WARMUP))

# run_one CONFIG[:THREADS] ROUND: one run; appends a line to $RESULTS.
run_one() {
	local cfg=${1%%:*} threads=1 round=$2 trace="" t0 t1 rc line loop bytes=0 records=0 summaries=0 exc_bytes=0
	local out=$TMP/$cfg.out err=$TMP/$cfg.err cpu rss
	[[ $1 == *:* ]] && threads=${1##*:}
	# user + system seconds of the whole process tree, written by time(1)
	local T=(/usr/bin/time -f '%U %S %M' -o "$TMP/cpu")
	case $cfg in
	untraced)
		t0=$(date +%s%N)
		"${T[@]}" dotnet "$DLL" "$N" "$WARMUP" "$threads" >"$out" 2>"$err"; rc=$?
		t1=$(date +%s%N) ;;
	clrtrace)
		trace=$TMP/clrtrace.jsonl; rm -f "$trace"
		t0=$(date +%s%N)
		"${T[@]}" "$CLRTRACE" run -q -o "file:$trace" -- dotnet "$DLL" "$N" "$WARMUP" "$threads" >"$out" 2>"$err"; rc=$?
		t1=$(date +%s%N) ;;
	clrtrace-base)
		trace=$TMP/clrtrace-base.jsonl; rm -f "$trace"
		t0=$(date +%s%N)
		CLRTRACE_LIBRARY=$BASE/libclrtrace.so "${T[@]}" "$BASE/clrtrace" run -q -o "file:$trace" -- dotnet "$DLL" "$N" "$WARMUP" "$threads" >"$out" 2>"$err"; rc=$?
		t1=$(date +%s%N) ;;
	clrtrace-none)
		trace=$TMP/clrtrace-none.jsonl; rm -f "$trace"
		t0=$(date +%s%N)
		"${T[@]}" "$CLRTRACE" run -q -e none -o "file:$trace" -- dotnet "$DLL" "$N" "$WARMUP" "$threads" >"$out" 2>"$err"; rc=$?
		t1=$(date +%s%N) ;;
	clrtrace-stacks)
		trace=$TMP/clrtrace-stacks.jsonl; rm -f "$trace"
		t0=$(date +%s%N)
		"${T[@]}" "$CLRTRACE" run -q -e +stacks -o "file:$trace" -- dotnet "$DLL" "$N" "$WARMUP" "$threads" >"$out" 2>"$err"; rc=$?
		t1=$(date +%s%N) ;;
	clrtrace-requests)
		trace=$TMP/clrtrace-requests.jsonl; rm -f "$trace"
		t0=$(date +%s%N)
		"${T[@]}" "$CLRTRACE" run -q -e +requests -o "file:$trace" -- dotnet "$DLL" "$N" "$WARMUP" "$threads" >"$out" 2>"$err"; rc=$?
		t1=$(date +%s%N) ;;
	clrtrace-muted)
		trace=$TMP/clrtrace-muted.jsonl; rm -f "$trace"
		t0=$(date +%s%N)
		"${T[@]}" "$CLRTRACE" run -q -x '!*' -o "file:$trace" -- dotnet "$DLL" "$N" "$WARMUP" "$threads" >"$out" 2>"$err"; rc=$?
		t1=$(date +%s%N) ;;
	eventpipe)
		trace=$TMP/eventpipe.nettrace; rm -f "$trace"
		t0=$(date +%s%N)
		DOTNET_EnableEventPipe=1 DOTNET_EventPipeConfig='Microsoft-Windows-DotNETRuntime:0x8000:5' \
			DOTNET_EventPipeOutputPath="$trace" DOTNET_EventPipeOutputStreaming=1 \
			"${T[@]}" dotnet "$DLL" "$N" "$WARMUP" "$threads" >"$out" 2>"$err"; rc=$?
		t1=$(date +%s%N) ;;
	esac
	cpu=$(awk 'NF == 3 { printf "%.0f", ($1 + $2) * 1e9 }' "$TMP/cpu" 2>/dev/null)
	rss=$(awk 'NF == 3 { print $3 }' "$TMP/cpu" 2>/dev/null)
	line=$(grep '^THROW ' "$out")
	if [ "$rc" != 0 ] || [ -z "$line" ]; then
		echo "bench: $cfg run failed (status $rc):" >&2
		cat "$out" "$err" >&2
		return 1
	fi
	loop=$(sed -n 's/.* loop_ns=\([0-9]*\).*/\1/p' <<<"$line")
	if [ -n "$trace" ] && [ -f "$trace" ]; then
		bytes=$(stat -c %s "$trace")
		if [ "$cfg" != eventpipe ]; then
			records=$(wc -l <"$trace")
			summaries=$(grep -c '"event":"exception\.summary"' "$trace")
			exc_bytes=$(grep '"event":"exception\.' "$trace" | wc -c)
		fi
		if [ "$KEEP" = 1 ]; then
			case $trace in
			*.jsonl) cp "$trace" "$OUT/$cfg.jsonl" ;;
			*) cp "$trace" "$OUT/$cfg.nettrace" ;;
			esac
		fi
		rm -f "$trace" "$trace".*
	fi
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$round" "$loop" $((t1 - t0)) \
		"$bytes" "$records" "$summaries" "$exc_bytes" "${cpu:-0}" "${rss:-0}" >>"$RESULTS"
	printf ' %s %.0fns/exc' "$1" "$(awk -v l="$loop" -v n="$N" 'BEGIN { print l / n }')" >&2
}

CONFIGS=(untraced clrtrace eventpipe clrtrace-none clrtrace-muted clrtrace-stacks)
[ -n "$BASE" ] && CONFIGS+=(clrtrace-base)
[ -n "${REQUESTS:-}" ] && CONFIGS+=(clrtrace-requests)
if [ -n "$THREADS_MODE" ]; then
	CONFIGS=()
	for t in $THREADS_MODE; do
		CONFIGS+=("untraced:$t" "clrtrace:$t" "eventpipe:$t")
		[ -n "$BASE" ] && CONFIGS+=("clrtrace-base:$t")
	done
fi
NCFG=${#CONFIGS[@]}
runtime=$(dotnet --list-runtimes 2>/dev/null | awk '$1 == "Microsoft.NETCore.App" { v = $2 } END { print v }')
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n1)
echo "bench: N=$N warm-up=$WARMUP rounds=$ROUNDS; $(nproc) CPUs ($cpu); .NET $runtime; $(git -C "$srcdir" describe --always --dirty 2>/dev/null || echo '?')" >&2
# one unmeasured run of each, so file caches and the disk are warm for all
for cfg in "${CONFIGS[@]}"; do
	run_one "$cfg" 0 || die "aborted"
done
echo " (discarded)" >&2
for ((r = 1; r <= ROUNDS; r++)); do
	printf 'round %d/%d:' "$r" "$ROUNDS" >&2
	for ((k = 0; k < NCFG; k++)); do
		run_one "${CONFIGS[$(((k + r) % NCFG))]}" "$r" || die "aborted"
	done
	echo >&2
done
[ "$KEEP" = 1 ] && cp "$RESULTS" "$OUT/results.tsv"

# --- the report ----------------------------------------------------------------------
if [ -n "$THREADS_MODE" ]; then
	awk -F'\t' -v n="$N" -v rounds="$ROUNDS" -v tl="$THREADS_MODE" -v base_on="${BASE:+1}" '
'"$AWK_MEDIAN"'
{ nr++; c[nr] = $1; rd[nr] = $2; for (i = 3; i <= 10; i++) v[nr, i] = $i }
END {
	nt = split(tl, th, " ")
	printf "\nclrtrace exception benchmark, threads mode: %d exceptions split between the threads, medians of %d interleaved rounds\n\n", n, rounds
	printf "%-10s %8s %12s %12s %10s %12s %12s\n", "config", "threads", "loop ms", "exc/s", "speed-up", "cpu ms", "cpu ns/exc"
	ncf = split("untraced clrtrace eventpipe" (base_on ? " clrtrace-base" : ""), cf, " ")
	for (i = 1; i <= ncf; i++) {
		base = median(cf[i] ":" th[1], 3)
		for (j = 1; j <= nt; j++) {
			k = cf[i] ":" th[j]
			L = median(k, 3); C = median(k, 9)
			printf "%-10s %8d %12.1f %12.0f %10s %12.1f %12.0f\n", cf[i], th[j], L / 1e6, (L > 0 ? n / (L / 1e9) : 0),
				(L > 0 ? sprintf("%.2f", base / L) : "-"), C / 1e6, C / n
		}
	}
	printf "\nspeed-up: exceptions/s against %d thread(s) of the same configuration\n", th[1]
}' "$RESULTS"
	exit 0
fi
awk -F'\t' -v base_on="${BASE:+1}" -v req_on="${REQUESTS:+1}" -v n="$N" -v total="$TOTAL" -v rounds="$ROUNDS" -v warmup="$WARMUP" '
'"$AWK_MEDIAN"'
function ratio(x, y) { return y > 0 ? sprintf("%.2f", x / y) : "-" }
{ nr++; c[nr] = $1; rd[nr] = $2; for (i = 3; i <= 10; i++) v[nr, i] = $i
  if ($2 > 0) { last_bytes[$1] = $5; last_rec[$1] = $6; last_sum[$1] = $7; last_exc[$1] = $8 } }
END {
	ncf = split("untraced clrtrace eventpipe clrtrace-none clrtrace-muted clrtrace-stacks" (base_on ? " clrtrace-base" : "") (req_on ? " clrtrace-requests" : ""), cf, " ")
	for (i = 1; i <= ncf; i++) { L[cf[i]] = median(cf[i], 3); W[cf[i]] = median(cf[i], 4); C[cf[i]] = median(cf[i], 9); R[cf[i]] = median(cf[i], 10) }
	base = L["untraced"]; wbase = W["untraced"]; cbase = C["untraced"]
	printf "\nclrtrace exception benchmark: %d exceptions measured (+%d warm-up) per run, medians of %d interleaved rounds\n\n", n, warmup, rounds
	printf "%-15s %10s %8s %8s %7s %9s %7s %9s %9s %7s %10s\n", "configuration", "loop ms", "ns/exc", "+ns/exc", "ratio",
		"wall ms", "ratio", "cpu ms", "+cpu/exc", "ratio", "trace B"
	for (i = 1; i <= ncf; i++) {
		f = cf[i]
		printf "%-15s %10.1f %8.0f %8s %7s %9.1f %7s %9.1f %9s %7s %10s\n", f, L[f] / 1e6, L[f] / n,
			(f == "untraced" ? "-" : sprintf("%+.0f", (L[f] - base) / n)),
			ratio(L[f], base), W[f] / 1e6, ratio(W[f], wbase), C[f] / 1e6,
			(f == "untraced" ? "-" : sprintf("%+.0f", (C[f] - cbase) / total)), ratio(C[f], cbase),
			(f == "untraced" ? "-" : last_bytes[f])
	}
	printf "\n(cpu: user+system of the whole process tree, every thread, start-up included; +cpu/exc: over untraced, per exception of N + warm-up)\n"
	printf "max RSS (MiB, median; of the largest process, the program):"
	for (i = 1; i <= ncf; i++)
		printf " %s %.1f%s", cf[i], R[cf[i]] / 1024, (cf[i] == "untraced" ? "" : sprintf(" (%+.1f)", (R[cf[i]] - R["untraced"]) / 1024))
	printf "\n"
	if (C["eventpipe"] > cbase)
		printf "  added cpu per exception, clrtrace / eventpipe: %s (added loop time: %s)\n",
			ratio(C["clrtrace"] - cbase, C["eventpipe"] - cbase), ratio(L["clrtrace"] - base, L["eventpipe"] - base)
	if (req_on && C["eventpipe"] > cbase)
		printf "  with the requests category: added cpu per exception, clrtrace-requests / eventpipe: %s; requests alone %+.2f us cpu per exception\n",
			ratio(C["clrtrace-requests"] - cbase, C["eventpipe"] - cbase), (C["clrtrace-requests"] - C["clrtrace"]) / total / 1e3
	if (base_on)
		printf "  this tree against BASE, added loop time: %s, added cpu: %s\n",
			ratio(L["clrtrace"] - base, L["clrtrace-base"] - base), ratio(C["clrtrace"] - cbase, C["clrtrace-base"] - cbase)
	printf "\nratios of the measured loop (wall-clock ratio of the whole process in brackets):\n"
	printf "  clrtrace-default / untraced  %s  (%s)\n", ratio(L["clrtrace"], base), ratio(W["clrtrace"], wbase)
	printf "  eventpipe / untraced         %s  (%s)\n", ratio(L["eventpipe"], base), ratio(W["eventpipe"], wbase)
	printf "  clrtrace-none / untraced     %s  (%s)\n", ratio(L["clrtrace-none"], base), ratio(W["clrtrace-none"], wbase)
	printf "  and clrtrace-muted / untraced %s  (%s): callbacks followed, no record written\n",
		ratio(L["clrtrace-muted"], base), ratio(W["clrtrace-muted"], wbase)
	printf "  of clrtrace'"'"'s +%.0f ns/exception, callbacks and state machine take %.0f, writing records %.0f\n",
		(L["clrtrace"] - base) / n, (L["clrtrace-muted"] - base) / n, (L["clrtrace"] - L["clrtrace-muted"]) / n
	printf "\ntrace size per exception (%d exceptions per run):\n", total
	printf "  clrtrace    %8.1f B/exc (whole file: %d B, %d records); exception.* records alone %.1f B/exc\n",
		last_bytes["clrtrace"] / total, last_bytes["clrtrace"], last_rec["clrtrace"], last_exc["clrtrace"] / total
	printf "  eventpipe   %8.1f B/exc (whole .nettrace: %d B, with stacks and rundown)\n",
		last_bytes["eventpipe"] / total, last_bytes["eventpipe"]
	printf "  clrtrace -e none: %d B, %d records\n", last_bytes["clrtrace-none"], last_rec["clrtrace-none"]
	printf "\nexception.summary records: %d, expected %d (N + warm-up): %.2f records/exception\n",
		last_sum["clrtrace"], total, last_sum["clrtrace"] / total
	printf "clrtrace records per exception (all events): %.2f\n", last_rec["clrtrace"] / total
	if (last_sum["clrtrace"] != total)
		printf "  (no or not all exceptions traced: the clrtrace figures do not yet include exception tracing)\n"
}' "$RESULTS"
exit 0
