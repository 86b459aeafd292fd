#!/bin/sh
# A thread the program starts is created, assigned an OS thread, named and
# destroyed, each record naming it.
. "${top_srcdir:-.}/tests/lib.sh"
dll=$(build_program Probe)
t="$OUT/thread.jsonl"
trace "$t" -- dotnet "$dll" thread || fail "traced Probe exited $?"
id=$(jqf "$t" 'select(.event=="thread.name" and .target.name=="probe-worker") | .target.id' | tr -d '"')
[ -n "$id" ] || die "no thread.name record for probe-worker"
ok "thread.name names probe-worker ($id)"
for ev in thread.create thread.os_assign thread.destroy; do
	expect "$ev for the worker" "$(jqf "$t" "select(.event==\"$ev\" and .target.id==\"$id\") | .event" | head -1)" "\"$ev\""
done
os=$(jqf "$t" "select(.event==\"thread.os_assign\" and .target.id==\"$id\") | .target.os_tid")
expect "the OS tid is a real thread id" "$(echo "$os" | grep -cE '^[0-9]+$')" 1
expect "the worker's own records carry that tid and managed id" \
	"$(jqf "$t" "select(.tid==$os) | .thread" | sort -u | tr -d '"' | grep -v null)" "$id"
order=$(jqf "$t" "select(.target.id==\"$id\" and .event!=\"thread.name\") | .event" | tr -d '"' | tr '\n' ' ')
case "$order" in
"thread.create thread.os_assign thread.destroy ") ok "create, os_assign and destroy come in order" ;;
*) fail "order of the worker's thread records: $order" ;;
esac
check_trace "$t"
finish
