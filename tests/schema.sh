#!/bin/sh
# Every line of every trace the other tests wrote validates against the
# JSON Schema in schemas/ (checked by python3-jsonschema, independently of
# clrtrace's own validator).  It runs after every other test (Makefile.am).
. "${top_srcdir:-.}/tests/lib.sh"
/usr/bin/python3 -c 'import jsonschema' 2>/dev/null || skip "python3-jsonschema is not installed (run setup.sh)"
dll=$(build_program Sample)
trace "$OUT/all.jsonl" -e all -- dotnet "$dll" || fail "traced Sample exited $?"
# traces the profiler wrote start with runtime.init; read-bad and
# read-check break traces on purpose, so theirs are left out
files=$(for f in $(find "$top_builddir/tests/out" -type f -name '*.jsonl' -size +0 \
		-not -path '*/read-bad/*' -not -path '*/read-check/*' | sort); do
	head -1 "$f" | jq -e 'select(.event == "runtime.init")' >/dev/null 2>&1 && echo "$f"
done)
[ -n "$files" ] || die "no traces found"
# shellcheck disable=SC2086
/usr/bin/python3 "$top_srcdir/tests/validate.py" "$top_srcdir/schemas" $files && ok "every record of $(echo "$files" | wc -l) traces validates" ||
	fail "schema violations (above)"
finish
