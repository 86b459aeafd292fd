#!/bin/bash
# Environment.FailFast: no exception callback announces it and the runtime's
# PAL restores the default SIGABRT disposition before abort(), so only
# records already on disk survive.  Every record before the call must be.
. "$(dirname "$0")/lib.sh"
dll=$(build_program Scenarios) || exit 1

f="$OUT/failfast.jsonl"
trace "$f" -- dotnet "$dll" failfast
rc=$?
[ "$rc" -ne 0 ] && ok "failfast: the process died ($rc)" || fail "failfast: exit status 0"
expect "failfast: the 5 exceptions before FailFast are in the file" \
	"$(jq -r 'select(.event == "exception.summary") | .outcome' "$f" 2>/dev/null | sort | uniq -c | tr -s ' ')" " 5 caught"
[ -s "$f" ] && check_trace "$f"

finish
