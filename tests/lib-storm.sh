# Helpers for the tests of tests/programs/Storm (tests/stress-*.sh): what a
# trace of threads throwing at once must hold.  Source it after lib.sh.

# facts FILE: tests/stress-facts.py's facts of FILE into FILE.facts, with
# `clrtrace check` of FILE alongside (the two longest reads, on two cores;
# whole waits for check)
facts() {
	{ "$CLRTRACE" check -q -m 3 "$1" >"$1.check" 2>&1; echo $? >"$1.check-status"; } &
	CHECK_PID=$!
	/usr/bin/python3 "$top_srcdir/tests/stress-facts.py" "$1" >"$1.facts" || die "$(basename "$1"): cannot read the trace"
}

# fact FILE FILTER: jq FILTER over FILE's facts (one line)
fact() { jq -c -r "$2" "$1.facts"; }

# whole FILE NAME [died]: every line a JSON record ending in a newline; seq
# from 1 to the last with no gap, no number twice, rising in the file; no
# drop said or unsaid; and `clrtrace check` (schema, nesting, stories)
# agrees.  died: the process was killed or aborted while its threads
# recorded; a record a thread had numbered but not yet copied is gone with
# it (at most one per recording thread: 5), and then the merge must have
# said so (trace.dropped of that reason) for exactly the seqs missing
whole() {
	local f=$1 n=$2 died=${3:-} lost
	expect "$n: every line parses as one JSON record, none torn" "$(fact "$f" '[.bad_lines, .torn] | tostring')" '[[],false]'
	lost=0
	[ "$died" = died ] && lost=$(fact "$f" .died_dropped)
	if [ "$lost" -gt 0 ]; then
		echo "note: $n: $lost record(s) numbered but not copied when the process died: said by the merge"
		expect "$n: at most one record lost per recording thread" "$([ "$lost" -le 5 ] && echo yes)" yes
	fi
	expect "$n: seq from 1 to the last, none twice, rising in the file, no gap but those the merge said" \
		"$(fact "$f" '.seq | [.min, .max == .count + .missing, .dups, .missing, .backwards] | tostring')" "[1,true,0,$lost,0]"
	expect "$n: nothing else dropped (no other trace.dropped, no trace.error)" \
		"$(fact "$f" '[.events["trace.dropped"], (.errors | length), .dropped - .died_dropped] | tostring')" \
		"[$([ "$lost" -gt 0 ] && echo 1 || echo null),0,0]"
	# a load another thread finished (begin_tid) is no loss: said
	local cross
	cross=$(grep -c '"begin_tid":' "$f")
	[ "$cross" = 0 ] || echo "note: $n: $cross load end(s) written on another thread than their begin (begin_tid)"
	wait "$CHECK_PID"
	if [ "$(cat "$f.check-status")" = 0 ]; then
		ok "$n: clrtrace check: schema, nesting and stories hold"
	else
		fail "$n: clrtrace check: $(tr '\n' ' ' <"$f.check")"
	fi
}

# in_ts_order FILE NAME: each thread's records in the file in ts order
in_ts_order() {
	expect "$2: each thread's records in ts order" \
		"$(fact "$1" '[.per_tid | to_entries[] | select(.value.ts_back > 0) | "tid \(.key): \(.value.ts_back) back"] | join(", ")')" ""
}

# threads FILE NAME VERB HOW: for each line "thread K tid T VERB C" the
# program printed (FILE.stdout), thread K's exceptions ("K:I") in the trace.
# HOW exact: C thrown, each with its summary, nothing more.  HOW atleast
# (the process ended while K threw): at least the C it had caught when it
# said so have their summary; its exceptions are 0..N-1 with no hole and
# every one but the last (in flight at the end) has its summary.
threads() {
	local f=$1 n=$2 verb=$3 how=$4 k tid c got want lines
	grep "^thread [0-9]* tid [0-9]* $verb [0-9]*\$" "$f.stdout" >"$f.threads"
	lines=$(grep -c . "$f.threads")
	[ "$lines" -gt 0 ] || { fail "$n: the program said nothing of its threads: $(head -c 300 "$f.stdout")"; return; }
	while read -r _ k _ tid _ c; do
		if [ "$how" = exact ]; then
			got=$(fact "$f" ".storm[\"$k\"] | [.tids, .throws, .thrown, .summaries, .unsummarised, .summary_without_throw] | tostring")
			want="[[$tid],$c,$c,$c,[],0]"
			expect "$n: thread $k (tid $tid): $c thrown, each once with its summary, on its thread" "$got" "$want"
			got=$(fact "$f" ".per_tid[\"$tid\"] | [.throws, .summaries, .outcomes.caught] | tostring")
			expect "$n: tid $tid: $c exception.summary records, all caught" "$got" "[$c,$c,$c]"
		else
			got=$(fact "$f" ".storm[\"$k\"] as \$o | \$o | [.tids == [$tid], .gaps, .summary_without_throw,
				.throws == .thrown, .summaries >= $c, (.unsummarised | length <= 1 and all(. == \$o.thrown - 1))] | tostring")
			expect "$n: thread $k (tid $tid): its exceptions 0..N-1 with no hole, once each, at least the $c it caught summarised, only the last in flight" \
				"$got" "[true,0,0,true,true,true]"
		fi
	done <"$f.threads"
}
