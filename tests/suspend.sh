#!/bin/sh
# GC.Collect() suspends the runtime for a GC: a runtime.suspend span with
# reason gc, then runtime.resume; with +gc, gc spans name the generations.
. "${top_srcdir:-.}/tests/lib.sh"
dll=$(build_program Probe)
t="$OUT/gc.jsonl"
trace "$t" -e +gc -- dotnet "$dll" gc || fail "traced Probe exited $?"
n=$(jqf "$t" 'select(.event=="runtime.suspend" and .phase=="begin" and .reason=="gc")' | grep -c .)
[ "$n" -ge 3 ] && ok "$n runtime.suspend spans with reason gc (3 GC.Collect calls)" || fail "only $n suspend spans with reason gc"
span=$(jqf "$t" 'select(.event=="runtime.suspend" and .phase=="begin" and .reason=="gc") | .span' | head -1)
expect "the suspend span ends, not aborted" \
	"$(jqf "$t" "select(.event==\"runtime.suspend\" and .phase==\"end\" and .span==$span) | .aborted")" false
expect "a runtime.resume span follows" "$(jqf "$t" 'select(.event=="runtime.resume" and .phase=="end") | .event' | head -1)" '"runtime.resume"'
expect "induced GCs of generation 2 are recorded" \
	"$(jqf "$t" 'select(.event=="gc" and .phase=="begin" and .reason=="induced") | .generations | index(2) != null' | sort -u)" true
check_trace "$t"
finish
