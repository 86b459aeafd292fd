#!/bin/sh
# Replays the fuzzing corpus (tests/fuzz/corpus: inputs libFuzzer found
# interesting for the reader, see tests/fuzz/README.md) through all four
# reading commands: none may crash (a status of 128 or more).
. "${top_srcdir:-.}/tests/lib.sh"
n=0 crashed=0
for f in "$top_srcdir"/tests/fuzz/corpus/*; do
	n=$((n + 1))
	for c in view stats "export --format chrome" check; do
		# shellcheck disable=SC2086
		"$CLRTRACE" $c "$f" >/dev/null 2>&1
		st=$?
		if [ "$st" -ge 128 ] || [ "$st" -gt 2 ]; then
			fail "$c $(basename "$f"): status $st"
			crashed=$((crashed + 1))
		fi
	done
done
[ "$n" -gt 40 ] && ok "replayed $n corpus inputs through view, stats, export and check" || fail "corpus has only $n inputs"
[ "$crashed" = 0 ] && ok "no command crashed" || fail "$crashed crashes"
finish
