#!/bin/sh
# Sampling that keeps what matters and counts the rest (issue 29): a program
# throws many errors of three types at three sites and counts them itself.
# Under the budget every error is written; past it the first of each
# (type, site) and every unhandled one are, and the errors written plus the
# ones trace.left_out counts are the program's own counts, per type and
# site; an error is written with all its throws or none; a -x Type:N limit
# is counted the same way; run, stats (text, --json) and view say it.
# On .NET 10, 8 and 11.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

# accounted NAME TRACE: per (type, site), the errors written (exception.error
# without "sampled") plus those trace.left_out counts equal the program's
# counts ("count TYPE SITE N" on TRACE.stdout); prints "TYPE SITE KEPT LEFT"
accounted() {
	local name=$1 f=$2 got
	got=$( {
		sed -n 's/^count \([^ ]*\) \([^ ]*\) \([0-9]*\)$/P \1 \2 \3/p' "$f.stdout"
		jq -r 'select(.event == "exception.error" and (.sampled | not)) | "K \(.exception.type) \(.origin.function) 1"' "$f"
		jq -r 'select(.event == "trace.left_out") | "L \(.type) \(.site) \(.count)"' "$f"
	} | awk '{ k = $2 " " $3; n[$1 " " k] += $4; keys[k] = 1 }
		END { bad = 0
		      for (k in keys) {
		          if (n["K " k] + n["L " k] != n["P " k]) { print "MISMATCH " k ": program " n["P " k] ", written " n["K " k] " + left out " n["L " k]; bad = 1 }
		          else print k, n["K " k] + 0, n["L " k] + 0
		      }
		      if (!length(keys)) print "MISMATCH nothing counted" }' | sort)
	echo "$got" | sed "s/^/  $name: /"
	if echo "$got" | grep -q MISMATCH || [ "$(grep -c '^count ' "$f.stdout")" -lt 1 ]; then
		fail "$name: written + left out != the program's counts"
	else
		ok "$name: written + left out = the program's counts, per type and site ($(echo "$got" | wc -l) pairs)"
	fi
	ACC=$got
}

# kept_first NAME TRACE MESSAGE...: an error with each message was written in full
kept_first() {
	local name=$1 f=$2 m
	shift 2
	for m in "$@"; do
		[ "$(jq -r --arg m "$m" 'select(.event == "exception.throw" and .exception.message == $m) | .exception.id' "$f" | wc -l)" = 1 ] &&
			ok "$name: the first '$m' is written" || fail "$name: no exception.throw for '$m'"
	done
}

for v in $(test_runtimes "10 8 11"); do
	n=".NET $v"
	prog=$(program_cmd Sampling "$v")

	# 1. under the budget: every error written, nothing left out
	f="$OUT/net$v-under.jsonl"
	trace "$f" --budget 1000000 -- $prog storm 300 || fail "$n under: exit status $?"
	grep -q '^done' "$f.stdout" || fail "$n under: $(cat "$f.stdout")"
	check_trace "$f"
	expect "$n under: nothing left out" "$(jq -c 'select(.event == "trace.left_out")' "$f" | wc -l)" 0
	accounted "$n under" "$f"
	expect "$n under: the budget in runtime.init" "$(jq -c 'select(.event == "runtime.init") | .config.budget' "$f")" \
		'{"errors":1000000,"interval_s":1}'

	# 2. far past the budget (one error an hour): the first of each type
	# and site written, the rest counted exactly
	f="$OUT/net$v-over.jsonl"
	trace "$f" --budget 1/3600 -- $prog storm 3000 || fail "$n over: exit status $?"
	grep -q '^done' "$f.stdout" || fail "$n over: $(cat "$f.stdout")"
	check_trace "$f"
	accounted "$n over" "$f"
	kept_first "$n over" "$f" "no key 0" "invalid 0" "bad format 0"
	total=$(echo "$ACC" | awk '{ s += $4 } END { print s + 0 }')
	[ "$total" -ge 6000 ] && ok "$n over: $total errors left out" || fail "$n over: only $total left out"
	expect "$n over: shutdown totals say as many" "$(jq 'select(.event == "runtime.shutdown") | .totals.exceptions.left_out' "$f")" "$total"
	expect "$n over: every written error has its throw and summary" \
		"$(jq -s '[.[] | select(.event == "exception.error")] | length' "$f") $(jq -s '[.[] | select(.event == "exception.summary")] | length' "$f")" \
		"$(jq -s '[.[] | select(.event == "exception.throw")] | length' "$f") $(jq -s '[.[] | select(.event == "exception.throw")] | length' "$f")"
	# the readers: stats (text and JSON) and view, run's summary
	"$CLRTRACE" stats --json "$f" >"$f.stats.json" 2>&1 || fail "$n over: stats --json: $(head -3 "$f.stats.json")"
	expect "$n over: stats --json counts them by type and site" \
		"$(jq -r '.exceptions.left_out | "\(.errors) \([.by[] | select(.reason == "budget") | .count] | add)"' "$f.stats.json")" "$total $total"
	"$CLRTRACE" stats "$f" >"$f.stats.txt" 2>&1
	grep -q "^Left out, not written (errors with all their throws): $total\$" "$f.stats.txt" &&
		grep -q "System.Collections.Generic.KeyNotFoundException at Sampling.Program.Lookup: rate limit (budget)" "$f.stats.txt" &&
		ok "$n over: stats says them" || fail "$n over: stats: $(grep -A4 '^Left out' "$f.stats.txt")"
	"$CLRTRACE" view "$f" >"$f.view" 2>&1
	grep -q "trace.left_out … and [0-9,]* more System.InvalidOperationException at Sampling.Program.Validate, not written: rate limit (budget)" "$f.view" &&
		ok "$n over: view says them" || fail "$n over: view: $(grep left_out "$f.view" | head -3)"
	expect "$n over: view -x shows the left out of that type alone" \
		"$("$CLRTRACE" view -x KeyNotFoundException "$f" | grep 'trace.left_out' | sed 's/.* more \([^ ]*\) at .*/\1/' | sort -u)" \
		System.Collections.Generic.KeyNotFoundException
	grep -q "^clrtrace: $total more errors left out, not written" "$f.stderr" && ok "$n over: run's summary says them" ||
		fail "$n over: run's summary: $(cat "$f.stderr")"

	# 3. an unhandled error past the budget: its verdict and its error are
	# written, its throw is not (counted as left out)
	f="$OUT/net$v-unhandled.jsonl"
	trace "$f" --budget 1/3600 -- $prog unhandled 1000
	st=$?
	[ "$st" != 0 ] && grep -q '^done' "$f.stdout" && ok "$n unhandled: the program died of it ($st)" ||
		fail "$n unhandled: exit status $st, $(cat "$f.stdout")"
	"$CLRTRACE" check -q "$f" >"$f.check" 2>&1 && ok "$n unhandled: clrtrace check" || fail "$n unhandled: check: $(head -3 "$f.check")"
	accounted "$n unhandled" "$f"
	expect "$n unhandled: its exception.unhandled and exception.error, sampled" \
		"$(jq -c 'select((.event == "exception.unhandled" or .event == "exception.error") and .exception.message == "invalid -1") | [.event, .fate, .sampled]' "$f" | tr '\n' ' ')" \
		'["exception.unhandled",null,true] ["exception.error","unhandled",true] '
	expect "$n unhandled: but no throw record" \
		"$(jq -c 'select(.event == "exception.throw" and .exception.message == "invalid -1")' "$f" | wc -l)" 0

	# 4. an error is written with all its throws or none (throw; in a catch)
	f="$OUT/net$v-rethrow.jsonl"
	trace "$f" --budget 1/3600 -- $prog rethrow 2000 || fail "$n rethrow: exit status $?"
	check_trace "$f"
	accounted "$n rethrow" "$f"
	expect "$n rethrow: each written error has both throws, no other throw is written" \
		"$(jq -s -c '[.[] | select(.event == "exception.error")] as $e | [.[] | select(.event == "exception.throw")] as $t
			| [($e | map(.throws) | unique), ($t | length) == 2 * ($e | length),
			   (($t | map(.error) | unique) == ($e | map(.error) | unique))]' "$f")" '[[2],true,true]'
done

# 5. -x Type:N: the errors over the limit are counted the same way
v=10
prog=$(program_cmd Sampling "$v")
f="$OUT/net$v-xlimit.jsonl"
trace "$f" -x 'KeyNotFoundException:100' -- $prog storm 20000 || fail "-x: exit status $?"
check_trace "$f"
kept=$(jq -c 'select(.event == "exception.error")' "$f" | wc -l)
left=$(jq -s '[.[] | select(.event == "trace.left_out" and .reason == "type_limit") | .count] | add' "$f")
[ "$kept" -ge 100 ] && [ $((kept + left)) = 20000 ] && ok "-x: $kept written + $left left out = 20000 thrown" ||
	fail "-x: $kept written + $left left out"
expect "-x: stats --json" "$("$CLRTRACE" stats --json "$f" | jq -c '.exceptions.left_out.by | map([.type, .site, .reason, .count])')" \
	"[[\"System.Collections.Generic.KeyNotFoundException\",\"Sampling.Program.Lookup\",\"type_limit\",$left]]"
expect "-x: shutdown's suppressed" "$(jq 'select(.event == "runtime.shutdown") | .totals.exceptions.suppressed["System.Collections.Generic.KeyNotFoundException"]' "$f")" "$left"
"$CLRTRACE" view "$f" | grep -q "more System.Collections.Generic.KeyNotFoundException at Sampling.Program.Lookup, not written: -x Type:N limit" &&
	ok "-x: view says them" || fail "-x: view: $("$CLRTRACE" view "$f" | grep left_out | head -3)"

# 6. a bad budget is refused in one line
"$CLRTRACE" run --budget 10/x -- true >"$OUT/bad.out" 2>&1
expect "--budget 10/x refused" "$(cat "$OUT/bad.out")" \
	"clrtrace: --budget '10/x': accepted: ERRORS/SECONDS such as 1000/10, ERRORS (a second), or off"

finish
