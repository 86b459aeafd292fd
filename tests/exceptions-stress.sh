#!/bin/bash
# 4 threads throw 10,000 exceptions: every one has its throw and summary,
# the nesting holds, and the totals agree.  Then type filters and limits.
. "$(dirname "$0")/lib.sh"
dll=$(build_program Scenarios) || exit 1

f="$OUT/stress.jsonl"
trace "$f" -- dotnet "$dll" stress || fail "stress: exit status $?"
grep -q "^done stress 10000" "$f.stdout" && ok "stress: the program caught 10000" || fail "stress: $(cat "$f.stdout")"
check_trace "$f"
expect "stress: 10000 throw records" "$(jq -c 'select(.event == "exception.throw")' "$f" | wc -l)" 10000
expect "stress: 10000 summaries, all caught in StressWorker" \
	"$(jq -r 'select(.event == "exception.summary") | "\(.outcome) \(.caught_in)"' "$f" | sort | uniq -c | tr -s ' ')" \
	" 10000 caught Scenarios.Program.StressWorker"
expect "stress: ids unique" "$(jq -r 'select(.event == "exception.summary") | .exception.id' "$f" | sort -u | wc -l)" 10000
expect "stress: on 4 threads" "$(jq -r 'select(.event == "exception.summary") | .tid' "$f" | sort -u | wc -l)" 4
expect "stress: no trace.error" "$(jq -c 'select(.event == "trace.error")' "$f" | wc -l)" 0
expect "stress: shutdown totals" "$(jq -c 'select(.event == "runtime.shutdown") | .totals.exceptions | [.caught, .unhandled, .swallowed, .superseded]' "$f")" "[10000,0,0,0]"

# filters: Beta excluded, Alpha at most 10 a second
f="$OUT/filtered.jsonl"
trace "$f" -x 'Scenarios.AlphaException:10,!Scenarios.BetaException' -- dotnet "$dll" stress || fail "filtered: exit status $?"
grep -q "^done stress 10000" "$f.stdout" && ok "filtered: the program is unaffected" || fail "filtered: $(cat "$f.stdout")"
check_trace "$f"
expect "filtered: no Beta records" "$(jq -c 'select(.exception.type == "Scenarios.BetaException")' "$f" | wc -l)" 0
n=$(jq -c 'select(.event == "exception.summary")' "$f" | wc -l)
[ "$n" -ge 1 ] && [ "$n" -le 100 ] && ok "filtered: $n Alpha summaries (rate limited)" || fail "filtered: $n Alpha summaries"
expect "filtered: throws = summaries" "$(jq -c 'select(.event == "exception.throw")' "$f" | wc -l)" "$n"
expect "filtered: totals count the excluded and the suppressed" \
	"$(jq -c 'select(.event == "runtime.shutdown") | .totals.exceptions | [.excluded, .suppressed["Scenarios.AlphaException"] + .caught]' "$f")" "[5000,5000]"

finish
