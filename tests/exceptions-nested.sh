#!/bin/bash
# Exceptions inside exceptions: thrown in a filter, a finally, a catch;
# caught inside a catch; throw; and throw ex;; async/await; on .NET 10, 8
# and 9.
. "$(dirname "$0")/lib.sh"

# sigs FILE: one line per summary, in order:
# "id type outcome thrown_in>caught_in f=… fin=… nested_in=id/ctx rethrow_of=id superseded_by=id"
sigs() {
	jq -r 'select(.event == "exception.summary")
	  | def s: if . == null then "-" else sub("^Scenarios\\.Program\\."; "") | sub("^Scenarios\\."; "") end;
	  "\(.exception.id) \(.exception.type | s) \(.outcome) \(.thrown_in | s)>\(.caught_in | s) f=\([(.filters // [])[].result] | join(",")) fin=\([.finally[] | s] | join(",")) nested_in=\(if .nested_in then "\(.nested_in.id)/\(.nested_in.context)" else "-" end) rethrow_of=\(.rethrow_of // "-") superseded_by=\(.superseded_by // "-")"' "$(full "$1")" | sort -n | tr '\n' ';'
}

run() {
	local f="$OUT/net$v-$1.jsonl"
	trace "$f" -e +frames -- $prog "$1" || fail "$n $1: exit status $?"
	grep -q "^done $1" "$f.stdout" || fail "$n $1: the program did not finish"
	check_trace "$f"
	expect "$n $1: no trace.error" "$(jq -r 'select(.event == "trace.error") | .message' "$f")" ""
}

for v in $(test_runtimes); do
	n=".NET $v"
	prog=$(program_cmd Scenarios "$v")

	run in-filter
	expect "$n in-filter: Beta swallowed by the filter, which threw; Alpha caught outside" "$(sigs "$OUT/net$v-in-filter.jsonl")" \
		"1 AlphaException caught InFilterInner>InFilter f=threw fin= nested_in=- rethrow_of=- superseded_by=-;2 BetaException swallowed BadFilter>- f= fin= nested_in=1/filter rethrow_of=- superseded_by=-;"
	expect "$n in-filter: no exception.unhandled" "$(jq -r 'select(.event == "exception.unhandled")' "$OUT/net$v-in-filter.jsonl")" ""

	run in-finally
	expect "$n in-finally: Alpha superseded by Beta thrown in its finally" "$(sigs "$OUT/net$v-in-finally.jsonl")" \
		"1 AlphaException superseded InFinallyInner>- f= fin=InFinallyInner nested_in=- rethrow_of=- superseded_by=2;2 BetaException caught InFinallyInner>InFinally f= fin= nested_in=1/finally rethrow_of=- superseded_by=-;"
	expect "$n in-finally: Alpha's finally span ends abandoned" \
		"$(jq -r 'select(.event == "exception.finally" and .phase == "end") | "\(.exception.id) \(.abandoned)"' "$OUT/net$v-in-finally.jsonl")" "1 true"

	run in-catch
	expect "$n in-catch: Alpha superseded by Beta escaping its catch" "$(sigs "$OUT/net$v-in-catch.jsonl")" \
		"1 AlphaException superseded InCatchInner>InCatchInner f= fin= nested_in=- rethrow_of=- superseded_by=2;2 BetaException caught InCatchInner>InCatch f= fin= nested_in=1/catch rethrow_of=- superseded_by=-;"

	run caught-in-catch
	expect "$n caught-in-catch: Beta caught inside Alpha's catch, both caught" "$(sigs "$OUT/net$v-caught-in-catch.jsonl")" \
		"1 AlphaException caught CaughtInCatch>CaughtInCatch f= fin= nested_in=- rethrow_of=- superseded_by=-;2 BetaException caught Helper>CaughtInCatch f= fin= nested_in=1/catch rethrow_of=- superseded_by=-;"
	expect "$n caught-in-catch: Beta's throw is inside Alpha's catch span" \
		"$(jq -s -r '. as $a | $a[] | select(.event == "exception.throw" and .exception.id == 2) as $t
		  | $a[] | select(.span == $t.parent and .phase == "begin") | "\(.event) \(.exception.id)"' "$OUT/net$v-caught-in-catch.jsonl")" \
		"exception.catch 1"

	run rethrow
	expect "$n rethrow: throw; is a rethrow of 1, whose story ends rethrown" "$(sigs "$OUT/net$v-rethrow.jsonl")" \
		"1 AlphaException rethrown RethrowInner>RethrowInner f= fin= nested_in=- rethrow_of=- superseded_by=2;2 AlphaException caught RethrowInner>Rethrow f= fin= nested_in=1/catch rethrow_of=1 superseded_by=-;"
	expect "$n rethrow: throw record says rethrow" \
		"$(jq -r 'select(.event == "exception.throw") | "\(.exception.id):\(.rethrow // false):\(.rethrow_of)"' "$OUT/net$v-rethrow.jsonl" | tr '\n' ' ')" "1:false:null 2:true:1 "

	run throw-ex
	expect "$n throw-ex: throw ex; of the same object" "$(sigs "$OUT/net$v-throw-ex.jsonl")" \
		"1 AlphaException rethrown ThrowExInner>ThrowExInner f= fin= nested_in=- rethrow_of=- superseded_by=2;2 AlphaException caught ThrowExInner>ThrowEx f= fin= nested_in=1/catch rethrow_of=1 superseded_by=-;"

	# rethrow-gc: a compacting collection in the catch block moves the
	# object where clrtrace does not pin it (.NET 11, .NET 8's legacy
	# exception handling; 9 and 10 pin it, pin.c): throw; is a rethrow all
	# the same (machine.c's moved_rethrow)
	f="$OUT/net$v-rethrow-gc.jsonl"
	rm -f "$f.raw"
	CLRTRACE_EXC_RAWLOG="$f.raw" run rethrow-gc
	expect "$n rethrow-gc: throw; after a compacting GC is a rethrow of 1" "$(sigs "$f")" \
		"1 AlphaException rethrown RethrowGcInner>RethrowGcInner f= fin= nested_in=- rethrow_of=- superseded_by=2;2 AlphaException caught RethrowGcInner>RethrowGc f= fin= nested_in=1/catch rethrow_of=1 superseded_by=-;"
	expect "$n rethrow-gc: throw record says rethrow, origin 1" \
		"$(jq -r 'select(.event == "exception.throw") | "\(.exception.id):\(.rethrow // false):\(.rethrow_of):\(.origin)"' "$f" | tr '\n' ' ')" "1:false:null:null 2:true:1:1 "
	case $(rt_major "$v") in
	8 | 11)
		expect "$n rethrow-gc: the GC moved the object between throw and throw;" \
			"$(jq -r 'select(.in == "thrown") | .object' "$f.raw" | sort -u | wc -l)" 2 ;;
	esac

	run async
	f="$OUT/net$v-async.jsonl"
	expect "$n async: two dispatches of one object, the second surfacing at the await" \
		"$(jq -r 'select(.event == "exception.summary") | "\(.exception.id) \(.outcome) \(.rethrow_of) \(.thrown_in) > \(.caught_in)"' "$(full "$f")" | sort -n | tr '\n' ';')" \
		"1 caught null Scenarios.Program+<FailLaterAsync>d__26.MoveNext > Scenarios.Program+<FailLaterAsync>d__26.MoveNext;2 caught 1 System.Runtime.ExceptionServices.ExceptionDispatchInfo.Throw > Scenarios.Program+<AwaitIt>d__27.MoveNext;"

done

finish
