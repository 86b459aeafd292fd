#!/bin/sh
# clrtrace check: a real trace passes (and python3-jsonschema agrees);
# an injected seq gap, broken nesting and schema violation are caught with
# their line numbers; a gap explained by trace.dropped is not a problem.
# (That the schema's events are the table's is tests/unit/test-vocabulary's.)
. "${top_srcdir:-.}/tests/lib.sh"
dll=$(build_program Sample)
t="$OUT/all.jsonl"
trace "$t" -e all -- dotnet "$dll" || fail "traced Sample exited $?"
n=$(wc -l <"$t")

"$CLRTRACE" check "$t" >"$OUT/check.out" 2>"$OUT/check.err" && ok "real trace ($n records) passes check" ||
	{ cat "$OUT/check.out"; fail "check fails a real trace"; }
grep -q "$n records, $n lines, 0 problems" "$OUT/check.err" && ok "check says how many records it read" || fail "summary: $(cat "$OUT/check.err")"
if /usr/bin/python3 -c 'import jsonschema' 2>/dev/null; then
	/usr/bin/python3 "$top_srcdir/tests/validate.py" "$top_srcdir/schemas" "$t" "$top_srcdir/tests/golden/sample.jsonl" 2>/dev/null &&
		ok "python3-jsonschema agrees: the traces validate" || fail "python3-jsonschema rejects the trace"
fi

# a gap inside nested loads (a full disk, tests/loss-disk.sh's 20 writers):
# the trace.dropped and the ends after it come at depth 2 and 1 of spans
# whose begins were lost; the records name them as parents
"$CLRTRACE" check -q "$top_srcdir/tests/golden/check-gap-in-load.jsonl" >"$OUT/gap-load.out" 2>&1
expect "a gap inside nested loads, explained: no problem" "$?: $(head -2 "$OUT/gap-load.out")" "0: "

# injected seq gap: line 10 removed
sed '10d' "$t" >"$OUT/gap.jsonl"
"$CLRTRACE" check -q "$OUT/gap.jsonl" >"$OUT/gap.out" 2>&1
expect "gap: exit status" "$?" 1
grep -q "gap.jsonl:10: seq gap: 10..10 missing (1 records)" "$OUT/gap.out" && ok "gap reported at line 10" ||
	fail "gap not reported: $(head -3 "$OUT/gap.out")"

# the same gap, explained by a trace.dropped record at the end
last=$(tail -1 "$OUT/gap.jsonl" | jq -c --argjson s "$(tail -1 "$t" | jq .seq)" \
	'{v:1,seq:($s+1),ts:(.ts+1),pid,tid,thread,event:"trace.dropped",phase:"instant",span:null,parent:null,depth:0,count:1,sink:"file",where:"x",reason:"test"}')
{ cat "$OUT/gap.jsonl"; echo "$last"; } >"$OUT/gap-dropped.jsonl"
"$CLRTRACE" check -q "$OUT/gap-dropped.jsonl" >"$OUT/gap-dropped.out" 2>&1 && ok "a gap explained by trace.dropped passes" ||
	fail "explained gap reported: $(head -3 "$OUT/gap-dropped.out")"

# broken nesting: a begin at the wrong depth
line=$(grep -n '"phase":"begin"' "$t" | sed -n 5p | cut -d: -f1)
{ head -n $((line - 1)) "$t"; sed -n "${line}p" "$t" | jq -c '.depth = 7'; tail -n +$((line + 1)) "$t"; } >"$OUT/nest.jsonl"
"$CLRTRACE" check -q "$OUT/nest.jsonl" >"$OUT/nest.out" 2>&1
expect "nesting: exit status" "$?" 1
grep -q "nest.jsonl:$line: .*nesting: depth 7, expected" "$OUT/nest.out" && ok "nesting error reported at line $line" ||
	fail "nesting error not reported: $(head -3 "$OUT/nest.out")"
# an end of a span that is not open
line=$(grep -n '"phase":"end"' "$t" | sed -n 3p | cut -d: -f1)
sed "${line}s/\"span\":[0-9]*/\"span\":999999/" "$t" >"$OUT/nest2.jsonl"
"$CLRTRACE" check -q "$OUT/nest2.jsonl" >"$OUT/nest2.out" 2>&1
grep -q "nest2.jsonl:$line: .*end of span 999999 that is not open" "$OUT/nest2.out" && ok "end without begin reported at line $line" ||
	fail "end without begin not reported: $(head -3 "$OUT/nest2.out")"

# schema violations: a mistyped common field, a missing payload field, a bad enum
sed '3s/"tid":[0-9]*/"tid":"three"/' "$t" >"$OUT/schema.jsonl"
"$CLRTRACE" check -q "$OUT/schema.jsonl" >"$OUT/schema.out" 2>&1
expect "schema: exit status" "$?" 1
grep -q 'schema.jsonl:3: .*schema: /tid: expected integer, got string' "$OUT/schema.out" && ok "mistyped tid reported at line 3" ||
	fail "mistyped tid not reported: $(head -3 "$OUT/schema.out")"
line=$(grep -n '"event":"thread.create"' "$t" | head -1 | cut -d: -f1)
sed "${line}s/\"target\":/\"targ\":/" "$t" >"$OUT/schema2.jsonl"
"$CLRTRACE" check -q "$OUT/schema2.jsonl" >"$OUT/schema2.out" 2>&1
grep -q "schema2.jsonl:$line: .*thread.create: schema: /: \"target\" is required" "$OUT/schema2.out" && ok "missing payload field reported" ||
	fail "missing payload field not reported: $(head -3 "$OUT/schema2.out")"
{ head -1 "$t" | jq -c '.phase = "middle"'; tail -n +2 "$t"; } >"$OUT/schema3.jsonl"
"$CLRTRACE" check -q "$OUT/schema3.jsonl" >"$OUT/schema3.out" 2>&1
grep -q 'schema3.jsonl:1: .*/phase: "middle" is not one of the allowed values' "$OUT/schema3.out" && ok "bad phase reported" ||
	fail "bad phase not reported: $(head -3 "$OUT/schema3.out")"

# a record of a newer schema version: a note, not a failure
v2=$(tail -1 "$t" | jq -c '.v=2 | .seq+=1 | .event="runtime.future" | .phase="instant"')
{ cat "$t"; echo "$v2"; } >"$OUT/v2.jsonl"
"$CLRTRACE" check -q "$OUT/v2.jsonl" >"$OUT/v2.out" 2>"$OUT/v2.err" && grep -q 'schema version 2 is newer' "$OUT/v2.err" &&
	ok "newer schema version: noted, not failed" || fail "newer schema version: $(cat "$OUT/v2.out" "$OUT/v2.err" | head -3)"

# --schema FILE and a schema outside the subset
"$CLRTRACE" check -q --schema "$top_srcdir/schemas/record.schema.json" "$t" >/dev/null 2>&1 && ok "--schema FILE works" || fail "--schema FILE"
echo '{"type":"object","patternProperties":{}}' >"$OUT/bad-schema.json"
"$CLRTRACE" check --schema "$OUT/bad-schema.json" "$t" >/dev/null 2>"$OUT/bad-schema.err"
expect "unsupported schema keyword: exit status" "$?" 2
grep -q 'keyword "patternProperties" is not supported' "$OUT/bad-schema.err" && ok "unsupported keyword named" || fail "$(cat "$OUT/bad-schema.err")"
finish
