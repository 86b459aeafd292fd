#!/bin/sh
# Every line of every trace the other tests wrote validates against the
# JSON Schema in schemas/ (checked by python3-jsonschema, independently of
# clrtrace's own validator).  It runs after every other test (Makefile.am).
. "${top_srcdir:-.}/tests/lib.sh"
/usr/bin/python3 -c 'import jsonschema' 2>/dev/null || skip "python3-jsonschema is not installed (run setup.sh)"
dll=$(build_program Sample)
trace "$OUT/all.jsonl" -e all -- dotnet "$dll" || fail "traced Sample exited $?"
# traces the profiler wrote start with runtime.init; the read-* tests cut
# and break traces on purpose (and check them themselves), so theirs are
# left out
files=$(for f in $(find "$top_builddir/tests/out" -type f -name '*.jsonl' -size +0 -not -path '*/read-*' | sort); do
	head -1 "$f" | jq -e 'select(.event == "runtime.init")' >/dev/null 2>&1 && echo "$f"
done)
[ -n "$files" ] || die "no traces found"
# clrtrace check validates every line; python3-jsonschema, independent of
# it, the first 3000 lines of each trace (it is a hundred times slower)
bad=0
for f in $files; do
	"$CLRTRACE" check -q "$f" >"$OUT/check.out" 2>&1 || { bad=1; echo "clrtrace check $f:"; head -5 "$OUT/check.out"; }
	head -n 3000 "$f" >"$OUT/head.jsonl"
	/usr/bin/python3 "$top_srcdir/tests/validate.py" "$top_srcdir/schemas" "$OUT/head.jsonl" || { bad=1; echo "(in $f)"; }
done
[ "$bad" = 0 ] && ok "every record of $(echo "$files" | wc -l) traces validates (clrtrace check; python3-jsonschema on the first 3000 lines of each)" ||
	fail "schema violations (above)"
finish
