#!/bin/bash
# SPDX-License-Identifier: MIT
#
# bench/record.sh: the cost of clrtrace's record path alone, without a
# runtime (bench/record/record-bench.c linked with the same sources as the
# record unit test).  A benchmark, not a test.
#
# Usage: [BUILD=DIR] [BASE=DIR] [MODES="typed story ..."] [THREADS="1 2 4"] bench/record.sh [-n EXCEPTIONS] [-r ROUNDS]
#
# For each of: typed and story (the 7 records of the default categories,
# written through typed payloads as the exception machine does now, and
# with jansson payloads as it did before), full (the 25 records the exception tracer writes for one
# exception of bench/exceptions' shape) and lean (exception.throw and
# exception.summary only) and bare (the full sequence without payloads:
# the common fields alone), written to a file and to /dev/null (which leaves
# out the kernel's copy into the page cache), on 1 and 2 threads, it prints
# the median ns per exception and per record and the bytes per exception.
# BASE=DIR (the configured build directory of another tree) adds that
# tree's record-bench, interleaved run by run: a before and after in one run.
# Each line also gives records per second and the process' CPU time per
# record (user + sys of every thread, the writer's included).
set -u
export LC_ALL=C
srcdir=$(cd "$(dirname "$0")/.." && pwd)
. "$srcdir/bench/lib.sh"
N=${N:-100000}
ROUNDS=${ROUNDS:-5}
while getopts "n:r:h" opt; do
	case $opt in
	n) N=$OPTARG ;;
	r) ROUNDS=$OPTARG ;;
	h) sed -n 's/^# Usage: /Usage: /p' "$0"; exit 0 ;;
	*) exit 2 ;;
	esac
done
find_build autoconf.h
[ -f "$BUILD/Makefile" ] && [ -f "$BUILD/autoconf.h" ] || die "$BUILD is not a configured build directory"

# the record core and its sinks, as the record unit test links them
# build_bench DIR SRCDIR OUT: record-bench from SRCDIR, linked with DIR's libraries
build_bench() {
	local dir=$1 src=$2 out=$3 vars libs sources
	vars=$(make -C "$dir" -pn 2>/dev/null | grep -E '^(PROFILER_LIBS|JANSSON_LIBS|LIBSYSTEMD_LIBS|DLOPEN_LIBS|CC|CFLAGS) =')
	get() { sed -n "s/^$1 = //p" <<<"$vars" | tail -n1; }
	libs=$(get PROFILER_LIBS)
	[ -n "$libs" ] || die "cannot read PROFILER_LIBS from $dir/Makefile"
	# shellcheck disable=SC2086
	make -C "$dir" -s $libs >/dev/null || die "could not build $libs in $dir"
	sources=$(for l in $libs; do printf '%s ' "$dir/$l"; done)
	# shellcheck disable=SC2046,SC2086
	$(get CC) $(get CFLAGS) -std=gnu11 -pthread -include "$dir/autoconf.h" -I"$src/src" \
		-DPKGLIBDIR='"/nonexistent"' -DPKGDATADIR='"/nonexistent"' \
		-o "$out" "$src/bench/record/record-bench.c" $sources $(get JANSSON_LIBS) $(get LIBSYSTEMD_LIBS) $(get DLOPEN_LIBS) -lpthread ||
		die "could not build record-bench in $dir"
}
OUT=$BUILD/bench/out
mkdir -p "$OUT"
BIN=$OUT/record-bench
build_bench "$BUILD" "$srcdir" "$BIN"
BINS="new:$BIN"
if [ -n "${BASE:-}" ]; then
	base_src=$(sed -n 's/^abs_top_srcdir = //p' "$BASE/Makefile")
	[ -d "$base_src" ] || die "BASE=$BASE is not a configured build directory"
	build_bench "$BASE" "$base_src" "$OUT/record-bench-base"
	BINS="base:$OUT/record-bench-base $BINS"
fi

# med COLUMN [FILE]: the median of that column of FILE (default: stdin)
med() {
	awk -v k="$1" '{ print $k }' "${2:-/dev/stdin}" | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'
}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/clrtrace-record.XXXXXX") || die "mktemp failed"
trap 'rm -rf "$TMP"' EXIT
echo "record path: $N exceptions per run, median of $ROUNDS; $(nproc) CPUs; $(git -C "$srcdir" describe --always --dirty 2>/dev/null); load $(cut -d' ' -f1 /proc/loadavg)"
printf '%-5s %-5s %-9s %7s %10s %10s %11s %10s %8s\n' build mode sink threads ns/exc ns/record records/s cpu-ns/rec B/exc
for mode in ${MODES:-typed story full bare lean}; do
	for sink in file devnull; do
		for threads in ${THREADS:-1 2}; do
			f=$TMP/t.jsonl
			[ "$sink" = devnull ] && f=/dev/null
			for ((r = 0; r < ROUNDS; r++)); do
				for b in $BINS; do
					/usr/bin/time -f "%U %S" -o "$TMP/time" "${b#*:}" "$f" "$N" "$threads" "$mode" >"$TMP/one" ||
						die "record-bench failed"
					echo "${b%%:*} $(cat "$TMP/one") cpu=$(awk '{ print $1 + $2 }' "$TMP/time")"
					[ "$f" = /dev/null ] || rm -f "$f"
				done
			done >"$TMP/runs"
			for b in $BINS; do
				grep "^${b%%:*} " "$TMP/runs" |
					sed 's/.*records=\([0-9]*\) ns_per_exception=\([0-9]*\) ns_per_record=\([0-9]*\) bytes_per_exception=\([0-9]*\) cpu=\([0-9.]*\).*/\2 \3 \4 \5 \1/' \
					>"$TMP/cols"
				e=$(med 1 "$TMP/cols") r=$(med 2 "$TMP/cols") by=$(med 3 "$TMP/cols")
				c=$(awk '{ print $4 * 1e9 / $5 }' "$TMP/cols" | med 1)
				printf '%-5s %-5s %-9s %7d %10d %10d %11.0f %10.0f %8s\n' "${b%%:*}" "$mode" "$sink" "$threads" \
					"$e" "$r" "$(awk -v r="$r" 'BEGIN { print r ? 1e9 / r : 0 }')" "$c" "$([ "$sink" = file ] && echo "$by" || echo -)"
			done
		done
	done
done
