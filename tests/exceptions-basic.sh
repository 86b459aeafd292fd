#!/bin/bash
# Exception flow on the real runtime: simple catches, filters, finally
# blocks, hardware faults.  Every scenario checks outcome, catcher, filter
# results, finally blocks and nesting.
. "$(dirname "$0")/lib.sh"
dll=$(build_program Scenarios) || exit 1

# sig FILE TYPE: "outcome thrown_in>caught_in f=results fin=finally-functions"
sig() {
	jq -r --arg t "$2" 'select(.event == "exception.summary" and .exception.type == $t)
	  | def s: if . == null then "-" else sub("^Scenarios\\.Program\\."; "") end;
	  "\(.outcome) \(.thrown_in | s)>\(.caught_in | s) f=\([.filters[].result] | join(",")) fin=\([.finally[] | s] | join(","))"' "$1"
}

run() { # run SCENARIO: trace it, check it ran and the trace is sound
	local f="$OUT/$1.jsonl"
	trace "$f" -e +frames -- dotnet "$dll" "$1" || fail "$1: exit status $?"
	grep -q "^done $1" "$f.stdout" || fail "$1: the program did not finish"
	check_trace "$f"
}

run same
f="$OUT/same.jsonl"
expect "same: summary" "$(sig "$f" Scenarios.AlphaException)" "caught Same>Same f= fin="
expect "same: throw record with type, message, hresult" \
	"$(jq -r 'select(.event == "exception.throw") | [.exception.type, .exception.message, .exception.hresult, .rethrow, .nested_in] | @text' "$f")" \
	'["Scenarios.AlphaException","same","0x80131500",false,null]'
expect "same: span order" \
	"$(jq -r 'select(.event | startswith("exception.")) | "\(.event):\(.phase)"' "$f" | tr '\n' ' ')" \
	"exception.throw:instant exception.search:begin exception.search.frame:begin exception.catcher_found:instant exception.search.frame:end exception.search:end exception.unwind:begin exception.unwind.frame:begin exception.catch:begin exception.catch:end exception.unwind.frame:end exception.unwind:end exception.summary:instant "
expect "same: catch span names the function" \
	"$(jqf "$f" 'select(.event == "exception.catch" and .phase == "begin") | .function')" '"Scenarios.Program.Same"'

run up3
f="$OUT/up3.jsonl"
expect "up3: summary" "$(sig "$f" Scenarios.AlphaException)" "caught Level3>Up3 f= fin="
expect "up3: searched and unwound frames" \
	"$(jq -r 'select(.event == "exception.summary") | [.searched, .unwound] | map(map(sub("Scenarios.Program.";""))) | @text' "$f")" \
	'[["Level3","Level2","Level1","Up3"],["Level3","Level2","Level1"]]'
expect "up3: search.frame spans" "$(jqf "$f" 'select(.event == "exception.search.frame" and .phase == "begin")' | wc -l)" 4

run filters
f="$OUT/filters.jsonl"
expect "filters: summary (inner false, outer true)" "$(sig "$f" Scenarios.AlphaException)" \
	"caught FilterInner>FilterOuter f=false,true fin="
expect "filters: filter span results" \
	"$(jqf "$f" 'select(.event == "exception.filter" and .phase == "end") | "\(.function)=\(.result)"' | tr '\n' ' ')" \
	'"Scenarios.Program.FilterInner=false" "Scenarios.Program.FilterOuter=true" '

run finally
f="$OUT/finally.jsonl"
expect "finally: summary (three finally blocks)" "$(sig "$f" Scenarios.AlphaException)" \
	"caught Fin3>FinallyMain f= fin=Fin3,Fin2,Fin1"
expect "finally: finally spans inside their unwind frames" \
	"$(jq -s -c '. as $all | [$all[] | select(.event == "exception.finally" and .phase == "begin") as $f
	   | $all[] | select(.span == $f.parent) | .event] | unique' "$f")" '["exception.unwind.frame"]'

run nullref
expect "nullref: summary" "$(sig "$OUT/nullref.jsonl" System.NullReferenceException)" "caught Deref>NullRef f= fin="
expect "nullref: hresult" "$(jqf "$OUT/nullref.jsonl" 'select(.event == "exception.throw") | .exception.hresult')" '"0x80004003"'

run divzero
expect "divzero: summary" "$(sig "$OUT/divzero.jsonl" System.DivideByZeroException)" "caught Divide>DivZero f= fin="

# CLRTRACE_MESSAGES=0 leaves messages out
f="$OUT/nomsg.jsonl"
trace "$f" -e +frames --no-messages -- dotnet "$dll" same
expect "messages off: no message field" \
	"$(jqf "$f" 'select(.event == "exception.throw") | .exception | has("message")')" false

finish
