#!/bin/sh
# A filter that collects the garbage and loads an assembly, on .NET 10, 8
# and 9: the filter's Enter is only stashed in its callback
# (dotnet/runtime#132462) and written later, but the records of the work
# the filter does (runtime.suspend, assembly.load) still come after its
# begin, nested in it, and each thread's records stay in time order.
. "${top_srcdir:-.}/tests/lib.sh"
for v in $(test_runtimes); do
	n=".NET $v"
	prog=$(program_cmd FilterNest "$v")
	t="$OUT/net$v-filter-nest.jsonl"
	trace "$t" -- $prog || fail "$n: traced FilterNest exited $?"
	expect "$n: the filter ran and the catch too" "$(cat "$t.stdout")" caught
	f=$(jq -c 'select(.event == "exception.filter" and .phase == "begin") | [.tid, .span, .seq, .depth // 0]' "$t")
	expect "$n: one filter" "$(echo "$f" | grep -c .)" 1
	tid=$(echo "$f" | jq '.[0]') span=$(echo "$f" | jq '.[1]') begin=$(echo "$f" | jq '.[2]') depth=$(echo "$f" | jq '.[3]')
	end=$(jq "select(.event == \"exception.filter\" and .phase == \"end\" and .span == $span) | .seq" "$t")
	inside=$(jq -r "select(.tid == $tid and .seq > $begin and .seq < $end and (.depth // 0) > $depth)
		| select(.event == \"runtime.suspend\" or .event == \"assembly.load\") | .event" "$t" | sort -u | tr '\n' ' ')
	expect "$n: the GC's suspension and the load are inside the filter, deeper than it" "$inside" "assembly.load runtime.suspend "
	expect "$n: the thread's records in time order" \
		"$(jq -r "select(.tid == $tid) | .ts" "$t" | awk 'NR > 1 && $1 < p { n++ } { p = $1 } END { print n + 0 }')" 0
	check_trace "$t"
done
finish
