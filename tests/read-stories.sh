#!/bin/bash
# clrtrace check finds the lies an exception story can be seen to tell: a
# real trace passes; copies of it, each with one lie made by hand, fail with
# exactly the problem that lie should give.  (A read-* test: schema.sh
# leaves its broken traces alone.)
. "$(dirname "$0")/lib.sh"

base="$OUT/base.jsonl"
# two exceptions caught one after the other on one thread, then shutdown;
# with the steps (frames: the catch blocks), which some lies contradict
trace "$base" -e +frames -- $(program_cmd Filters 10) one-true one-false || fail "base: exit status $?"
"$CLRTRACE" check -q "$base" >"$OUT/base.check" 2>&1
expect "the real trace passes clrtrace check" "$?:$(cat "$OUT/base.check")" "0:"

a=$(jq -r 'select(.event == "exception.throw" and .exception.message == "one-true") | .exception.id' "$base")
b=$(jq -r 'select(.event == "exception.throw" and .exception.message == "one-false") | .exception.id' "$base")
# ids of the two stories, and the records that tell them
ids='(map(select(.event == "exception.throw" and .exception.message == "one-true"))[0].exception.id) as $a
  | (map(select(.event == "exception.throw" and .exception.message == "one-false"))[0].exception.id) as $b'
# renumber seq 1..N after inserting records
renumber='to_entries | map(.value.seq = .key + 1 | .value)'
summary_of='.event == "exception.summary" and (.exception.id // .error)'

# lie NAME JQ WANT: the base with JQ applied (to the array of records) must
# fail clrtrace check with exactly the problems WANT (the text after
# "stories: ", one per line)
lie() {
	local name=$1 prog=$2 want=$3 f="$OUT/$1.jsonl" got st
	jq -c -s "$ids | $prog | .[]" "$base" >"$f" || { fail "$name: jq"; return; }
	got=$("$CLRTRACE" check -q "$f" 2>&1)
	st=$?
	expect "$name: clrtrace check fails" "$st" 1
	# ids as A and B, line numbers as L: they vary with the run
	expect "$name: the problem named" \
		"$(echo "$got" | sed -n "s/.*stories: //; T; s/#$a\\b/#A/g; s/#$b\\b/#B/g; s/line [0-9]*/line L/g; s/thread [0-9][0-9]*/thread T/g; p")" "$want"
	expect "$name: no other problem" "$(echo "$got" | grep -vc 'stories: ')" 0
}

lie nested-in-ended \
	'map(if .event == "exception.throw" and .exception.id == $b then .nested_in = {id: $a, context: "catch"} else . end)' \
	"exception #B nested_in #A, whose story already ended (caught, line L)"
lie nested-in-other-thread \
	'map(if .event == "exception.throw" and .exception.id == $b then .nested_in = {id: $a, context: "catch"} | .tid += 1 else . end)' \
	"exception #B nested_in #A, a story of thread T, not of its own thread T"
lie unhandled-after-catch \
	"map(if $summary_of == \$a then .outcome = \"unhandled\" else . end)" \
	"exception #A unhandled, but its catch block ran (line L)"
lie caught-elsewhere \
	"map(if $summary_of == \$a then .caught_in = \"Filters.Program.Elsewhere\" else . end)" \
	"exception #A caught in Filters.Program.Elsewhere, but its catch block ran in Filters.Program.OneTrue (line L)"
lie superseded-by-nothing \
	"map(if $summary_of == \$a then .outcome = \"superseded\" else . end)" \
	"exception #A superseded, but by nothing (superseded_by)"
lie swallowed-not-nested \
	"map(if $summary_of == \$a then .outcome = \"swallowed\" else . end)" \
	"exception #A swallowed (escaped a filter), but nested in nothing"
lie filter-result \
	"map(if $summary_of == \$b then .filters[0].result = \"true\" else . end)" \
	"exception #B filter 1: true, its record said false"
lie ended-twice \
	"map(if $summary_of == \$a then (., .) else . end) | $renumber" \
	"exception #A ended twice (first at line L)"
# reported unhandled, then the thread throws anew and the runtime shuts down
# normally: the process ran on
lie unhandled-ran-on \
	"map(if .event == \"exception.throw\" and .exception.id == \$a
	       then (., (.event = \"exception.unhandled\" | .thrown_in = \"Filters.Program.Throw\" | del(.rethrow, .rethrow_of, .nested_in)))
	     elif $summary_of == \$a then .outcome = \"unhandled\" | .caught_in = null
	     else . end
	     | select(.event != \"exception.catch\" or .exception.id != \$a)) | $renumber" \
	"exception #B thrown on the same thread after exception #A was reported unhandled (line L): the process ran on, and nothing says the exception survived"
lie unhandled-then-caught \
	"map(if .event == \"exception.throw\" and .exception.id == \$a
	       then (., (.event = \"exception.unhandled\" | .thrown_in = \"Filters.Program.Throw\" | del(.rethrow, .rethrow_of, .nested_in)))
	     else . end) | $renumber" \
	"exception #A caught, but reported unhandled at line L"

# the last story reported unhandled, then a normal shutdown
lie unhandled-shutdown \
	"map(if .event == \"exception.throw\" and .exception.id == \$b
	       then (., (.event = \"exception.unhandled\" | .thrown_in = \"Filters.Program.Throw\" | del(.rethrow, .rethrow_of, .nested_in)))
	     elif $summary_of == \$b then .outcome = \"unhandled\" | .caught_in = null
	     else . end
	     | select(.event != \"exception.catch\" or .exception.id != \$b)) | $renumber" \
	"the runtime shut down normally after exception #B was reported unhandled (line L): the process ran on, and nothing says the exception survived"
# after an unhandled verdict only its finally blocks may nest exceptions
lie nested-in-unhandled-unwind \
	"map(if .event == \"exception.throw\" and .exception.id == \$a
	       then (., (.event = \"exception.unhandled\" | .thrown_in = \"Filters.Program.Throw\" | del(.rethrow, .rethrow_of, .nested_in)))
	     elif $summary_of == \$a then .outcome = \"unhandled\" | .caught_in = null
	     elif .event == \"exception.throw\" and .exception.id == \$b then .nested_in = {id: \$a, context: \"unwind\"}
	     else . end
	     | select(.event != \"exception.catch\" or .exception.id != \$a)) | $renumber" \
	"exception #B nested_in #A (unwind) after that story ended unhandled (line L): the thread ran on
the runtime shut down normally after exception #A was reported unhandled (line L): the process ran on, and nothing says the exception survived"

# a process that really died of an unhandled exception tells no lie
f="$OUT/unhandled.jsonl"
trace "$f" -- $(program_cmd Scenarios 10) unhandled-main
expect "unhandled-main: died" "$?" 134
"$CLRTRACE" check -q "$f" >"$OUT/unhandled.check" 2>&1
expect "unhandled-main: the trace passes clrtrace check" "$?:$(cat "$OUT/unhandled.check")" "0:"
finish
