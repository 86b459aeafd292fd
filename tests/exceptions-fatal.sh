#!/bin/bash
# Exceptions that kill the process: unhandled on the main thread and on a
# worker thread, on .NET 10, 8 and 9.  The trace must be complete.
. "$(dirname "$0")/lib.sh"

for v in $(test_runtimes); do
	n=".NET $v"
	prog=$(program_cmd Scenarios "$v")
	for where in main thread; do
		s="unhandled-$where"
		f="$OUT/net$v-$s.jsonl"
		trace "$f" -e +frames -- $prog "$s"
		rc=$?
		[ "$rc" -ne 0 ] && ok "$n $s: the process died ($rc)" || fail "$n $s: exit status 0"
		check_trace "$f"
		w=$where; [ "$w" = thread ] && w=worker
		expect "$n $s: exception.unhandled for Gamma" \
			"$(jq -r 'select(.event == "exception.unhandled") | "\(.exception.type) \(.exception.message) \(.thrown_in)"' "$f")" \
			"Scenarios.GammaException unhandled on $w Scenarios.Program.Doomed"
		expect "$n $s: summaries (the earlier one caught, Gamma unhandled)" \
			"$(jq -r 'select(.event == "exception.summary") | "\(.exception.id):\(.outcome)"' "$f" | tr '\n' ' ')" "1:caught 2:unhandled "
		expect "$n $s: the unhandled record is on the thread that threw" \
			"$(jq -r 'select(.event == "exception.unhandled" or (.event == "exception.throw" and .exception.id == 2)) | .tid' "$f" | sort -u | wc -l)" 1
		# everything recorded up to the death is in the file: the finally that
		# ran during the second pass and the last unwind frame.  .NET 8's
		# legacy exception handling has no second pass for an unhandled
		# exception: the process dies after the first, no finally runs.
		if [ "$v" = 8 ]; then
			expect "$n $s: no finally runs (legacy exception handling)" \
				"$(jq -r 'select(.event == "exception.finally") | "\(.phase) \(.function)"' "$f" | tr '\n' ' ')" ""
		else
			expect "$n $s: Doomed's finally (after the unhandled record) is in the file" \
				"$(jq -r 'select(.event == "exception.finally") | "\(.phase) \(.function)"' "$f" | tr '\n' ' ')" \
				"begin Scenarios.Program.Doomed end Scenarios.Program.Doomed "
		fi
		expect "$n $s: seq is gap-free up to the last record" \
			"$(jq -s 'map(.seq) | (max == length)' "$f")" true
	done
done

finish
