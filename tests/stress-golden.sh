#!/bin/sh
# The records of a deterministic single-thread program (tests/programs/
# Scenarios: filters, finally, nested, rethrow, throw ex, hardware faults,
# a hostile message) with the default categories are the same as those the
# record path wrote when the golden was made (issue 11: a new record path
# must write the same content), normalised by tests/normalise.jq (no seq,
# ts, dur_ns, pid, tid, thread ids, addresses; span ids in first-seen
# order; paths by file name).  Two runs must agree with each other, then
# with tests/golden/scenarios-netV.jsonl (one per runtime: their loads and
# exception handling differ).  Tiered compilation is off: its background
# thread's suspensions would come and go with the machine's load.
# CLRTRACE_REGOLD=1 rewrites the golden files (tests/golden/README.md).
# On every runtime of the matrix.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
G="$top_srcdir/tests/golden"
SCENARIOS="same up3 filters finally in-filter in-finally in-catch caught-in-catch rethrow throw-ex nullref divzero hostile"

for v in $(test_runtimes); do
	n=".NET $v"
	prog=$(program_cmd Scenarios "$v")
	for i in 1 2; do
		f="$OUT/net$v-$i.jsonl"
		DOTNET_TieredCompilation=0 trace "$f" -- $prog $SCENARIOS
		expect "$n, run $i: the program's exit status" "$?" 0
		check_trace "$f"
		jq -s -c -f "$top_srcdir/tests/normalise.jq" "$f" >"$f.normal" || fail "$n, run $i: cannot normalise the trace"
	done
	cmp -s "$OUT/net$v-1.jsonl.normal" "$OUT/net$v-2.jsonl.normal" && ok "$n: two runs write the same records" ||
		{ diff -u "$OUT/net$v-1.jsonl.normal" "$OUT/net$v-2.jsonl.normal" | head -20; fail "$n: two runs differ"; }
	# a patch of a major shares its golden (10n: 10's)
	golden="scenarios-net$(rt_major "$v").jsonl"
	if [ -n "${CLRTRACE_REGOLD:-}" ]; then
		cp "$OUT/net$v-1.jsonl.normal" "$G/$golden" && ok "$golden rewritten"
	elif diff -u "$G/$golden" "$OUT/net$v-1.jsonl.normal" >"$OUT/net$v.diff"; then
		ok "$n: the records match $golden ($(wc -l <"$G/$golden") records)"
		# jq re-escapes strings: the hostile message's bytes as written
		# (escapes, C1 control, lone surrogate) against the golden's
		expect "$n: the hostile message's bytes as in $golden" \
			"$(grep -o '"message":"evil[^,]*fake"' "$OUT/net$v-1.jsonl" | sort | uniq -c)" \
			"$(grep -o '"message":"evil[^,]*fake"' "$G/$golden" | sort | uniq -c)"
	else
		head -40 "$OUT/net$v.diff"
		fail "$n: the records differ from $golden (whole diff in $OUT/net$v.diff)"
	fi
done

finish
