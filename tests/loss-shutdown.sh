#!/bin/sh
# Nothing is written after runtime.shutdown: Environment.Exit while eight
# threads still throw and catch.  runtime.shutdown is the last record, its
# totals are final (records = its seq = the records in the file), and the
# seq has no gap: what those threads do after it is not part of the trace.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
dll=$(build_program Loss)

for i in 1 2 3; do
	t="$OUT/exit-$i.jsonl"
	trace "$t" -- dotnet "$dll" exit-throwing 8
	expect "run $i: exit status and output" "$? $(cat "$t.stdout")" "3 exiting"
	got=$(jq -s -c '(map(select(.event == "runtime.shutdown"))) as $s
		| [($s | length), ($s[0].seq == (map(.seq) | max)), ($s[0].totals.records == length),
		   $s[0].totals.dropped]' "$t")
	echo "run $i: $(wc -l <"$t") records; [shutdowns, shutdown last, totals.records = records, dropped] = $got"
	expect "run $i: one runtime.shutdown, the last record, its totals final" "$got" "[1,true,true,0]"
	check_trace "$t"
done

finish
