#!/bin/bash
# Exception flow on the real runtime: simple catches, filters, finally
# blocks, hardware faults.  Every scenario checks outcome, catcher, filter
# results, finally blocks and nesting, on .NET 10, 8 and 9.
. "$(dirname "$0")/lib.sh"

# sig FILE TYPE: "outcome thrown_in>caught_in f=results fin=finally-functions"
sig() {
	jq -r --arg t "$2" 'select(.event == "exception.summary" and .exception.type == $t)
	  | def s: if . == null then "-" else sub("^Scenarios\\.Program\\."; "") end;
	  "\(.outcome) \(.thrown_in | s)>\(.caught_in | s) f=\([(.filters // [])[].result] | join(",")) fin=\([.finally[] | s] | join(","))"' "$(full "$1")"
}

run() { # run SCENARIO: trace it, check it ran and the trace is sound
	local f="$OUT/net$v-$1.jsonl"
	trace "$f" -e +frames -- $prog "$1" || fail "$n $1: exit status $?"
	grep -q "^done $1" "$f.stdout" || fail "$n $1: the program did not finish"
	check_trace "$f"
}

for v in $(test_runtimes); do
	n=".NET $v"
	prog=$(program_cmd Scenarios "$v")

	run same
	f="$OUT/net$v-same.jsonl"
	expect "$n same: summary" "$(sig "$f" Scenarios.AlphaException)" "caught Same>Same f= fin="
	expect "$n same: throw record with type, message, hresult" \
		"$(jq -r 'select(.event == "exception.throw") | [.exception.type, .exception.message, .exception.hresult, .rethrow // false, .nested_in] | @text' "$f")" \
		'["Scenarios.AlphaException","same","0x80131500",false,null]'
	expect "$n same: span order" \
		"$(jq -r 'select(.event | startswith("exception.")) | "\(.event):\(.phase // "instant")"' "$f" | tr '\n' ' ')" \
		"exception.throw:instant exception.search:begin exception.search.frame:begin exception.catcher_found:instant exception.search.frame:end exception.search:end exception.unwind:begin exception.unwind.frame:begin exception.catch:begin exception.catch:end exception.unwind.frame:end exception.unwind:end exception.summary:instant exception.error:instant "
	expect "$n same: catch span names the function" \
		"$(jqf "$f" 'select(.event == "exception.catch" and .phase == "begin") | .function')" '"Scenarios.Program.Same"'

	run up3
	f="$OUT/net$v-up3.jsonl"
	expect "$n up3: summary" "$(sig "$f" Scenarios.AlphaException)" "caught Level3>Up3 f= fin="
	expect "$n up3: searched and unwound frames" \
		"$(jq -r 'select(.event == "exception.summary") | [.searched, .unwound] | map(map(sub("Scenarios.Program.";""))) | @text' "$f")" \
		'[["Level3","Level2","Level1","Up3"],["Level3","Level2","Level1"]]'
	expect "$n up3: search.frame spans" "$(jqf "$f" 'select(.event == "exception.search.frame" and .phase == "begin")' | wc -l)" 4

	run filters
	f="$OUT/net$v-filters.jsonl"
	expect "$n filters: summary (inner false, outer true)" "$(sig "$f" Scenarios.AlphaException)" \
		"caught FilterInner>FilterOuter f=false,true fin="
	expect "$n filters: filter span results" \
		"$(jqf "$f" 'select(.event == "exception.filter" and .phase == "end") | "\(.function)=\(.result)"' | tr '\n' ' ')" \
		'"Scenarios.Program.FilterInner=false" "Scenarios.Program.FilterOuter=true" '

	run finally
	f="$OUT/net$v-finally.jsonl"
	expect "$n finally: summary (three finally blocks)" "$(sig "$f" Scenarios.AlphaException)" \
		"caught Fin3>FinallyMain f= fin=Fin3,Fin2,Fin1"
	expect "$n finally: finally spans inside their unwind frames" \
		"$(jq -s -c '. as $all | [$all[] | select(.event == "exception.finally" and .phase == "begin") as $f
		   | $all[] | select(.span == $f.parent) | .event] | unique' "$f")" '["exception.unwind.frame"]'

	run nullref
	expect "$n nullref: summary" "$(sig "$OUT/net$v-nullref.jsonl" System.NullReferenceException)" "caught Deref>NullRef f= fin="
	expect "$n nullref: hresult" "$(jqf "$OUT/net$v-nullref.jsonl" 'select(.event == "exception.throw") | .exception.hresult')" '"0x80004003"'

	run divzero
	expect "$n divzero: summary" "$(sig "$OUT/net$v-divzero.jsonl" System.DivideByZeroException)" "caught Divide>DivZero f= fin="

	# CLRTRACE_MESSAGES=0 leaves messages out
	f="$OUT/net$v-nomsg.jsonl"
	trace "$f" -e +frames --no-messages -- $prog same
	expect "$n messages off: no message field" \
		"$(jqf "$f" 'select(.event == "exception.throw") | .exception | has("message")')" false

done

finish
