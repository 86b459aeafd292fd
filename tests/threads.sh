#!/bin/sh
# A thread the program starts is created, assigned an OS thread, named and
# destroyed, each record naming it; the managed thread id and name of each
# thread in its records and in view, stats and export, on .NET 10, 8 and 9.
. "${top_srcdir:-.}/tests/lib.sh"
dll=$(build_program Probe)
t="$OUT/thread.jsonl"
trace "$t" -- dotnet "$dll" thread || fail "traced Probe exited $?"
id=$(jqf "$t" 'select(.event=="thread.name" and .target.name=="probe-worker") | .target.id' | tr -d '"')
[ -n "$id" ] || die "no thread.name record for probe-worker"
ok "thread.name names probe-worker ($id)"
for ev in thread.create thread.os_assign thread.destroy; do
	expect "$ev for the worker" "$(jqf "$t" "select(.event==\"$ev\" and .target.id==\"$id\") | .event" | head -1)" "\"$ev\""
done
os=$(jqf "$t" "select(.event==\"thread.os_assign\" and .target.id==\"$id\") | .target.os_tid")
expect "the OS tid is a real thread id" "$(echo "$os" | grep -cE '^[0-9]+$')" 1
expect "the worker's own records carry that tid and managed id" \
	"$(jqf "$t" "select(.tid==$os) | .thread" | sort -u | tr -d '"' | grep -v null)" "$id"
order=$(jqf "$t" "select(.target.id==\"$id\" and .event!=\"thread.name\") | .event" | tr -d '"' | tr '\n' ' ')
case "$order" in
"thread.create thread.os_assign thread.destroy ") ok "create, os_assign and destroy come in order" ;;
*) fail "order of the worker's thread records: $order" ;;
esac
check_trace "$t"

# Who each thread is to .NET: the main thread, one named before it starts,
# one that names and renames itself, an unnamed one, one that throws before
# anything asked for its Thread object (no managed id yet) and a pool thread
# throw, each printing "ident OS_TID MANAGED_ID NAME|-" first.  Every record of
# theirs that carries managed_tid carries that id, each throw carries it,
# and the k-th throw on a thread carries the name it printed k-th; view,
# stats and export show them.
for v in $(test_runtimes); do
	n=".NET $v"
	prog=$(program_cmd Probe "$v")
	t="$OUT/net$v-idents.jsonl"
	trace "$t" -- $prog idents || fail "$n: traced Probe idents exited $?"
	grep '^ident ' "$t.stdout" >"$t.idents"
	expect "$n: six threads said who they are" "$(cut -d' ' -f2 "$t.idents" | sort -u | wc -l)" 6
	# per OS tid: "tid id name" lines of the program against the throws'
	# fields; ct-late's first throw came before it had a managed id
	want=$(awk '$4 == "ct-late" { print $2, "none", $4 } { $1 = ""; sub(/^ /, ""); print }' "$t.idents")
	got=$(jq -r 'select(.event == "exception.throw") | "\(.tid) \(.managed_tid // "none") \(.thread_name // "-")"' "$t")
	expect "$n: each throw carries its thread's managed id and name" "$got" "$want"
	expect "$n: no record says another managed id for a thread" \
		"$(jq -r 'select(.managed_tid) | "\(.tid) \(.managed_tid)"' "$t" | sort -u | awk '{ n[$1]++ } END { for (k in n) if (n[k] > 1) print k }')" ""
	expect "$n: every record of these threads that has a managed id has the program's" \
		"$(jq -r 'select(.managed_tid) | "\(.tid) \(.managed_tid)"' "$t" | sort -u | while read -r tid id; do
			grep -q "^ident $tid " "$t.idents" && ! grep -q "^ident $tid $id " "$t.idents" && echo "$tid $id"; done)" ""
	"$CLRTRACE" view --throws --color=never "$t" >"$t.view" || fail "$n: view exited $?"
	while read -r _ tid id name; do
		case $name in -) label="" ;; *) label=" \"$name\"" ;; esac
		# a renamed thread's header shows its last name
		[ "$name" = ct-self ] && continue
		expect "$n: view's header for tid $tid" "$(grep -c "^--- pid [0-9]* tid $tid managed $id$label ---\$" "$t.view")" 1
	done <"$t.idents"
	named=$(awk '$4 == "ct-named" { print $2, $3 }' "$t.idents")
	"$CLRTRACE" stats "$t" >"$t.stats" || fail "$n: stats exited $?"
	expect "$n: stats lists ct-named with its managed id" \
		"$(grep -c "tid ${named% *} *managed ${named#* } .*\"ct-named\"" "$t.stats")" 1
	"$CLRTRACE" export --format chrome "$t" >"$t.chrome.json" || fail "$n: export exited $?"
	expect "$n: chrome thread_name of ct-named" \
		"$(jq -r --argjson tid "${named% *}" '.traceEvents[] | select(.name == "thread_name" and .tid == $tid) | .args.name' "$t.chrome.json")" \
		"ct-named managed ${named#* } tid ${named% *}"
	check_trace "$t"
done
finish
