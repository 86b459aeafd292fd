#!/bin/bash
# Environment.FailFast: no exception callback announces it and the runtime's
# PAL restores the default SIGABRT disposition before abort(), so only
# records already on disk survive.  Every record before the call must be,
# on .NET 10, 8 and 9.
. "$(dirname "$0")/lib.sh"

for v in $(test_runtimes); do
	n=".NET $v"
	f="$OUT/net$v-failfast.jsonl"
	trace "$f" -- $(program_cmd Scenarios "$v") failfast
	rc=$?
	[ "$rc" -ne 0 ] && ok "$n failfast: the process died ($rc)" || fail "$n failfast: exit status 0"
	expect "$n failfast: the 5 exceptions before FailFast are in the file" \
		"$(jq -r 'select(.event == "exception.summary") | .outcome' "$f" 2>/dev/null | sort | uniq -c | tr -s ' ')" " 5 caught"
	[ -s "$f" ] && check_trace "$f"
done

finish
