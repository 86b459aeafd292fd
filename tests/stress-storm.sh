#!/bin/sh
# 8 threads throw 20,000 exceptions each at once (tests/programs/Storm):
# the record path under contention keeps every record.  Seq 1..N with no gap
# and rising in the file, every line whole, each thread's nesting and
# stories intact (clrtrace check), each thread's records in ts order, and
# every exception a thread threw once in the trace with its summary, on
# that thread.  CLRTRACE_STORM_THREADS and CLRTRACE_STORM_N scale it down
# (defaults: issue 11's 8 and 20000).  On .NET 10, 8 and 9.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
. "$top_srcdir/tests/lib-storm.sh"
threads=${CLRTRACE_STORM_THREADS:-8}
each=${CLRTRACE_STORM_N:-20000}

# slow: where exception handling differs (8 legacy; 10 pinned, 11 not)
for v in $(test_runtimes "10 8 11"); do
	n=".NET $v"
	prog=$(program_cmd Storm "$v")
	f="$OUT/net$v-storm.jsonl"
	start=$(date +%s)
	trace "$f" -- $prog storm "$threads" "$each"
	expect "$n: the program's exit status" "$?" 0
	expect "$n: the program's threads each threw $each" \
		"$(grep -c "^thread [0-9]* tid [0-9]* threw $each\$" "$f.stdout")" "$threads"
	facts "$f"
	whole "$f" "$n"
	in_ts_order "$f" "$n"
	threads "$f" "$n" threw exact
	expect "$n: $((threads * each)) summaries in all" "$(fact "$f" '.events["exception.summary"]')" $((threads * each))
	expect "$n: runtime.shutdown last, its totals final" \
		"$(fact "$f" '[.last_event, .seq.count] | tostring')" "[\"runtime.shutdown\",$(tail -1 "$f" | jq .totals.records)]"
	expect "$n: shutdown totals: every exception caught" \
		"$(tail -1 "$f" | jq -c '.totals.exceptions | [.caught, .unhandled, .unknown, .open]')" "[$((threads * each)),0,0,0]"
	echo "$n: $(fact "$f" .seq.count) records, $(($(date +%s) - start)) s"
	# hundreds of MB of the same records: tests/schema.sh need not read them
	[ -s "$FAILMARK" ] || rm -f "$f"
done

finish
