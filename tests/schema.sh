#!/bin/sh
# Every line of every trace the other tests wrote validates against the
# JSON Schema in schemas/ (checked by python3-jsonschema, independently of
# clrtrace's own validator).  It runs after every other test (Makefile.am).
. "${top_srcdir:-.}/tests/lib.sh"
/usr/bin/python3 -c 'import jsonschema' 2>/dev/null || skip "python3-jsonschema is not installed (run setup.sh)"
dll=$(build_program Sample)
trace "$OUT/all.jsonl" -e all -- dotnet "$dll" || fail "traced Sample exited $?"
files=$(find "$top_builddir/tests/out" -type f -name '*.jsonl' -size +0 | sort)
[ -n "$files" ] || die "no traces found"
# shellcheck disable=SC2086
/usr/bin/python3 "$top_srcdir/tests/validate.py" "$top_srcdir/schemas" $files && ok "every record of $(echo "$files" | wc -l) traces validates" ||
	fail "schema violations (above)"
finish
