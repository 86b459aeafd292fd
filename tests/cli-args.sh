#!/bin/sh
# Strict arguments: every bad option of every command is one line on stderr
# naming the option and the value (and what is accepted), exit status 2,
# nothing on stdout; list options add up when repeated; a type filter
# without a namespace matches the short name (on a real program) or says
# it matches nothing; run checks its trace file before starting the program.
. "${top_srcdir:-.}/tests/lib.sh"
G="$top_srcdir/tests/golden/sample.jsonl"

# bad EXPECTED ARGS...: exit 2, one stderr line holding EXPECTED, no stdout
bad() {
	local want=$1
	shift
	"$CLRTRACE" "$@" >"$OUT/bad.out" 2>"$OUT/bad.err"
	st=$?
	expect "clrtrace $*: exit 2" "$st" 2
	expect "clrtrace $*: one line on stderr" "$(grep -c '^clrtrace: ' "$OUT/bad.err") $(wc -l <"$OUT/bad.err" | tr -d ' ')" "1 1"
	expect "clrtrace $*: nothing on stdout" "$(wc -c <"$OUT/bad.out" | tr -d ' ')" 0
	grep -q -F -- "$want" "$OUT/bad.err" && ok "clrtrace $*: says \"$want\"" || fail "clrtrace $*: said: $(cat "$OUT/bad.err")"
}

bad "--outcome 'bogus': accepted: a comma list of caught, unhandled" view -o bogus "$G"
bad "--outcome 'nope'" view -o caught,nope "$G"
bad "--events 'bogus': accepted: categories" view -e bogus "$G"
bad "--events 'nope.*'" view -e 'exception.*,nope.*' "$G"
bad "view: --tid 'abc': accepted: a comma list of thread ids" view -t abc "$G"
bad "view: --tid ''" view -t '' "$G"
bad "view: --tid 'x'" view -t 1,x "$G"
bad "view: --since 'soon': accepted: seconds after the first record" view -S soon "$G"
bad "view: --since '-5'" view -S -5 "$G"
bad "view: --until 'nan'" view -U nan "$G"
bad "view: --exception '': accepted: a type glob" view -x '' "$G"
bad "--color wants auto, always or never, not 'sometimes'" view --color=sometimes "$G"
bad "view: no trace file given" view
bad "view: unknown option '--bogus'" view --bogus "$G"
bad "view: unknown option '-z'" view -fz "$G"
bad "view: option '-e' needs a value" view "$G" -e
bad "view: option '--events' needs a value" view "$G" --events
bad "stats: --top 'abc': accepted: a whole number from 0 to" stats -n abc "$G"
bad "stats: --top '-1'" stats -n -1 "$G"
bad "stats: --top '10x'" stats -n 10x "$G"
bad "stats: --top '99999999999999999999'" stats --top=99999999999999999999 "$G"
bad "stats: no trace file given" stats
bad "stats: unknown option '-q'" stats -q "$G"
bad "check: --max-problems 'abc': accepted: a whole number" check -m abc "$G"
bad "check: --max-problems ''" check -m '' "$G"
bad "check: option '--schema' needs a value" check --schema
bad "export: --format is required (accepted: chrome)" export "$G"
bad "export: --format 'svg': accepted: chrome" export --format svg "$G"
bad "export: no trace file given" export -F chrome
bad "export: unknown option '-x'" export -F chrome -x "$G"
bad "recover: /nonexistent/trace.jsonl: no such trace file" recover /nonexistent/trace.jsonl
bad "recover: no trace file given" recover
bad "recover: unknown option '-f'" recover -f x.jsonl
bad "--events 'bogus'" env -e bogus
bad "--events '+gc,+bogus'" env -e +gc -e +bogus
bad "--exceptions 'Foo:abc'" env -x 'Foo:abc'
bad "--processes 'a:1'" env -p 'a:1'
bad "--journal-ratelimit 'x'" env --journal-ratelimit x
bad "--ident 'a b': accepted: 1 to 64 printable characters" env --ident 'a b'
bad "--ident ''" run --ident '' -- true
bad "--library '/nonexistent/lib.so'" env --library /nonexistent/lib.so
bad "env: unknown option '--frob'" env --frob
bad "--output 'nope'" env -o nope
bad "--events 'bogus'" run -e bogus -- true
bad "run: unknown option '--frob'" run --frob -- true
bad "run: no program given" run

# run checks its trace file before it starts the program
for o in "file:/nonexistent/dir/x.jsonl" "file:$OUT" "file:$OUT/link.jsonl"; do
	ln -sf "$OUT/elsewhere" "$OUT/link.jsonl"
	rm -f "$OUT/started"
	"$CLRTRACE" run -o "$o" -- touch "$OUT/started" >"$OUT/run.out" 2>"$OUT/run.err"
	expect "run -o $o: exit 2" "$?" 2
	expect "run -o $o: one line" "$(wc -l <"$OUT/run.err" | tr -d ' ')" 1
	grep -q -F "the program was not started" "$OUT/run.err" && ok "run -o $o: says the program was not started" ||
		fail "run -o $o: $(cat "$OUT/run.err")"
	[ ! -e "$OUT/started" ] && ok "run -o $o: the program was not started" || fail "run -o $o: the program ran"
done
# run -j without a journal says so plainly, with the real pid
if [ ! -S /run/systemd/journal/socket ]; then
	"$CLRTRACE" run -j -- true >"$OUT/j.out" 2>"$OUT/j.err"
	expect "run -j without a journal: the program's status" "$?" 0
	grep -q "the journal is not reachable (no socket at /run/systemd/journal/socket)" "$OUT/j.err" &&
		ok "run -j without a journal: says the journal is not reachable" || fail "run -j: $(cat "$OUT/j.err")"
	grep -q -F '...' "$OUT/j.err" && fail "run -j: a literal '...': $(cat "$OUT/j.err")" ||
		ok "run -j: no literal '...'"
	grep -q 'CLRTRACE_PID=[0-9][0-9]*)' "$OUT/j.err" && ok "run -j: the summary names the pid" ||
		fail "run -j: $(cat "$OUT/j.err")"
else
	ok "run -j without a journal: not tried (this machine has a journal)"
fi

# list options add up when repeated
expect "env -e +gc -e +jit" "$("$CLRTRACE" env -e +gc -e +jit | sed -n 's/^export CLRTRACE_EVENTS=//p')" "'+gc,+jit'"
expect "env -p a -p b" "$("$CLRTRACE" env -p a -p b | sed -n 's/^export CLRTRACE_PROCESSES=//p')" "'a,b'"
expect "env -x TimeoutException -x 'System.IO.*' -x '!Beta*'" \
	"$("$CLRTRACE" env -x TimeoutException -x 'System.IO.*' -x '!Beta*' | sed -n 's/^export CLRTRACE_EXCEPTIONS=//p')" \
	"'TimeoutException,*.TimeoutException,System.IO.*,!Beta*,!*.Beta*'"
expect "env -o twice" "$("$CLRTRACE" env -o stderr -o file:x.jsonl | sed -n 's/^export CLRTRACE_OUTPUT=//p')" "'stderr,file:x.jsonl'"

# short type names on a real program: AlphaException is Scenarios.AlphaException
dll=$(build_program Scenarios) || die "could not build Scenarios"
n_throws() { jq -c 'select(.event=="exception.throw") | .exception.type' "$1" | sort | uniq -c | tr -s ' ' | tr '\n' ';'; }
trace "$OUT/short.jsonl" -x AlphaException -- dotnet "$dll" same filters || fail "traced run exited $?"
expect "run -x AlphaException: the Scenarios.AlphaException throws" "$(n_throws "$OUT/short.jsonl")" ' 2 "Scenarios.AlphaException";'
trace "$OUT/excl.jsonl" -x '!AlphaException' -- dotnet "$dll" same || fail "traced run exited $?"
expect "run -x !AlphaException: none" "$(n_throws "$OUT/excl.jsonl")" ''
trace "$OUT/full.jsonl" -- dotnet "$dll" same filters || fail "traced run exited $?"
"$CLRTRACE" view --color=never -x AlphaException "$OUT/full.jsonl" >"$OUT/x.view" 2>"$OUT/x.err"
expect "view -x AlphaException: the stories shown" "$(grep -c 'exception.summary' "$OUT/x.view")" 2
expect "view -x AlphaException: no complaint" "$(wc -c <"$OUT/x.err" | tr -d ' ')" 0
"$CLRTRACE" view --color=never -x Alpha "$OUT/full.jsonl" >"$OUT/x2.view" 2>"$OUT/x2.err"
expect "view -x Alpha: nothing shown" "$(wc -l <"$OUT/x2.view" | tr -d ' ')" 0
grep -q "view: --exception 'Alpha' matches no exception type in" "$OUT/x2.err" && ok "view -x Alpha: says it matches nothing" ||
	fail "view -x Alpha: $(cat "$OUT/x2.err")"
finish
