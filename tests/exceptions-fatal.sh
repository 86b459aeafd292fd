#!/bin/bash
# Exceptions that kill the process: unhandled on the main thread and on a
# worker thread, and (.NET 8) one leaving an [UnmanagedCallersOnly] method
# that managed code called, on .NET 10, 8, 9 and 11.  The trace must be
# complete, and the runtime's own filters (.NET 11's entry point, a
# thread's start) are marked as the runtime's, not the program's.
. "$(dirname "$0")/lib.sh"

# outcomes FILE: "id:outcome " of each summary
outcomes() { jq -r 'select(.event == "exception.summary") | "\(.exception.id):\(.outcome)"' "$(full "$1")" | tr '\n' ' '; }

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
			"$(outcomes "$f")" "1:caught 2:unhandled "
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
		# the runtime's own filters under the program (rtframes.c): .NET
		# 11 calls Main through Environment.CallEntryPoint, a Thread
		# starts through Thread.StartCallback (.NET 10 and later here);
		# marked runtime on their records and in the summary, never
		# among the program's filters
		case "$v:$where" in
		11:main) rt="System.Environment.CallEntryPoint" ;;
		8:thread | 9:thread) rt="" ;;
		*:thread) rt="System.Threading.Thread.StartCallback" ;;
		*) rt="" ;;
		esac
		expect "$n $s: the summary's filters are the runtime's only" \
			"$(jq -r 'select(.event == "exception.summary" and .exception.id == 2) |
				"\([(.filters // [])[] | select(.runtime != true)] | length) \([(.filters // [])[] | select(.runtime == true) | "\(.function) -> \(.result)"] | join(","))"' "$(full "$f")")" \
			"0 ${rt:+$rt -> false}"
		expect "$n $s: its exception.filter records say runtime" \
			"$(jq -r 'select(.event == "exception.filter") | "\(.phase) \(.function) \(.runtime)"' "$f" | tr '\n' ' ')" \
			"${rt:+begin $rt true end $rt true }"
		[ -z "$rt" ] || expect "$n $s: view marks it the runtime's and counts no program filter" \
			"$("$CLRTRACE" view --throws --color=never "$f" | grep -c -e "exception.filter $rt.*\[runtime's\]" -e '0 filters, 1 of the runtime.s (false)')" 3
	done
	# thrown in an [UnmanagedCallersOnly] method that managed code called
	# through a delegate* unmanaged, under a catch: .NET 8 (legacy
	# exception handling) ends the first pass at that method, though two
	# managed frames lie below it, and the process dies; .NET 9 and 10 let
	# the caller's catch take it
	s=unhandled-uco
	f="$OUT/net$v-$s.jsonl"
	trace "$f" -e +frames -- $prog "$s"
	rc=$?
	check_trace "$f"
	if [ "$v" = 8 ]; then
		expect "$n $s: the process died" "$rc" 134
		expect "$n $s: the runtime raised AppDomain.UnhandledException" \
			"$(grep -c 'handler saw GammaException' "$f.stderr")" 1
		expect "$n $s: exception.unhandled, thrown in the [UnmanagedCallersOnly] method" \
			"$(jq -r 'select(.event == "exception.unhandled") | "\(.exception.id) \(.exception.type) \(.thrown_in)"' "$f")" \
			"2 Scenarios.GammaException Scenarios.Program.UcoThrow"
		expect "$n $s: summaries (the earlier one caught, Gamma unhandled)" \
			"$(outcomes "$f")" "1:caught 2:unhandled "
		expect "$n $s: the search ended at the [UnmanagedCallersOnly] method" \
			"$(jq -c 'select(.event == "exception.summary" and .exception.id == 2) | [.searched, .caught_in]' "$(full "$f")")" \
			'[["Scenarios.Program.UcoThrow"],null]'
	else
		expect "$n $s: the process went on" "$rc $(grep -c 'done unhandled-uco' "$f.stdout")" "0 1"
		expect "$n $s: no exception.unhandled" "$(jq -s '[.[] | select(.event == "exception.unhandled")] | length' "$f")" 0
		expect "$n $s: Gamma caught by the caller" \
			"$(jq -c 'select(.event == "exception.summary") | [.exception.id, .outcome, .thrown_in, .caught_in]' "$(full "$f")" | tr '\n' ' ')" \
			'[1,"caught","Scenarios.Program.Same","Scenarios.Program.Same"] [2,"caught","Scenarios.Program.UcoThrow","Scenarios.Program.UnhandledUco"] '
	fi
	expect "$n $s: the summary is the last record of its story (its error's fate follows)" \
		"$(jq -s -r '[.[] | select(.event | startswith("exception.")) | select(.event != "exception.error")] | last | "\(.event) \(.exception.id)"' "$(full "$f")")" \
		"exception.summary 2"
done

finish
