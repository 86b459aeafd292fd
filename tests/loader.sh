#!/bin/sh
# The sample's own assembly and module appear as load spans, nested on the
# loading thread, with names resolved.
. "${top_srcdir:-.}/tests/lib.sh"
dll=$(build_program Sample)
t="$OUT/sample.jsonl"
trace "$t" -- dotnet "$dll" || fail "traced Sample exited $?"

asm=$(jqf "$t" 'select(.event=="assembly.load" and .phase=="end" and .assembly.name=="Sample")')
expect "one assembly.load end names Sample" "$(echo "$asm" | grep -c .)" 1
expect "Sample's assembly.load carries its path" "$(echo "$asm" | jq -r '.assembly.path | endswith("/Sample.dll")')" true
span=$(echo "$asm" | jq -r .span)
tid=$(echo "$asm" | jq -r .tid)
expect "its begin is on the same thread" \
	"$(jqf "$t" "select(.event==\"assembly.load\" and .phase==\"begin\" and .span==$span) | .tid")" "$tid"
mod=$(jqf "$t" 'select(.event=="module.load" and .phase=="end" and (.module.path // "" | endswith("/Sample.dll")))')
expect "one module.load end names Sample.dll" "$(echo "$mod" | grep -c .)" 1
expect "the module span is nested in the assembly span" "$(echo "$mod" | jq -r .parent)" "$span"
expect "and one level deeper" "$(echo "$mod" | jq -r ".depth // 0")" "$(($(echo "$asm" | jq -r ".depth // 0") + 1))"
expect "module.attach links Sample.dll to assembly Sample" \
	"$(jqf "$t" 'select(.event=="module.attach" and (.module.path|endswith("/Sample.dll"))) | .assembly.name')" '"Sample"'
expect "System.Private.CoreLib is loaded first" \
	"$(jqf "$t" 'select(.event=="assembly.load" and .phase=="end") | .assembly.name' | head -1)" '"System.Private.CoreLib"'
expect "the default appdomain is created and named" \
	"$(jqf "$t" 'select(.event=="appdomain.create" and .phase=="end") | .appdomain.name' | grep -c DefaultDomain)" 1
expect "runtime.init comes first" "$(head -1 "$t" | jq -r .event)" runtime.init
expect "runtime.shutdown comes last" "$(tail -1 "$t" | jq -r .event)" runtime.shutdown
expect "runtime.shutdown counts every record" "$(tail -1 "$t" | jq -r .totals.records)" "$(wc -l <"$t")"
check_trace "$t"
finish
