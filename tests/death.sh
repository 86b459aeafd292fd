#!/bin/sh
# A process that dies without any chance to flush (Environment.FailFast
# resets every signal handler before abort; kill -9) loses no record: the
# unwritten tail is in FILE.<pid>.pending, merged by `clrtrace run` or `recover`.
. "${top_srcdir:-.}/tests/lib.sh"
dll=$(build_program Probe)

t="$OUT/failfast.jsonl"
trace "$t" -- dotnet "$dll" failfast
expect "FailFast: the program dies by SIGABRT (134)" "$?" 134
grep -q "probe fails fast" "$t.stderr" && ok "FailFast: the runtime's message is still printed" || fail "no FailFast message"
! ls "$t".*.pending >/dev/null 2>&1 && ok "FailFast: clrtrace run merged FILE.<pid>.pending" || fail "FILE.<pid>.pending left behind"
n=$(wc -l <"$t")
[ "$n" -gt 20 ] && ok "FailFast: $n records on disk" || fail "FailFast: only $n records"
check_trace "$t"
expect "FailFast: the records run up to the last one the tracer saw (seq = count)" \
	"$(tail -1 "$t" | jq .seq)" "$n"

# exit while four threads keep throwing: the tracer shuts down under them
# and must neither crash nor hang the program, nor leave a broken trace
for i in 1 2 3; do
	t4="$OUT/exitrace-$i.jsonl"
	trace "$t4" -- dotnet "$dll" exitrace
	expect "exit under load ($i): the program's own status" "$?" 5
	check_trace "$t4"
	rm -f "$t4" # tens of MB of the same record: tests/schema.sh need not read it
done

# -q only drops the summary line: the merge still happens
t3="$OUT/failfast-quiet.jsonl"
"$CLRTRACE" run -q -o "file:$t3" -- dotnet "$dll" failfast >/dev/null 2>&1
! ls "$t3".*.pending >/dev/null 2>&1 && [ "$(wc -l <"$t3")" -gt 20 ] && ok "run -q merges FILE.<pid>.pending too" ||
	fail "run -q left the records in FILE.<pid>.pending"

# kill -9 while running, with no periodic flush (CLRTRACE_FLUSH_MS=0):
# every record is in FILE.<pid>.pending; recover by hand
t2="$OUT/kill9.jsonl"
CORECLR_ENABLE_PROFILING=1 CORECLR_PROFILER='{94D19DC5-3374-47C3-9729-75E330DECA23}' \
	CORECLR_PROFILER_PATH="$CLRTRACE_LIBRARY" CLRTRACE_OUTPUT="file:$t2" CLRTRACE_FLUSH_MS=0 \
	dotnet "$dll" sleep 20000 >"$t2.stdout" 2>&1 &
pid=$!
for _ in $(seq 200); do grep -q sleeping "$t2.stdout" && break; sleep 0.1; done
kill -9 $pid
wait $pid 2>/dev/null
[ -e "$t2.$pid.pending" ] && ok "kill -9: FILE.<pid>.pending holds the unwritten tail" || fail "no FILE.$pid.pending after kill -9"
before=$(wc -l <"$t2")
"$CLRTRACE" recover "$t2" 2>"$OUT/recover.err"
expect "recover exits 0" "$?" 0
after=$(wc -l <"$t2")
expect "nothing was flushed before the kill" "$before" 0
[ "$after" -gt 20 ] && ok "recover appended $((after - before)) records ($before before)" || fail "recover added nothing ($before -> $after)"
grep -q "recovered $((after - before)) records into" "$OUT/recover.err" && ok "recover says how many" || fail "recover said: $(cat "$OUT/recover.err")"
[ ! -e "$t2.$pid.pending" ] && ok "FILE.<pid>.pending is removed" || fail "FILE.<pid>.pending left"
check_trace "$t2"
"$CLRTRACE" recover "$t2" 2>/dev/null
expect "a second recover changes nothing" "$(wc -l <"$t2")" "$after"
finish
