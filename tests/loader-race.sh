#!/bin/sh
# Loads finished on another thread than the one that began them: 8 threads
# load the same not-yet-loaded framework assembly at once, under a barrier,
# 100 rounds a run (tests/programs/LoadRace).  The runtime loads an assembly
# level by level, each level done by whichever waiting thread takes its
# lock, so some loads begin on one thread and end on another.  Whenever
# that happens the trace must say it truthfully: the end, on the thread
# that finished the load, has the begin's span and begin_tid, the thread
# that began it; every load begun ends once; no trace.error; `clrtrace
# check` replays the nesting (the span closes where it began).  On .NET 8,
# 9 and 10 each, up to 12 runs until one shows such a load: a runtime that
# never does it in 12 runs (1,200 rounds) fails the test.  Alone on this
# machine 1 to 12 of 100 rounds do, about 1.4 with a busy loop on the
# other CPU; one CI run, with another test beside it, saw none in 300
# rounds on .NET 8.  check is shown to judge such ends (begin_tid removed or
# pointing elsewhere is a problem); view and export show them.
. "${top_srcdir:-.}/tests/lib.sh"
ROUNDS=100

# truthful F NAME: what the trace F of a LoadRace run must hold
truthful() {
	local f=$1 n=$2 names got
	expect "$n: the program ran its $ROUNDS rounds" "$(tail -1 "$f.stdout")" "rounds $ROUNDS"
	expect "$n: no trace.error, nothing dropped" \
		"$(jq -c 'select(.event == "trace.error" or .event == "trace.dropped") | .message // .event' "$f" | head -3)" ""
	# every load begun ends once: on its own thread, or on another one
	# that names it in begin_tid; no end names its own thread
	got=$(jq -s -c '[.[] | select(.event == "assembly.load" or .event == "module.load")] as $l
	  | ([$l[] | select(.phase == "begin") | {key: (.span | tostring), value: .tid}] | from_entries) as $b
	  | [$l[] | select(.phase == "end")] as $e
	  | [($b | length), ($e | length), ([$e[].span] | unique | length),
	     ([$e[] | select(($b[.span | tostring] // -1) as $bt
	        | if .begin_tid then .begin_tid != $bt or .tid == $bt else .tid != $bt end)] | length)]' "$f")
	expect "$n: each load begun ends once, on its thread or with begin_tid naming it" \
		"$got" "$(echo "$got" | jq -c '[.[0], .[0], .[0], 0]')"
	names=$(sed -n 's/^round [0-9]* //p' "$f.stdout" | jq -R . | jq -s -c .)
	expect "$n: each assembly of a round has its load, ended" \
		"$(jq -s -c --argjson w "$names" '[.[] | select(.event == "assembly.load" and .phase == "end") | .assembly.name] as $got
		  | [$w[] | select(. as $x | $got | index($x) | not)]' "$f")" "[]"
	if "$CLRTRACE" check -q "$f" >"$f.check" 2>&1; then
		ok "$n: clrtrace check: schema and nesting hold"
	else
		fail "$n: clrtrace check: $(head -3 "$f.check" | tr '\n' ' ')"
	fi
}

for v in $(test_runtimes); do
	prog=$(program_cmd LoadRace "$v") || continue
	seen=0 rounds=0
	for i in $(seq 12); do
		n=".NET $v, run $i"
		f="$OUT/net$v-$i.jsonl"
		start=$(date +%s)
		trace "$f" -- $prog 8 "$ROUNDS"
		expect "$n: LoadRace's exit status" "$?" 0
		truthful "$f" "$n"
		cross=$(jq -c 'select(.event == "assembly.load" and .begin_tid)' "$f" | grep -c .)
		rounds=$((rounds + ROUNDS))
		echo "$n: $cross of $ROUNDS assembly loads ended on another thread than they began, $(($(date +%s) - start)) s"
		if [ "$cross" -gt 0 ]; then
			seen=$((seen + cross))
			break
		fi
	done
	if [ "$seen" -gt 0 ]; then
		ok ".NET $v: a load ended on another thread ($seen in $rounds rounds)"
	else
		fail ".NET $v: no load ended on another thread in $rounds rounds"
		continue
	fi
	[ "$v" = 10 ] || continue

	# check judges such ends: the one that names its thread, changed (not
	# *.jsonl: tests/schema.sh checks those)
	end=$(jq -c 'select(.event == "module.load" and .begin_tid)' "$f" | head -1)
	seq=$(echo "$end" | jq .seq)
	other=$(jq -r --argjson b "$(echo "$end" | jq .begin_tid)" --argjson t "$(echo "$end" | jq .tid)" \
		'select(.tid != $b and .tid != $t) | .tid' "$f" | head -1)
	jq -c --argjson s "$seq" 'if .seq == $s then del(.begin_tid) else . end' "$f" >"$OUT/no-begin-tid.broken"
	"$CLRTRACE" check -q "$OUT/no-begin-tid.broken" >"$OUT/no-begin-tid.out" 2>&1
	expect "check: an end on another thread without begin_tid is a problem" \
		"$(grep -c "seq $seq module.load end: nesting: end of span [0-9]* that is not open on thread" "$OUT/no-begin-tid.out")" 1
	jq -c --argjson s "$seq" --argjson o "$other" 'if .seq == $s then .begin_tid = $o else . end' "$f" >"$OUT/wrong-begin-tid.broken"
	"$CLRTRACE" check -q "$OUT/wrong-begin-tid.broken" >"$OUT/wrong-begin-tid.out" 2>&1
	expect "check: begin_tid naming a thread where the span is not open is a problem" \
		"$(grep -c "seq $seq module.load end: nesting: end of span [0-9]* that is not open on thread $other (begin_tid)" "$OUT/wrong-begin-tid.out")" 1

	# view shows it on both threads; export closes it on the thread that
	# began it
	tid=$(echo "$end" | jq .tid)
	btid=$(echo "$end" | jq .begin_tid)
	path=$(echo "$end" | jq -r .module.path)
	expect "view: the end on tid $tid says the thread that began it" \
		"$("$CLRTRACE" view -t "$tid" "$f" | grep -cF "< module.load $path (")" 1
	expect "view: that line ends with [begun on tid $btid]" \
		"$("$CLRTRACE" view -t "$tid" "$f" | grep -F "< module.load $path (" | grep -c "\[begun on tid $btid\]$")" 1
	expect "view -t $btid: the span ends on the thread that began it, [ended on tid $tid]" \
		"$("$CLRTRACE" view -t "$btid" "$f" | grep -F "module.load $path (" | grep -c "[-<] module.load .*\[ended on tid $tid\]$")" 1
	"$CLRTRACE" export -F chrome -o "$OUT/export.json" "$f" || fail "export failed"
	expect "export: the load is one complete event on tid $btid, args.end_tid $tid" \
		"$(jq -c --argjson s "$seq" '[.traceEvents[] | select(.ph == "X" and .args.seq == $s) | [.tid, .args.end_tid]]' "$OUT/export.json")" \
		"[[$btid,$tid]]"
done
finish
