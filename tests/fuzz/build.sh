#!/bin/sh
# Build the libFuzzer targets (clang needed) and, given SECONDS, run them
# and merge what they found into the kept corpora.
# Usage: tests/fuzz/build.sh BUILDDIR [SECONDS [KEEPDIR]]
#   BUILDDIR: a configured build tree (for autoconf.h and src/cli/schema-data.c);
#   the fuzzers go to BUILDDIR/tests/fuzz.  SECONDS: the whole run, shared by
#   the targets (fuzz-reader two thirds, fuzz-pending one third); 0 or none:
#   build only (`make fuzz` gives 600).  KEEPDIR: see below (tests/fuzz-run.sh).
set -eu
src=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "$1" && pwd)
secs=${2:-0}
cc=$(command -v clang-14 || command -v clang) || { echo "fuzz: clang is not installed (Debian: clang-14 libclang-rt-14-dev)" >&2; exit 1; }
out="$build/tests/fuzz"
mkdir -p "$out"
# UBSan's findings abort (-fno-sanitize-recover), so libFuzzer sees them
cflags="-g -O1 -std=gnu11 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -include $build/autoconf.h -I$src/src"
# the shared layer's sources, as Makefile.am lists them (libctcommon.a):
# a file added there is built here too, no second list to keep
common=$(sed -n '/^libctcommon_a_SOURCES *=/,/^[^\t]/p' "$src/Makefile.am" | grep -o 'src/common/[A-Za-z0-9_-]*\.c' |
	sed "s|^|$src/|")
[ -n "$common" ] || { echo "fuzz: no libctcommon_a_SOURCES in $src/Makefile.am" >&2; exit 1; }
defs="-DPKGLIBDIR=\"/nonexistent\" -DPKGDATADIR=\"/nonexistent\" $(pkg-config --cflags jansson)"
libs="$(pkg-config --libs jansson) -ldl -lpthread"
# shellcheck disable=SC2046,SC2086
"$cc" $cflags $defs -o "$out/fuzz-reader" "$src/tests/fuzz/fuzz-reader.c" \
	"$src/src/cli/reader.c" "$src/src/cli/jschema.c" "$src/src/cli/describe.c" "$src/src/cli/escape.c" "$src/src/cli/sites.c" "$src/src/cli/trace-set.c" \
	$common "$build/src/cli/schema-data.c" $libs
# shellcheck disable=SC2086
"$cc" $cflags $defs -o "$out/fuzz-pending" "$src/tests/fuzz/fuzz-pending.c" $common $libs
[ "$secs" -gt 0 ] || exit 0
# new inputs go to new-*/ and the kept corpora are merged (minimised) from
# them; with KEEPDIR (the test), they, the logs and any crash's input go
# there, the corpora are only read, and the status says whether any target
# had a finding
st=0
for t in reader pending; do
	case $t in
	reader) s=$((secs * 2 / 3)) runs=20000 corpus="$src/tests/fuzz/corpus" opts="-max_len=4096 -dict=$src/tests/fuzz/records.dict" ;;
	pending) s=$((secs - secs * 2 / 3)) runs=40000 corpus="$src/tests/fuzz/corpus-pending" opts="-max_len=16384" ;;
	esac
	# the test (KEEPDIR): a fixed seed and number of runs, so that a CI
	# run explores the same inputs every time (a new finding is a change
	# of the code, not luck); `make fuzz`: time, and a new seed each run
	[ -z "${3:-}" ] || opts="$opts -seed=1 -runs=$runs"
	dest=${3:-$out} log=/dev/stdout
	[ -z "${3:-}" ] || log="$dest/$t.log"
	mkdir -p "$dest/new-$t"
	# shellcheck disable=SC2086
	"$out/fuzz-$t" -max_total_time="$s" $opts -close_fd_mask=2 -rss_limit_mb=1024 -malloc_limit_mb=256 \
		-artifact_prefix="$dest/crash-$t-" -print_final_stats=1 "$dest/new-$t" "$corpus" >"$log" 2>&1 || st=1
	[ -n "${3:-}" ] || "$out/fuzz-$t" -merge=1 "$corpus" "$out/new-$t"
done
exit $st
