#!/bin/sh
# Categories switch event families on and off: jit and classes name what
# they see; -e none leaves only runtime.init and runtime.shutdown.
. "${top_srcdir:-.}/tests/lib.sh"
dll=$(build_program Probe)
t="$OUT/all.jsonl"
trace "$t" -e all -- dotnet "$dll" hello || fail "traced Probe exited $?"
expect "jit.compile spans Probe.Program.Main, with hr" \
	"$(jqf "$t" 'select(.event=="jit.compile" and .phase=="end" and .function=="Probe.Program.Main") | .hr')" '"0x00000000"'
expect "class.load names Probe.Program" \
	"$(jqf "$t" 'select(.event=="class.load" and .phase=="end" and .class.name=="Probe.Program") | .event')" '"class.load"'
expect "runtime.init shows every category on" \
	"$(head -1 "$t" | jq -c .config.events)" '["exceptions","frames","loader","classes","threads","suspend","transitions","gc","jit","stacks","startup","tiers","requests"]'
check_trace "$t"

t="$OUT/none.jsonl"
trace "$t" -e none -- dotnet "$dll" hello || fail "traced Probe exited $?"
expect "-e none: only runtime.init and runtime.shutdown" "$(jqf "$t" .event | tr -d '"' | tr '\n' ' ')" "runtime.init runtime.shutdown "

t="$OUT/default.jsonl"
trace "$t" -- dotnet "$dll" hello || fail "traced Probe exited $?"
expect "default: no jit, class or transition records" \
	"$(jqf "$t" 'select(.event=="jit.compile" or .event=="class.load" or .event=="transition" or .event=="gc")' | grep -c .)" 0
expect "default categories" "$(head -1 "$t" | jq -c .config.events)" '["exceptions","loader","threads","suspend"]'
finish
