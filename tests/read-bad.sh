#!/bin/sh
# Bad input never crashes view, stats, export or check: a truncated last
# line, lines that are not JSON, unknown events, an empty file, a binary
# file, a missing file, a directory, an over-long line.  Each is reported
# with its line number; the readers go on past bad lines.
. "${top_srcdir:-.}/tests/lib.sh"
G="$top_srcdir/tests/golden"
good="$G/sample.jsonl"
n=$(wc -l <"$good")

# run CMD ARGS: status of clrtrace CMD, output in $OUT/run.out/.err
run() { "$CLRTRACE" "$@" >"$OUT/run.out" 2>"$OUT/run.err"; }
# no_crash WHAT STATUS: a status of 128+ is a signal
no_crash() { [ "$2" -lt 128 ] && ok "$1: no crash (status $2)" || fail "$1: status $2 (crashed)"; }

# truncated last line: a writer killed mid-record
head -c -40 "$good" >"$OUT/trunc.jsonl"
for c in view stats "export --format chrome" check; do
	# shellcheck disable=SC2086
	run $c "$OUT/trunc.jsonl"; st=$?
	no_crash "$c truncated" $st
	grep -q "trunc.jsonl:$n: .*\(truncated\|no newline\)" "$OUT/run.err" "$OUT/run.out" && ok "$c names line $n as truncated" ||
		fail "$c: $(cat "$OUT/run.err" | head -2)"
done
run view --color=never "$OUT/trunc.jsonl"
expect "view of a truncated trace: exit 0 (a torn last line is expected)" "$?" 0
expect "view shows every whole record" "$(grep -vc '^---' "$OUT/run.out" | awk '$1>0{print "yes"}')" yes
run check "$OUT/trunc.jsonl"
expect "check of a truncated trace: exit 1" "$?" 1

# lines that are not JSON, in the middle
{ head -20 "$good"; echo 'this is not json'; echo '{"v":1,"seq":'; echo '[1,2,3]'; echo '{"no":"event"}'; tail -n +21 "$good"; } >"$OUT/junk.jsonl"
for c in view stats "export --format chrome"; do
	# shellcheck disable=SC2086
	run $c "$OUT/junk.jsonl"; st=$?
	no_crash "$c junk lines" $st
	expect "$c junk lines: exit 1" "$st" 1
	grep -q 'junk.jsonl:21: not JSON' "$OUT/run.err" && grep -q 'junk.jsonl:23: not a JSON object' "$OUT/run.err" &&
		grep -q 'junk.jsonl:24: no "event"' "$OUT/run.err" && ok "$c reports lines 21-24" || fail "$c: $(head -4 "$OUT/run.err")"
done
run stats --json "$OUT/junk.jsonl"
expect "stats goes on past bad lines" "$(jq .records "$OUT/run.out")" "$n"
run check "$OUT/junk.jsonl"
expect "check: 4 problems on 4 bad lines" "$(grep -c 'junk.jsonl:2[1-4]:' "$OUT/run.out")" 4

# unknown events (a newer clrtrace): shown and counted, not an error
{ cat "$good"; tail -1 "$good" | jq -c 'del(.totals) | .seq+=1 | .event="gc.heap_stats" | .heap={"gen0":1} | .phase="instant"'; } >"$OUT/unknown.jsonl"
run view --color=never "$OUT/unknown.jsonl"
expect "view with an unknown event: exit 0" "$?" 0
grep -q 'gc.heap_stats {"heap":{"gen0":1}}' "$OUT/run.out" && ok "unknown event shown with its fields" || fail "unknown event: $(tail -2 "$OUT/run.out")"
run stats --json "$OUT/unknown.jsonl"
expect "stats counts the unknown event" "$(jq -r '.events[] | select(.event=="gc.heap_stats") | .count' "$OUT/run.out")" 1
run export --format chrome "$OUT/unknown.jsonl"
expect "export with an unknown event: exit 0" "$?" 0
run check "$OUT/unknown.jsonl"
grep -q "unknown.jsonl:$((n + 1)): .*gc.heap_stats.*/event" "$OUT/run.out" && ok "check reports an unknown v1 event" || fail "check: $(head -2 "$OUT/run.out")"

# empty file
: >"$OUT/empty.jsonl"
for c in view stats "export --format chrome"; do
	# shellcheck disable=SC2086
	run $c "$OUT/empty.jsonl"; st=$?
	expect "$c empty file: exit 0" "$st" 0
done
jq -e '.traceEvents == []' "$OUT/run.out" >/dev/null && ok "export of an empty trace is valid JSON" || fail "export empty: $(cat "$OUT/run.out")"
run check "$OUT/empty.jsonl"
expect "check empty file: exit 1" "$?" 1
grep -q 'no records' "$OUT/run.out" && ok "check says the trace is empty" || fail "check empty: $(cat "$OUT/run.out")"

# binary file, missing file, a directory
for c in view stats "export --format chrome" check; do
	# shellcheck disable=SC2086
	run $c "$CLRTRACE"; st=$?
	no_crash "$c binary" $st
	expect "$c binary: exit 1" "$st" 1
	grep -q "clrtrace:1: binary data" "$OUT/run.err" "$OUT/run.out" && ok "$c binary: line 1 reported" || fail "$c binary: $(head -2 "$OUT/run.err")"
	[ "$(wc -l <"$OUT/run.err")" -le 25 ] && ok "$c binary: warnings are bounded" || fail "$c binary: $(wc -l <"$OUT/run.err") lines of warnings"
	# shellcheck disable=SC2086
	run $c "$OUT/does-not-exist.jsonl"; st=$?
	expect "$c missing file: exit 1" "$st" 1
	grep -q "does-not-exist.jsonl: No such file or directory" "$OUT/run.err" && ok "$c names the missing file" || fail "$c missing: $(cat "$OUT/run.err")"
	# shellcheck disable=SC2086
	run $c "$OUT"; st=$?
	no_crash "$c directory" $st
	grep -qi "directory" "$OUT/run.err" "$OUT/run.out" && ok "$c says it is a directory" || fail "$c dir: $(cat "$OUT/run.err")"
done

# stdin, and an over-long line (longer than the reader's 64 MiB bound)
run stats --json - <"$good"
expect "stats from stdin" "$(jq .records "$OUT/run.out")" "$n"
{ head -3 "$good"; head -c 70000000 /dev/zero | tr '\0' 'x'; echo; tail -n +4 "$good"; } | "$CLRTRACE" stats --json - >"$OUT/long.out" 2>"$OUT/long.err"
no_crash "over-long line" $?
grep -q '<stdin>:4: line longer than 64 MiB; skipped' "$OUT/long.err" && ok "over-long line reported at line 4" || fail "long: $(cat "$OUT/long.err")"
expect "records after the long line are read" "$(jq .records "$OUT/long.out")" "$n"
finish
