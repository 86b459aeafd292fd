#!/bin/sh
# A short fuzzing run under ASan and UBSan (tests/fuzz/, clang's libFuzzer):
# FUZZ_SECONDS in all (default 60; two thirds the trace reader, one third
# the merge of a pending file), starting from the kept corpora, which hold
# every input that ever failed.  Any crash, sanitizer report, leak or
# memory blow-up fails the test, with the input saved.  New inputs stay in
# the build tree; `make fuzz` runs longer and merges them into the corpora.
# Without clang the test is skipped, and fails under CI=true.
. "${top_srcdir:-.}/tests/lib.sh"
secs=${FUZZ_SECONDS:-60}
if ! command -v clang-14 >/dev/null 2>&1 && ! command -v clang >/dev/null 2>&1; then
	[ "${CI:-}" = true ] && die "clang is missing (setup.sh installs clang-14 and libclang-rt-14-dev)"
	skip "no clang (Debian: clang-14 libclang-rt-14-dev)"
fi
if ! "$top_srcdir/tests/fuzz/build.sh" "$top_builddir" 0 >"$OUT/build.log" 2>&1; then
	cat "$OUT/build.log"
	die "the fuzzers do not build (libclang-rt-14-dev has libFuzzer and the sanitizer runtimes)"
fi
ok "fuzz-reader and fuzz-pending built with -fsanitize=fuzzer,address,undefined"
"$top_srcdir/tests/fuzz/build.sh" "$top_builddir" "$secs" "$OUT" >/dev/null 2>&1
st=$?
for t in reader pending; do
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$OUT/$t.log")
	if ! ls "$OUT"/crash-$t-* >/dev/null 2>&1 && grep -q '^Done [0-9]* runs' "$OUT/$t.log"; then
		ok "fuzz-$t: ${runs:-?} inputs, no finding"
		continue
	fi
	fail "fuzz-$t: a finding; input: $(ls "$OUT"/crash-$t-* 2>/dev/null | head -1)"
	grep -m 5 -e 'ERROR:' -e 'runtime error:' -e '^SUMMARY' "$OUT/$t.log"
	for c in "$OUT"/crash-$t-*; do # the report again, with the target's stderr
		[ -e "$c" ] && "$top_builddir/tests/fuzz/fuzz-$t" "$c" 2>&1 | grep -m 12 -e 'ERROR' -e 'runtime error' -e '#[0-9] '
	done
done
expect "the fuzzing run's status" "$st" 0
finish
