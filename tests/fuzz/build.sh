#!/bin/sh
# Build and run the libFuzzer target for the trace reader (clang needed).
# Usage: tests/fuzz/build.sh BUILDDIR [SECONDS]   (BUILDDIR: a configured build
# tree, for autoconf.h and src/cli/schema-data.c)
set -eu
src=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "$1" && pwd)
secs=${2:-60}
cc=$(command -v clang-14 || command -v clang)
out="$build/tests/fuzz"
mkdir -p "$out" "$out/new"
# shellcheck disable=SC2046
"$cc" -g -O1 -std=gnu11 -fsanitize=fuzzer,address,undefined -include "$build/autoconf.h" -I"$src/src" -DPKGLIBDIR="\"/nonexistent\"" -DPKGDATADIR="\"/nonexistent\"" \
	$(pkg-config --cflags jansson zlib) -o "$out/fuzz-reader" "$src/tests/fuzz/fuzz-reader.c" \
	"$src/src/cli/reader.c" "$src/src/cli/jschema.c" "$src/src/cli/describe.c" "$src"/src/common/*.c \
	"$build/src/cli/schema-data.c" $(pkg-config --libs jansson zlib)
# new inputs go to new/; the kept corpus is minimised into tests/fuzz/corpus
"$out/fuzz-reader" -max_total_time="$secs" -max_len=4096 -close_fd_mask=2 -print_final_stats=1 -dict="$src/tests/fuzz/records.dict" \
	"$out/new" "$src/tests/fuzz/corpus"
"$out/fuzz-reader" -merge=1 "$src/tests/fuzz/corpus" "$out/new"
