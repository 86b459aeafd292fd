#!/bin/sh
# A P/Invoke into libc produces transition records naming the function,
# when transitions are on, and none when they are off.
. "${top_srcdir:-.}/tests/lib.sh"
dll=$(build_program Probe)
t="$OUT/on.jsonl"
trace "$t" -e +transitions -- dotnet "$dll" pinvoke || fail "traced Probe exited $?"
expect "the program ran" "$(cat "$t.stdout")" "pid True len 4"
for fn in getpid strlen; do
	out=$(jqf "$t" "select(.event==\"transition\" and (.function|endswith(\".$fn\"))) | [.direction,.reason] | join(\" \")" | sort -u | tr -d '"' | tr '\n' ',')
	expect "$fn: to_unmanaged call and to_managed return" "$out" "to_managed return,to_unmanaged call,"
done
expect "the function is named Namespace.Type.Method" \
	"$(jqf "$t" 'select(.event=="transition" and (.function|endswith(".getpid"))) | .function' | head -1)" '"Probe.Program.getpid"'
check_trace "$t"
t2="$OUT/off.jsonl"
trace "$t2" -- dotnet "$dll" pinvoke || fail "traced Probe exited $?"
expect "no transitions by default" "$(jqf "$t2" 'select(.event=="transition")' | grep -c .)" 0
finish
