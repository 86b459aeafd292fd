#!/bin/bash
# Exceptions that kill the process: unhandled on the main thread and on a
# worker thread.  The trace must be complete.
. "$(dirname "$0")/lib.sh"
dll=$(build_program Scenarios) || exit 1

for where in main thread; do
	s=unhandled-$where
	f="$OUT/$s.jsonl"
	trace "$f" -e +frames -- dotnet "$dll" "$s"
	rc=$?
	[ "$rc" -ne 0 ] && ok "$s: the process died ($rc)" || fail "$s: exit status 0"
	check_trace "$f"
	w=$where; [ "$w" = thread ] && w=worker
	expect "$s: exception.unhandled for Gamma" \
		"$(jq -r 'select(.event == "exception.unhandled") | "\(.exception.type) \(.exception.message) \(.thrown_in)"' "$f")" \
		"Scenarios.GammaException unhandled on $w Scenarios.Program.Doomed"
	expect "$s: summaries (the earlier one caught, Gamma unhandled)" \
		"$(jq -r 'select(.event == "exception.summary") | "\(.exception.id):\(.outcome)"' "$f" | tr '\n' ' ')" "1:caught 2:unhandled "
	expect "$s: the unhandled record is on the thread that threw" \
		"$(jq -r 'select(.event == "exception.unhandled" or (.event == "exception.throw" and .exception.id == 2)) | .tid' "$f" | sort -u | wc -l)" 1
	# everything recorded up to the death is in the file: the finally that
	# ran during the second pass and the last unwind frame
	expect "$s: Doomed's finally (after the unhandled record) is in the file" \
		"$(jq -r 'select(.event == "exception.finally") | "\(.phase) \(.function)"' "$f" | tr '\n' ' ')" \
		"begin Scenarios.Program.Doomed end Scenarios.Program.Doomed "
	expect "$s: seq is gap-free up to the last record" \
		"$(jq -s 'map(.seq) | (max == length)' "$f")" true
done

finish
