#!/bin/bash
# SPDX-License-Identifier: MIT
#
# bench/filter-load.sh: how often a program dies of dotnet/runtime#132462
# under clrtrace, under a profiler that does nothing, and untraced.  A
# benchmark, not a test: it prints crash rates and exits 0.
#
# Usage: [BUILD=DIR] bench/filter-load.sh [-n RUNS] [-t THREADS] [-i ITERATIONS] [-g GEN0SIZE] [-- PROGRAM...]
#   -n RUNS        runs of each configuration                  (default 20)
#   -t THREADS     threads of tests/programs/FilterLoad        (default 64)
#   -i ITERATIONS  exceptions per thread                       (default 2000)
#   -g GEN0SIZE    DOTNET_GCgen0size for every run, in hex (e.g. 10000
#                  for 64 KiB): more GCs, more chances to hit the race
#   -- PROGRAM...  run this instead of `dotnet FilterLoad.dll` (for example
#                  a self-contained FilterLoad built for another runtime)
#
# BUILD is a configured build directory holding clrtrace and libclrtrace.so;
# by default the first of ./clrtrace, ../build*/clrtrace, <srcdir>/build*/clrtrace.
#
# The runtime calls ExceptionSearchFilterEnter and ExceptionCatcherEnter with
# the exception object in a local the GC does not update (fixed in .NET 11 by
# dotnet/runtime#132482).  Configurations, interleaved run by run:
#   untraced   the program alone
#   clrtrace   clrtrace run (default categories)
#   none       clrtrace run -e none: the profiler loaded, no exception callbacks
#   null       bench/null-profiler: exception callbacks that return at once,
#              the rate the runtime leaves to any exception-monitoring profiler
#   spin57     the null profiler busy-waiting 20 µs in ExceptionSearchFilterEnter
# Each run has 120 s; a run past that counts as a hang.
set -u
export LC_ALL=C
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1
unset CORECLR_ENABLE_PROFILING CORECLR_PROFILER CORECLR_PROFILER_PATH DOTNET_GCgen0size 2>/dev/null

srcdir=$(cd "$(dirname "$0")/.." && pwd)
. "$srcdir/bench/lib.sh"
RUNS=20 THREADS=64 ITERATIONS=2000 GEN0=""
while getopts "n:t:i:g:h" opt; do
	case $opt in
	n) RUNS=$OPTARG ;;
	t) THREADS=$OPTARG ;;
	i) ITERATIONS=$OPTARG ;;
	g) GEN0=$OPTARG ;;
	h) sed -n 's/^# \{0,1\}//; /^Usage:/,/^BUILD is/p' "$0" | sed '$d'; exit 0 ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
for v in RUNS THREADS ITERATIONS; do
	[[ ${!v} =~ ^[0-9]+$ ]] && [ "${!v}" -gt 0 ] || die "$v must be a positive number, not '${!v}'"
done
[ -z "$GEN0" ] || [[ $GEN0 =~ ^(0x)?[0-9a-fA-F]+$ ]] || die "GEN0SIZE is hexadecimal, not '$GEN0'"

find_build autoconf.h
CLRTRACE=$BUILD/clrtrace
export CLRTRACE_LIBRARY=$BUILD/libclrtrace.so
[ -x "$CLRTRACE" ] && [ -f "$CLRTRACE_LIBRARY" ] && [ -f "$BUILD/autoconf.h" ] ||
	die "no clrtrace, libclrtrace.so and autoconf.h in $BUILD"

OUT=$BUILD/bench/out
mkdir -p "$OUT"
build_null_profiler
if [ $# -eq 0 ]; then
	command -v dotnet >/dev/null 2>&1 || die "no dotnet on PATH"
	PBIN=$OUT/bin/FilterLoad
	if [ ! -f "$PBIN/FilterLoad.dll" ] ||
		[ -n "$(find "$srcdir/tests/programs/FilterLoad" -newer "$PBIN/FilterLoad.dll" -name '*.cs*' 2>/dev/null)" ]; then
		echo "bench: building FilterLoad" >&2
		rm -rf "$OUT/src/FilterLoad" && mkdir -p "$OUT/src"
		cp -r "$srcdir/tests/programs/FilterLoad" "$OUT/src/FilterLoad"
		cp "$srcdir/tests/programs/Directory.Build.props" "$srcdir/tests/programs/NuGet.config" "$OUT/src/"
		chmod -R u+w "$OUT/src"
		dotnet build -c Release -o "$PBIN" "$OUT/src/FilterLoad/FilterLoad.csproj" >"$OUT/build.log" 2>&1 ||
			{ cat "$OUT/build.log" >&2; die "could not build FilterLoad"; }
	fi
	set -- dotnet "$PBIN/FilterLoad.dll"
fi

TMP=$(mktemp -d "${TMPDIR:-/tmp}/clrtrace-bench.XXXXXX") || die "mktemp failed"
trap 'rm -rf "$TMP"' EXIT
NULLENV=(CORECLR_ENABLE_PROFILING=1 "CORECLR_PROFILER={94D19DC5-3374-47C3-9729-75E330DECA23}"
	CORECLR_PROFILER_PATH="$NULLPROF")
GENV=()
[ -z "$GEN0" ] || GENV=(DOTNET_GCgen0size="$GEN0")
CONFIGS="untraced clrtrace none null spin57"
declare -A ok crash hang
for c in $CONFIGS; do ok[$c]=0 crash[$c]=0 hang[$c]=0; done

# run_one CONFIG PROGRAM...: one run, counted by how it ended
run_one() {
	local rc T=$TMP/t.jsonl
	rm -f "$T"*
	case $1 in
	untraced) env "${GENV[@]}" timeout -k 5 120 "${@:2}" ;;
	clrtrace) env "${GENV[@]}" timeout -k 5 120 "$CLRTRACE" run -q -o "file:$T" -- "${@:2}" ;;
	none) env "${GENV[@]}" timeout -k 5 120 "$CLRTRACE" run -q -e none -o "file:$T" -- "${@:2}" ;;
	null) env "${GENV[@]}" "${NULLENV[@]}" timeout -k 5 120 "${@:2}" ;;
	spin57) env "${GENV[@]}" "${NULLENV[@]}" NULLPROF_SPIN_SLOT=57 NULLPROF_SPIN_US=20 timeout -k 5 120 "${@:2}" ;;
	esac >/dev/null 2>&1
	rc=$?
	if [ $rc = 0 ]; then ok[$1]=$((ok[$1] + 1))
	elif [ $rc = 124 ] || [ $rc = 137 ]; then hang[$1]=$((hang[$1] + 1))
	else crash[$1]=$((crash[$1] + 1)); fi
}

echo "bench: $RUNS runs each of $* $THREADS $ITERATIONS${GEN0:+ with DOTNET_GCgen0size=$GEN0}" >&2
for r in $(seq 1 "$RUNS"); do
	for c in $CONFIGS; do
		run_one "$c" "$@" "$THREADS" "$ITERATIONS"
	done
	printf '.' >&2
done
echo >&2
printf '%-10s %6s %6s %6s %8s\n' config ok crash hang failed%
for c in $CONFIGS; do
	printf '%-10s %6d %6d %6d %7d%%\n' "$c" "${ok[$c]}" "${crash[$c]}" "${hang[$c]}" \
		$(((crash[$c] + hang[$c]) * 100 / RUNS))
done
exit 0
