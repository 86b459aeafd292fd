#!/bin/sh
# clrtrace view: golden output of a fixed trace; a real trace's exception
# story (normalised golden); filters; colour only when asked or on a
# terminal; -f follows a growing file.  Regenerate goldens with
# CLRTRACE_REGOLD=1 (see tests/golden/README.md).
. "${top_srcdir:-.}/tests/lib.sh"
G="$top_srcdir/tests/golden"

# golden: compare, or rewrite with CLRTRACE_REGOLD=1
golden() {
	if [ -n "${CLRTRACE_REGOLD:-}" ]; then cp "$2" "$G/$1"; ok "$1 rewritten"; return; fi
	if diff -u "$G/$1" "$2" >"$2.diff"; then ok "$1 matches"; else head -40 "$2.diff"; fail "$1 differs"; fi
}
# normalise: times, durations, hex ids, tids and pids (tests/golden/README.md)
normalise() {
	sed -E -e 's/^ *[0-9]+\.[0-9]{6} +[0-9]+ /T /' -e 's/\(([0-9.]+(ns|µs|ms|s))\)/(D)/g' \
		-e 's/0x[0-9a-f]+/0xID/g' -e 's/--- pid [0-9]+ tid [0-9]+/--- pid P tid T/' -e 's/^(--- .*) managed [0-9]+/\1 managed M/'
}

"$CLRTRACE" view --color=never "$G/sample.jsonl" >"$OUT/sample.view" 2>"$OUT/sample.err" && ok "view of the fixed trace exits 0" ||
	fail "view exit status $?: $(cat "$OUT/sample.err")"
golden sample.view "$OUT/sample.view"
"$CLRTRACE" view --color=never --interleaved "$G/sample.jsonl" >"$OUT/sample-interleaved.view" || fail "view --interleaved"
golden sample-interleaved.view "$OUT/sample-interleaved.view"

# errors (exception.error, issue 28): one block per error by default, every
# throw with --throws; the non-exception records as before
"$CLRTRACE" view --color=never "$G/errors.jsonl" >"$OUT/errors.view" || fail "view of errors.jsonl: exit status $?"
golden errors.view "$OUT/errors.view"
"$CLRTRACE" view --color=never --throws "$G/errors.jsonl" >"$OUT/errors-throws.view" || fail "view --throws: exit status $?"
golden errors-throws.view "$OUT/errors-throws.view"
expect "errors: one block each" "$(grep -c ' \* exception\.error ' "$OUT/errors.view")" 4
expect "errors: no throw shown by default" "$(grep -c 'exception\.throw' "$OUT/errors.view")" 0
expect "errors: the crash's verdict" "$(grep -o 'unhandled: .*' "$OUT/errors.view")" \
	"unhandled: InvalidDataException from Helper.Explode, rethrown at 2 awaits, killed thread 4242"
expect "errors: --throws shows every throw" "$(grep -c 'exception\.throw' "$OUT/errors-throws.view")" 19
expect "errors: loads and suspensions as before" \
	"$(grep -E 'assembly.load|module.load|runtime.suspend' "$OUT/errors.view")" \
	"$(grep -E 'assembly.load|module.load|runtime.suspend' "$OUT/errors-throws.view")"

# grouped (the default): one header per thread, the time column rises within
# each group, and every line of the interleaved view is there
nthreads=$(jq -r 'select(.tid) | "\(.pid) \(.tid)"' "$G/sample.jsonl" | sort -u | wc -l)
expect "grouped: one header per thread" "$(grep -c '^---' "$OUT/sample.view")" "$nthreads"
expect "grouped: no thread twice" "$(grep '^---' "$OUT/sample.view" | sort | uniq -d)" ""
[ "$(grep -c '^---' "$OUT/sample-interleaved.view")" -gt "$nthreads" ] && ok "interleaved: a header at each switch" ||
	fail "the fixed trace never switches threads: a weak test"
expect "grouped and interleaved hold the same lines" "$(grep -v '^---' "$OUT/sample.view" | sort | md5sum)" \
	"$(grep -v '^---' "$OUT/sample-interleaved.view" | sort | md5sum)"
# monotonic: how often the time column goes back within a group ($1: view
# output; $2=all: across groups too)
backwards() {
	awk -v all="${2:-}" '/^---/ { if (all == "") p = -1; next } $1 !~ /^[0-9.]+$/ { next } { if ($1 + 0 < p) n++; p = $1 + 0 } END { print n + 0 }' "$1"
}
expect "grouped: time rises within each group" "$(backwards "$OUT/sample.view")" 0
expect "grouped: each group's tid column is its header's" \
	"$(awk '/^---/ { t = $5; next } $2 != t { n++ } END { print n + 0 }' "$OUT/sample.view")" 0
"$CLRTRACE" view --help | grep -q '^  >  a span begins' && "$CLRTRACE" view --help | grep -q '^  -  a whole span' &&
	ok "--help explains the symbols" || fail "--help lacks the symbols"

dll=$(build_program Sample)
t="$OUT/sample.jsonl"
trace "$t" -e +frames -- dotnet "$dll" || fail "traced Sample exited $?"
"$CLRTRACE" view --color=never -e exceptions,frames "$t" >"$OUT/exc.raw" || fail "view -e exceptions,frames"
normalise <"$OUT/exc.raw" >"$OUT/sample-exceptions.view"
golden sample-exceptions.view "$OUT/sample-exceptions.view"

# the exception story reads in order on the worker thread
worker=$(jq -r 'select(.event=="thread.name" and .target.name=="worker") | .target.id' "$t")
wtid=$(jq -r --arg w "$worker" 'select(.thread==$w) | .tid' "$t" | head -1)
"$CLRTRACE" view --color=never --throws -t "$wtid" "$t" >"$OUT/worker.view" || fail "view -t"
order=$(grep -oE 'exception\.(throw|search|filter|catcher_found|unwind|finally|catch|summary) ' "$OUT/worker.view" | awk '!seen[$0]++' | tr -d ' ' | tr '\n' ' ')
expect "story order on the worker thread" "$order" "exception.throw exception.search exception.catcher_found exception.unwind exception.catch exception.filter exception.summary exception.finally "
# without frames (the default), the story is the throw, handlers and summary
t2="$OUT/default.jsonl"
trace "$t2" -- dotnet "$dll" || fail "traced Sample exited $?"
expect "default: no pass or frame spans" "$(jq -c 'select(.event|test("^exception\\.(search|unwind)"))' "$t2" | grep -c .)" 0
expect "default: the same stories (summaries)" "$(jq -c 'select(.event=="exception.summary") | [.outcome,.searched,.unwound,.finally,.filters]' "$t2")" \
	"$(jq -c 'select(.event=="exception.summary") | [.outcome,.searched,.unwound,.finally,.filters]' "$t")"
grep -q "^--- pid [0-9]* tid $wtid \"worker\" ---" "$OUT/worker.view" && ok "thread header names the worker" || fail "no worker header"
grep -q 'exception.filter Sample.Program.Load -> true' "$OUT/worker.view" && ok "filter result shown" || fail "filter result missing"
[ "$(grep -v '^---' "$OUT/worker.view" | awk '{print $2}' | sort -u)" = "$wtid" ] && ok "-t shows only that thread" || fail "-t leaked other threads"

# a real multi-threaded trace: grouped rises per group; interleaved is in file
# order (a begin held back is released by any other thread's record)
"$CLRTRACE" view --color=never "$t" >"$OUT/all.view" || fail "view of a real trace"
expect "real trace, grouped: time rises within each group" "$(backwards "$OUT/all.view")" 0
"$CLRTRACE" view --color=never --interleaved "$t" >"$OUT/all-i.view" || fail "view --interleaved of a real trace"
if [ "$(jq -s '[.[].ts] as $t | [range(1; $t | length) | select($t[.] < $t[. - 1])] | length' "$t")" = 0 ]; then
	expect "real trace, interleaved: time never goes back" "$(backwards "$OUT/all-i.view" all)" 0
else
	ok "real trace: its own ts go back in file order; interleaved not checked for it"
fi

# exception type and outcome filters
"$CLRTRACE" view --color=never -x 'System.IO.*' -o caught "$t" >"$OUT/x.view"
expect "-x System.IO.* -o caught: caught summaries" "$(grep -c 'exception.summary #[0-9]* [^ ]* caught' "$OUT/x.view")" 2
expect "-x System.IO.* -o caught: rethrown ones nested in those stories" "$(grep -c 'exception.summary #[0-9]* [^ ]* rethrown' "$OUT/x.view")" 2
"$CLRTRACE" view --color=never -o superseded,caught -x 'System.IO.DirectoryNotFoundException' "$t" | grep -c 'exception.throw' >"$OUT/x2.n"
expect "-o with a list" "$(cat "$OUT/x2.n")" 4
"$CLRTRACE" view --color=never -x 'System.Nothing*' "$t" >"$OUT/none.view"
expect "-x with no match shows nothing" "$(wc -l <"$OUT/none.view")" 0
"$CLRTRACE" view --color=never -o unhandled "$t" >"$OUT/unh.view"
expect "-o unhandled on a trace without one" "$(wc -l <"$OUT/unh.view")" 0
# event and category filters, time range
"$CLRTRACE" view --color=never -e 'assembly.*,threads' "$t" | grep -v '^---' | awk '{print $4}' | sort -u >"$OUT/ev.txt"
expect "-e assembly.*,threads" "$(tr '\n' ' ' <"$OUT/ev.txt")" "assembly.load thread.create thread.destroy thread.name thread.os_assign "
n_all=$("$CLRTRACE" view --color=never "$t" | grep -vc '^---')
n_late=$("$CLRTRACE" view --color=never --since 0.02 "$t" | grep -vc '^---')
n_early=$("$CLRTRACE" view --color=never --until 0.02 "$t" | grep -vc '^---')
[ "$n_late" -lt "$n_all" ] && [ "$n_early" -lt "$n_all" ] && ok "--since/--until narrow the view ($n_early + $n_late of $n_all lines)" ||
	fail "--since/--until: $n_early, $n_late of $n_all"
"$CLRTRACE" view --since soon "$t" >/dev/null 2>&1
expect "--since with a bad value: usage error" "$?" 2

# colour: never when piped, always with --color=always, never with NO_COLOR
esc=$(printf '\033')
"$CLRTRACE" view "$t" | grep -q "$esc" && fail "colour on a pipe" || ok "no colour on a pipe"
"$CLRTRACE" view --color=always --throws "$t" | grep -q "$esc\[31m" && ok "--color=always colours throws red" || fail "--color=always"
if command -v script >/dev/null 2>&1; then
	script -qec "$CLRTRACE view $t" /dev/null </dev/null | grep -q "$esc\[" && ok "colour on a terminal" || fail "no colour on a terminal"
	NO_COLOR=1 script -qec "$CLRTRACE view $t" /dev/null </dev/null | grep -q "$esc\[" && fail "NO_COLOR ignored" || ok "NO_COLOR honoured"
fi
"$CLRTRACE" view --color=sometimes "$t" >/dev/null 2>&1
expect "--color=sometimes: usage error" "$?" 2

# -f follows a growing file
f="$OUT/grow.jsonl"
head -5 "$t" >"$f"
"$CLRTRACE" view -f --throws --color=never "$f" >"$OUT/follow.out" 2>&1 &
pid=$!
sleep 1
sed -n '6,40p' "$t" >>"$f"
want=$(sed -n 40p "$t" | jq -r .event)
sleep 1
kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
n=$(grep -vc '^---' "$OUT/follow.out")
[ "$n" -ge 30 ] && grep -q "$want" "$OUT/follow.out" && ok "-f showed records appended later ($n lines)" || fail "-f: $n lines"
finish
