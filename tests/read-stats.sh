#!/bin/sh
# clrtrace stats: golden text and JSON for a fixed trace; on a real trace,
# the exceptions, loads, threads and suspensions it must find.
. "${top_srcdir:-.}/tests/lib.sh"
G="$top_srcdir/tests/golden"

golden() {
	if [ -n "${CLRTRACE_REGOLD:-}" ]; then cp "$2" "$G/$1"; ok "$1 rewritten"; return; fi
	if diff -u "$G/$1" "$2" >"$2.diff"; then ok "$1 matches"; else head -40 "$2.diff"; fail "$1 differs"; fi
}

"$CLRTRACE" stats "$G/sample.jsonl" >"$OUT/sample.stats" || fail "stats exit status $?"
golden sample.stats "$OUT/sample.stats"
"$CLRTRACE" stats --json "$G/sample.jsonl" >"$OUT/sample.stats.json" || fail "stats --json exit status $?"
golden sample.stats.json "$OUT/sample.stats.json"
jq -e . "$OUT/sample.stats.json" >/dev/null && ok "--json is JSON" || fail "--json is not JSON"
# errors first (exception.error, issue 28): a hand-written trace
"$CLRTRACE" stats "$G/errors.jsonl" >"$OUT/errors.stats" || fail "stats on errors.jsonl: exit status $?"
golden errors.stats "$OUT/errors.stats"
"$CLRTRACE" stats --json "$G/errors.jsonl" >"$OUT/errors.stats.json" || fail "stats --json on errors.jsonl: exit status $?"
golden errors.stats.json "$OUT/errors.stats.json"
expect "errors: 4, of 19 throws, 1 unhandled" \
	"$(jq -r '.exceptions.errors | "\(.total) \(.throws) \(.by_fate.unhandled)"' "$OUT/errors.stats.json")" "4 19 1"
expect "errors: Kestrel's 500" \
	"$(jq -r '.exceptions.errors.matrix[] | select(.label == "Kestrel (500)") | .type' "$OUT/errors.stats.json")" System.InvalidOperationException
expect "no errors object without exception.error" "$(jq '.exceptions | has("errors")' "$OUT/sample.stats.json")" false

dll=$(build_program Sample)
t="$OUT/all.jsonl"
trace "$t" -e all -- dotnet "$dll" || fail "traced Sample exited $?"
"$CLRTRACE" stats --json "$t" >"$OUT/all.json" || fail "stats --json on a real trace: $?"
j() { jq -r "$1" "$OUT/all.json"; }
expect "records counted" "$(j .records)" "$(wc -l <"$t")"
expect "exceptions in all" "$(j .exceptions.total)" "$(jq -s '[.[] | select(.event=="exception.throw")] | length' "$t")"
expect "caught exceptions" "$(j .exceptions.by_outcome.caught)" "$(jq -s '[.[] | select(.event=="exception.summary" and .outcome=="caught")] | length' "$t")"
expect "top catch site" "$(j '.exceptions.catch_sites | map(select(.function=="Sample.Program.Load")) | .[0].count')" 2
expect "first load is CoreLib" "$(j '.loads[0].name')" System.Private.CoreLib
expect "loads in begin order" "$(j '[.loads[].at_ns] | . == sort')" true
expect "assemblies loaded" "$(j '[.loads[] | select(.kind=="assembly")] | length')" "$(jq -s '[.[] | select(.event=="assembly.load" and .phase=="begin")] | length' "$t")"
expect "threads named" "$(j '.threads.list[] | select(.name=="worker") | .name')" worker
expect "threads created" "$(j .threads.created)" "$(jq -s '[.[] | select(.event=="thread.create")] | length' "$t")"
expect "gc suspensions (GC.Collect)" "$(j '[.suspensions[] | select(.reason=="gc")][0].count >= 1')" true
expect "no drops" "$(j .dropped.records)" 0
"$CLRTRACE" stats "$t" >"$OUT/all.txt" || fail "stats text"
for s in 'Exceptions: ' 'Top throw sites:' 'Top catch sites:' 'Loads (' 'Threads: ' 'Runtime suspensions:' 'Dropped records: 0' 'Tracer errors: 0'; do
	grep -q "^$s" "$OUT/all.txt" && ok "text has '$s'" || fail "text lacks '$s'"
done

# drops and tracer errors are summed up
{ cat "$G/sample.jsonl"
  echo '{"v":1,"seq":187,"ts":1,"pid":1,"tid":1,"thread":null,"event":"trace.dropped","phase":"instant","span":null,"parent":null,"depth":0,"count":5,"sink":"journal","where":"journal","reason":"queue full"}'
  echo '{"v":1,"seq":188,"ts":2,"pid":1,"tid":1,"thread":null,"event":"trace.error","phase":"instant","span":null,"parent":null,"depth":0,"message":"span stack full"}'
} >"$OUT/drops.jsonl"
"$CLRTRACE" stats --json "$OUT/drops.jsonl" >"$OUT/drops.json"
expect "drops summed" "$(jq -r '.dropped.records' "$OUT/drops.json")" 5
expect "errors listed" "$(jq -r '.errors[0].message' "$OUT/drops.json")" "span stack full"
# run's closing summary: errors first when the trace has exception.error
"$CLRTRACE" run -o "file:$OUT/run-errors.jsonl" -- sh -c "cat '$G/errors.jsonl' >'$OUT/run-errors.jsonl'" 2>"$OUT/run-errors.err"
expect "run: throws of errors" "$(grep '^clrtrace: [0-9]* records' "$OUT/run-errors.err")" \
	"clrtrace: 59 records, 19 throws of 4 errors (1 unhandled), trace in $OUT/run-errors.jsonl"
"$CLRTRACE" run -o "file:$OUT/run-sample.jsonl" -- sh -c "cat '$G/sample.jsonl' >'$OUT/run-sample.jsonl'" 2>"$OUT/run-sample.err"
expect "run: exceptions, without exception.error" "$(grep '^clrtrace: [0-9]* records' "$OUT/run-sample.err")" \
	"clrtrace: 186 records, 4 exceptions (0 unhandled), trace in $OUT/run-sample.jsonl"
"$CLRTRACE" stats -n 1 --json "$G/sample.jsonl" | jq -e '.exceptions.throw_sites | length == 1' >/dev/null && ok "--top 1" || fail "--top 1"
finish
