#!/bin/bash
# 4 threads throw 10,000 exceptions: every one has its throw and summary,
# the nesting holds, and the totals agree.  Then type filters and limits.
# On .NET 10, 8 and 9.
. "$(dirname "$0")/lib.sh"

# slow: where exception handling differs (8 legacy; 10 pinned, 11 not)
for v in $(test_runtimes "10 8 11"); do
	n=".NET $v"
	prog=$(program_cmd Scenarios "$v")

	f="$OUT/net$v-stress.jsonl"
	trace "$f" -- $prog stress || fail "$n stress: exit status $?"
	grep -q "^done stress 10000" "$f.stdout" && ok "$n stress: the program caught 10000" || fail "$n stress: $(cat "$f.stdout")"
	check_trace "$f"
	expect "$n stress: 10000 throw records" "$(jq -c 'select(.event == "exception.throw")' "$f" | wc -l)" 10000
	expect "$n stress: 10000 summaries, all caught in StressWorker" \
		"$(jq -r 'select(.event == "exception.summary") | "\(.outcome) \(.caught_in)"' "$f" | sort | uniq -c | tr -s ' ')" \
		" 10000 caught Scenarios.Program.StressWorker"
	expect "$n stress: ids unique" "$(jq -r 'select(.event == "exception.summary") | .exception.id' "$(full "$f")" | sort -u | wc -l)" 10000
	expect "$n stress: on 4 threads" "$(jq -r 'select(.event == "exception.summary") | .tid' "$f" | sort -u | wc -l)" 4
	expect "$n stress: no trace.error" "$(jq -c 'select(.event == "trace.error")' "$f" | wc -l)" 0
	expect "$n stress: shutdown totals" "$(jq -c 'select(.event == "runtime.shutdown") | .totals.exceptions | [.caught, .unhandled, .swallowed, .superseded]' "$f")" "[10000,0,0,0]"

	# filters: Beta excluded, Alpha at most 10 a second
	f="$OUT/net$v-filtered.jsonl"
	trace "$f" -x 'Scenarios.AlphaException:10,!Scenarios.BetaException' -- $prog stress || fail "$n filtered: exit status $?"
	grep -q "^done stress 10000" "$f.stdout" && ok "$n filtered: the program is unaffected" || fail "$n filtered: $(cat "$f.stdout")"
	check_trace "$f"
	expect "$n filtered: no Beta records" "$(jq -c 'select(.exception.type == "Scenarios.BetaException")' "$f" | wc -l)" 0
	cnt=$(jq -c 'select(.event == "exception.summary")' "$f" | wc -l)
	[ "$cnt" -ge 1 ] && [ "$cnt" -le 100 ] && ok "$n filtered: $cnt Alpha summaries (rate limited)" || fail "$n filtered: $cnt Alpha summaries"
	expect "$n filtered: throws = summaries" "$(jq -c 'select(.event == "exception.throw")' "$f" | wc -l)" "$cnt"
	expect "$n filtered: totals count the excluded and the suppressed" \
		"$(jq -c 'select(.event == "runtime.shutdown") | .totals.exceptions | [.excluded, .suppressed["Scenarios.AlphaException"] + .caught]' "$f")" "[5000,5000]"

done

finish
