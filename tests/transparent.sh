#!/bin/sh
# The program's exit status, stdout and stderr are the same with and
# without the tracer, apart from clrtrace's own summary line.
. "${top_srcdir:-.}/tests/lib.sh"
dll=$(build_program Probe)

compare() { # NAME ARGS...
	name=$1; shift
	dotnet "$dll" "$@" >"$OUT/$name.plain.out" 2>"$OUT/$name.plain.err"
	plain=$?
	"$CLRTRACE" run -o "file:$OUT/$name.jsonl" -e all -- dotnet "$dll" "$@" >"$OUT/$name.traced.out" 2>"$OUT/$name.traced.err"
	traced=$?
	expect "$name: same exit status ($plain)" "$traced" "$plain"
	cmp -s "$OUT/$name.plain.out" "$OUT/$name.traced.out" && ok "$name: same stdout" || fail "$name: stdout differs"
	tail -1 "$OUT/$name.traced.err" | grep -q '^clrtrace: [0-9]* records, ' && ok "$name: one summary line at the end" ||
		fail "$name: no summary line: $(tail -1 "$OUT/$name.traced.err")"
	sed '$d' "$OUT/$name.traced.err" | cmp -s "$OUT/$name.plain.err" - && ok "$name: same stderr otherwise" ||
		fail "$name: stderr differs: $(diff "$OUT/$name.plain.err" "$OUT/$name.traced.err" | head -5)"
	[ "$(wc -l <"$OUT/$name.jsonl")" -gt 10 ] && ok "$name: a trace was written with every category on" || fail "$name: no trace"
	check_trace "$OUT/$name.jsonl"
}
compare hello hello
compare status status 7
compare exit exit
compare thread thread
compare pinvoke pinvoke

# Environment.Exit: every record is on disk, runtime.shutdown included
expect "Environment.Exit: the trace ends with runtime.shutdown" "$(tail -1 "$OUT/exit.jsonl" | jq -r .event)" runtime.shutdown

# a signal death shows as 128+signal
"$CLRTRACE" run -q -- sh -c 'kill -TERM $$'
expect "a program killed by SIGTERM gives 143" "$?" 143
"$CLRTRACE" run -q -- /nonexistent/program 2>"$OUT/noprog.err"
expect "a program that cannot be run gives 127" "$?" 127
grep -q "cannot run '/nonexistent/program'" "$OUT/noprog.err" && ok "and says why" || fail "no reason given"
finish
