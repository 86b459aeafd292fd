#!/bin/bash
# SPDX-License-Identifier: MIT
#
# bench/record.sh: the cost of clrtrace's record path alone, without a
# runtime (bench/record/record-bench.c linked with the same sources as the
# record unit test).  A benchmark, not a test.
#
# Usage: [BUILD=DIR] [MODES="typed story ..."] bench/record.sh [-n EXCEPTIONS] [-r ROUNDS]
#
# For each of: typed and story (the 7 records of the default categories,
# written through typed payloads as the exception machine does now, and
# with jansson payloads as it did before), full (the 25 records the exception tracer writes for one
# exception of bench/exceptions' shape) and lean (exception.throw and
# exception.summary only) and bare (the full sequence without payloads:
# the common fields alone), written to a file and to /dev/null (which leaves
# out the kernel's copy into the page cache), on 1 and 2 threads, it prints
# the median ns per exception and per record and the bytes per exception.
set -u
export LC_ALL=C
srcdir=$(cd "$(dirname "$0")/.." && pwd)
N=${N:-100000}
ROUNDS=${ROUNDS:-5}
die() { echo "bench: $*" >&2; exit 1; }
while getopts "n:r:h" opt; do
	case $opt in
	n) N=$OPTARG ;;
	r) ROUNDS=$OPTARG ;;
	h) sed -n 's/^# Usage: /Usage: /p' "$0"; exit 0 ;;
	*) exit 2 ;;
	esac
done
. "$srcdir/bench/lib.sh"
find_build autoconf.h
[ -f "$BUILD/Makefile" ] && [ -f "$BUILD/autoconf.h" ] || die "$BUILD is not a configured build directory"

# the record core and its sinks, as the record unit test links them
vars=$(make -C "$BUILD" -pn 2>/dev/null | grep -E '^(PROFILER_LIBS|JANSSON_LIBS|DLOPEN_LIBS|CC|CFLAGS) =')
get() { sed -n "s/^$1 = //p" <<<"$vars" | tail -n1; }
libs=$(get PROFILER_LIBS)
[ -n "$libs" ] || die "cannot read PROFILER_LIBS from $BUILD/Makefile"
# shellcheck disable=SC2086
make -C "$BUILD" -s $libs >/dev/null || die "could not build $libs"
sources=$(for l in $libs; do printf '%s ' "$BUILD/$l"; done)
OUT=$BUILD/bench/out
mkdir -p "$OUT"
BIN=$OUT/record-bench
# shellcheck disable=SC2046,SC2086
$(get CC) $(get CFLAGS) -std=gnu11 -pthread -include "$BUILD/autoconf.h" -I"$srcdir/src" \
	-DPKGLIBDIR='"/nonexistent"' -DPKGDATADIR='"/nonexistent"' \
	-o "$BIN" "$srcdir/bench/record/record-bench.c" $sources $(get JANSSON_LIBS) $(get DLOPEN_LIBS) -lpthread ||
	die "could not build record-bench"

TMP=$(mktemp -d "${TMPDIR:-/tmp}/clrtrace-record.XXXXXX") || die "mktemp failed"
trap 'rm -rf "$TMP"' EXIT
echo "record path: $N exceptions per run, median of $ROUNDS; $(nproc) CPUs; $(git -C "$srcdir" describe --always --dirty 2>/dev/null)"
printf '%-5s %-9s %7s %12s %12s %10s\n' mode sink threads ns/exc ns/record B/exc
for mode in ${MODES:-typed story full bare lean}; do
	for sink in file devnull; do
		for threads in 1 2; do
			f=$TMP/t.jsonl
			[ "$sink" = devnull ] && f=/dev/null
			for ((r = 0; r < ROUNDS; r++)); do
				"$BIN" "$f" "$N" "$threads" "$mode" || die "record-bench failed"
				[ "$f" = /dev/null ] || rm -f "$f"
			done >"$TMP/runs"
			sed 's/.*ns_per_exception=\([0-9]*\) ns_per_record=\([0-9]*\) bytes_per_exception=\([0-9]*\).*/\1 \2 \3/' "$TMP/runs" |
				sort -n | awk -v m="$mode" -v s="$sink" -v t="$threads" '
					{ e[NR] = $1; r[NR] = $2; b = $3 }
					END { k = int((NR + 1) / 2); printf "%-5s %-9s %7d %12d %12d %10s\n", m, s, t, e[k], r[k], (s == "file" ? b : "-") }'
		done
	done
done
