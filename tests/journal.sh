#!/bin/sh
# The journal sink against a real systemd-journald: every record arrives as
# one entry, field by field the same as the file copy; filtering by event,
# exception type and priority; SYSLOG_IDENTIFIER, MESSAGE_ID, PRIORITY, TID;
# exception.error's PRIORITY by its fate, CLRTRACE_ERROR on every record of
# an error.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
. "$top_srcdir/tests/journald.sh"
command -v python3 >/dev/null 2>&1 || skip "python3 is needed"

journald_start
dll=$(build_program Journal)
ID="clrtrace-test-$$"

# 1. file and journal copies of one run
"$CLRTRACE" run -o "file:$OUT/run.jsonl" -o journal --ident "$ID" -- dotnet "$dll" throw 3 \
	>"$OUT/run.stdout" 2>"$OUT/run.stderr"
expect "program ran as usual" "$(cat "$OUT/run.stdout")" "caught 3"
journald_sync
jctl -o json --all -t "$ID" >"$OUT/run.journal.json"
check_trace "$OUT/run.jsonl"
expect "one journal entry per record" "$(wc -l <"$OUT/run.journal.json")" "$(wc -l <"$OUT/run.jsonl")"

# Field by field: CLRTRACE_JSON is the file line; every non-null leaf of the
# record is CLRTRACE_<PATH> (arrays: the field repeated, compared as a set);
# nothing else starts with CLRTRACE_; every name is one journald keeps;
# PRIORITY and MESSAGE_ID are the event table's (asked of test-vocabulary); TID is the record's;
# MESSAGE is indented by depth.
# the table as the program has it (test-vocabulary journal: event, priority, MESSAGE_ID)
"$top_builddir/tests/unit/test-vocabulary" journal >"$OUT/journal-table.txt" || fail "test-vocabulary journal: exit status $?"
python3 - "$OUT/run.jsonl" "$OUT/run.journal.json" "$OUT/journal-table.txt" "$ID" <<'EOF' >"$OUT/compare.txt" 2>&1
import json, re, sys
recs = [l.rstrip('\n') for l in open(sys.argv[1])]
ents = [json.loads(l) for l in open(sys.argv[2])]
table = {}
for l in open(sys.argv[3]):
    ev, prio, mid = l.split()
    table[ev] = (prio, mid)
if not table:
    sys.exit("no event table from test-vocabulary")
name_ok = re.compile(r'^[A-Z][A-Z0-9_]{0,63}$')
def name(path):
    n = 'CLRTRACE_' + ''.join(c.upper() if c.isascii() and c.isalnum() else '_' for c in path)
    return n
def leaves(v, path, out):
    if isinstance(v, dict):
        for k, x in v.items():
            leaves(x, path + '.' + k if path else k, out)
    elif isinstance(v, list):
        for x in v:
            leaves(x, path, out)
    elif v is not None:
        s = 'true' if v is True else 'false' if v is False else str(v)
        out.setdefault(name(path), set()).add(s)
    return out
by_seq = {}
for e in ents:
    by_seq[int(e['CLRTRACE_SEQ'])] = e
bad = 0
names = set()
thrown = {}
for line in recs:
    r = json.loads(line)
    e = by_seq.get(r['seq'])
    if e is None:
        print('missing seq', r['seq']); bad += 1; continue
    if e.get('CLRTRACE_JSON') != line:
        print('CLRTRACE_JSON differs at seq', r['seq']); bad += 1
    # a summary names its exception by id only (or not at all when the id
    # is its error's): its entry has the exception whole, from its throw
    if r['event'] == 'exception.throw':
        thrown[r['exception']['id']] = r['exception']
    if r['event'] == 'exception.summary':
        x = r.get('exception') or {'id': r['error']}
        r['exception'] = dict(thrown.get(x['id'], {}), **x)
    want = leaves(r, '', {})
    got = {}
    for k, v in e.items():
        if k.startswith('CLRTRACE_') and k != 'CLRTRACE_JSON':
            got[k] = set(v) if isinstance(v, list) else {v}
    if want != got:
        print('fields differ at seq', r['seq'], 'missing', sorted(set(want) - set(got)),
              'extra', sorted(set(got) - set(want)),
              'values', sorted(k for k in want if k in got and want[k] != got[k])); bad += 1
    names |= set(e)
    prio, mid = table[r['event']]
    if r['event'] == 'exception.error':
        # its PRIORITY follows its fate (jf_priority)
        final = (r.get('handler') or {}).get('final') is True and (r.get('exception') or {}).get('type') not in (
            'System.OperationCanceledException', 'System.Threading.Tasks.TaskCanceledException')
        prio = {'unhandled': '2', 'open': '4'}.get(r['fate'],
                '3' if r['fate'] == 'handled_by_framework' and final else '6')
    if e.get('PRIORITY') != prio or e.get('MESSAGE_ID') != mid:
        print('PRIORITY/MESSAGE_ID wrong at seq', r['seq']); bad += 1
    if e.get('TID') != str(r['tid']) or e.get('SYSLOG_IDENTIFIER') != sys.argv[4]:
        print('TID/SYSLOG_IDENTIFIER wrong at seq', r['seq']); bad += 1
    m = e.get('MESSAGE', '')
    ind = len(m) - len(m.lstrip(' '))
    if ind != 2 * min(r.get('depth', 0), 40) or not m.lstrip(' ').startswith(r['event']):
        print('MESSAGE not indented by depth at seq', r['seq'], repr(m)); bad += 1
for n in sorted(names):
    if not n.startswith('_') and not name_ok.match(n):
        print('invalid field name', n); bad += 1
print('compared', len(recs), 'records,', len(names), 'field names,', bad, 'problems')
sys.exit(1 if bad else 0)
EOF
if [ $? = 0 ]; then ok "file and journal agree field by field ($(tail -n1 "$OUT/compare.txt"))"; else
	head -20 "$OUT/compare.txt"; fail "file and journal copies differ"; fi

# 2. filtering as users do
n_init=$(jctl -o cat -t "$ID" CLRTRACE_EVENT=runtime.init | wc -l)
expect "journalctl CLRTRACE_EVENT=runtime.init finds it" "$n_init" 1
pid=$(jq -r 'select(.event=="runtime.init") | .pid' "$OUT/run.jsonl")
expect "journalctl CLRTRACE_PID=… finds every record" \
	"$(jctl -o cat CLRTRACE_PID="$pid" | wc -l)" "$(wc -l <"$OUT/run.jsonl")"
n_throw=$(jq -c 'select(.event=="exception.throw")' "$OUT/run.jsonl" | wc -l)
if [ "$n_throw" -gt 0 ]; then
	expect "journalctl CLRTRACE_EVENT=exception.throw" \
		"$(jctl -o cat -t "$ID" CLRTRACE_EVENT=exception.throw | wc -l)" "$n_throw"
	expect "journalctl CLRTRACE_EXCEPTION_TYPE=Journal.JournalTestException" \
		"$(jctl -o cat -t "$ID" CLRTRACE_EVENT=exception.throw CLRTRACE_EXCEPTION_TYPE=Journal.JournalTestException | wc -l)" 3
	expect "exception.throw is PRIORITY debug" \
		"$(jctl -o cat -t "$ID" -p debug..debug CLRTRACE_EVENT=exception.throw | wc -l)" "$n_throw"
	# the program caught them: each error is info, and nothing of the run
	# is a warning or worse
	expect "the program's handled errors are PRIORITY info" \
		"$(jctl -o json -t "$ID" CLRTRACE_EVENT=exception.error | jq -r '"\(.CLRTRACE_FATE) \(.PRIORITY)"' | sort | uniq -c | sed 's/^ *//')" \
		"3 handled 6"
	expect "journalctl -p warning: nothing of a run whose errors were handled" \
		"$(jctl -o cat -t "$ID" -p warning | wc -l)" 0
	# the main thread's managed thread id (it asked for Thread.CurrentThread
	# before throwing) is a field to filter on
	mtid=$(jq -r 'select(.event=="exception.throw") | .managed_tid' "$OUT/run.jsonl" | sort -u)
	expect "the throws carry one managed thread id" "$(echo "$mtid" | grep -cE '^[1-9][0-9]*$')" 1
	expect "journalctl CLRTRACE_MANAGED_TID=$mtid finds the throws" \
		"$(jctl -o cat -t "$ID" CLRTRACE_EVENT=exception.throw CLRTRACE_MANAGED_TID="$mtid" | wc -l)" "$n_throw"
else
	echo "note: no exception.throw records in this build yet; exception filters not checked"
fi

# 3. SYSLOG_IDENTIFIER defaults to the program's name, not dotnet
"$CLRTRACE" run -o journal -- dotnet "$dll" throw 1 >"$OUT/plain.stdout" 2>"$OUT/plain.stderr"
journald_sync
pid2=$(jctl -o json CLRTRACE_EVENT=runtime.init CLRTRACE_PROGRAM=Journal | jq -r .CLRTRACE_PID | tail -n1)
expect "SYSLOG_IDENTIFIER is the program's name" \
	"$(jctl -o json CLRTRACE_PID="$pid2" | jq -r .SYSLOG_IDENTIFIER | sort -u)" "Journal"
expect "journalctl -t Journal finds the run" \
	"$(jctl -o cat -t Journal CLRTRACE_PID="$pid2" CLRTRACE_EVENT=runtime.shutdown | wc -l)" 1

# 3b. a thread's Thread.Name is a field of its own records' entries
"$CLRTRACE" run -o "file:$OUT/names.jsonl" -o journal --ident "$ID-names" -- dotnet "$dll" threads 2 \
	>"$OUT/names.stdout" 2>"$OUT/names.stderr"
journald_sync
n_named=$(jq -c 'select(.thread_name == "journal-1")' "$OUT/names.jsonl" | wc -l)
[ "$n_named" -gt 0 ] || fail "no record of thread journal-1 carries its name"
expect "journalctl CLRTRACE_THREAD_NAME=journal-1 finds that thread's records" \
	"$(jctl -o cat -t "$ID-names" CLRTRACE_THREAD_NAME=journal-1 | wc -l)" "$n_named"

# 4. an unhandled exception: crit, in the journal before the process dies
"$CLRTRACE" run -o "file:$OUT/unh.jsonl" -o journal --ident "$ID-unh" -- dotnet "$dll" unhandled \
	>"$OUT/unh.stdout" 2>"$OUT/unh.stderr"
journald_sync
n_unh=$(jq -c 'select(.event=="exception.unhandled")' "$OUT/unh.jsonl" | wc -l)
if [ "$n_unh" -gt 0 ]; then
	expect "journalctl -p crit finds the unhandled exception and its error" \
		"$(jctl -o json -t "$ID-unh" -p crit | jq -r .CLRTRACE_EVENT | sort | paste -sd' ')" \
		"exception.error exception.unhandled"
	expect "its type is a field" \
		"$(jctl -o json -t "$ID-unh" -p crit | jq -r .CLRTRACE_EXCEPTION_TYPE | sort -u)" "System.InvalidOperationException"
	jctl -o json -t "$ID-unh" CLRTRACE_EVENT=exception.error >"$OUT/unh-error.json"
	jctl -o verbose -t "$ID-unh" CLRTRACE_EVENT=exception.error >"$OUT/unh-error.verbose"
	expect "the crash's exception.error is PRIORITY crit" \
		"$(jq -r '"\(.CLRTRACE_FATE) \(.PRIORITY)"' "$OUT/unh-error.json")" "unhandled 2"
	# its MESSAGE names the origin as view's error block does ("from X")
	origin=$("$CLRTRACE" view --color=never "$OUT/unh.jsonl" 2>/dev/null | grep -A1 -m1 'exception.error #' |
		sed -n 's/^ *from \(.*\) on tid [0-9]*$/\1/p')
	[ -n "$origin" ] || fail "view names no origin of the crash's error"
	msg=$(jq -r .MESSAGE "$OUT/unh-error.json")
	case $msg in
	*"unhandled: thrown in $origin"*) ok "the crash's error MESSAGE names its origin in view's words ($msg)" ;;
	*) fail "the crash's error MESSAGE: '$msg' (view: $origin)" ;;
	esac
	expect "the origin is Journal.Program.Fail" "$origin" "Journal.Program.Fail"
	expect "journalctl -p warning: the crash's error entry, no step of a throw" \
		"$(jctl -o json -t "$ID-unh" -p warning | jq -r .CLRTRACE_EVENT | sort | paste -sd' ')" \
		"exception.error exception.unhandled"
else
	echo "note: no exception.unhandled records in this build yet; -p crit not checked"
fi
n_j=$(jctl -o cat -t "$ID-unh" | wc -l)
n_f=$(wc -l <"$OUT/unh.jsonl")
if [ "$n_j" -gt 0 ] && [ "$n_j" -ge "$n_f" ]; then
	ok "the dying process's records reached the journal ($n_j entries, file copy $n_f)"
else
	fail "the dying process's records: $n_j in the journal, $n_f in the file"
fi

# 5. the entry in .NET's words: CODE_FUNC is the throwing method as
# clrtrace view says it (CODE_FILE and CODE_LINE only for a .NET source
# file, never clrtrace's own C); MESSAGE names methods as view does; a
# rethrow's MESSAGE says so, and of which throw
"$CLRTRACE" run -e +stacks -o "file:$OUT/async.jsonl" -o journal --ident "$ID-async" -- dotnet "$dll" async \
	>"$OUT/async.stdout" 2>"$OUT/async.stderr"
"$CLRTRACE" run -e +stacks -o "file:$OUT/rethrow.jsonl" -o journal --ident "$ID-rethrow" -- dotnet "$dll" rethrow \
	>"$OUT/rethrow.stdout" 2>"$OUT/rethrow.stderr"
journald_sync
expect "async scenario ran" "$(cat "$OUT/async.stdout")" "caught 1"
expect "rethrow scenario ran" "$(cat "$OUT/rethrow.stdout")" "caught 1"
jctl -o json --all >"$OUT/all.journal.json"
expect "no clrtrace entry names a C file in CODE_FILE" \
	"$(jq -r 'select(.CLRTRACE_EVENT) | .CODE_FILE // empty' "$OUT/all.journal.json" | grep -c '\.[ch]$')" 0
expect "no clrtrace entry has CODE_LINE without CODE_FILE" \
	"$(jq -c 'select(.CLRTRACE_EVENT and .CODE_LINE and (.CODE_FILE | not))' "$OUT/all.journal.json" | wc -l)" 0
# view's first "at" line under the throw (--throws: every throw, not one
# block per error) is its innermost frame:
# "at NAME() [marks] in FILE:line N"; CODE_FUNC is NAME [marks]
site=$("$CLRTRACE" view --throws --color=never "$OUT/async.jsonl" 2>/dev/null | grep -A1 'exception.throw #1 ' | grep -m1 '^ *at ' |
	sed -e 's/^ *at //' -e 's/ in .*//' -e 's/ IL_[0-9a-f]*$//' -e 's/()//')
expect "view names the async throw site" "$site" "Journal.Program.ThrowAsync [async]"
jctl -o verbose -t "$ID-async" CLRTRACE_EVENT=exception.throw CLRTRACE_EXCEPTION_ID=1 >"$OUT/async-throw.verbose"
expect "CODE_FUNC of the async throw is view's name of the throwing method" \
	"$(jctl -o json -t "$ID-async" CLRTRACE_EVENT=exception.throw CLRTRACE_EXCEPTION_ID=1 | jq -r '.CODE_FUNC // "(none)"')" "$site"
msg=$(jctl -o json -t "$ID-async" CLRTRACE_EVENT=exception.summary CLRTRACE_EXCEPTION_ID=1 | jq -r .MESSAGE)
case $msg in
*"thrown in Journal.Program.ThrowAsync [async]"*) ok "the async exception's summary MESSAGE says [async] ($msg)" ;;
*) fail "the async exception's summary MESSAGE: '$msg'" ;;
esac
expect "no MESSAGE names a compiler-generated state machine" \
	"$(jctl -o json -t "$ID-async" | jq -r .MESSAGE | grep -c '>d__')" 0
jctl -o json -t "$ID-rethrow" CLRTRACE_EVENT=exception.throw >"$OUT/rethrow.journal.json"
expect "the rethrow run has two throws" "$(wc -l <"$OUT/rethrow.journal.json")" 2
# (without the indentation by depth: the rethrow is deeper, inside a catch)
m1=$(jq -r 'select(.CLRTRACE_RETHROW == null) | .MESSAGE | sub("^ *"; "")' "$OUT/rethrow.journal.json")
m2=$(jq -r 'select(.CLRTRACE_RETHROW == "true") | .MESSAGE | sub("^ *"; "")' "$OUT/rethrow.journal.json")
id1=$(jq -r 'select(.CLRTRACE_RETHROW == null) | .CLRTRACE_EXCEPTION_ID' "$OUT/rethrow.journal.json")
if [ -n "$m2" ] && [ "$m1" != "$m2" ]; then ok "a rethrow's MESSAGE differs from its first throw's"; else
	fail "a rethrow's MESSAGE is its first throw's: '$m1' / '$m2'"; fi
case $m2 in
*"rethrown (first thrown as #$id1)"*) ok "the rethrow's MESSAGE names the first throw ($m2)" ;;
*) fail "the rethrow's MESSAGE does not name #$id1: '$m2'" ;;
esac

# 6. from an error to its throws: every record of the rethrown error
# carries CLRTRACE_ERROR (its first throw's id), the throws' steps too
err=$(jq -r 'select(.CLRTRACE_RETHROW == null) | .CLRTRACE_ERROR' "$OUT/rethrow.journal.json")
expect "the first throw's error is its own id" "$err" "$id1"
expect "journalctl CLRTRACE_ERROR=$err: both throws of the rethrown error" \
	"$(jctl -o json -t "$ID-rethrow" CLRTRACE_ERROR="$err" CLRTRACE_EVENT=exception.throw | jq -r '.CLRTRACE_RETHROW // "false"' | sort | paste -sd' ')" \
	"false true"
expect "journalctl CLRTRACE_ERROR=$err: its exception.error, handled, info" \
	"$(jctl -o json -t "$ID-rethrow" CLRTRACE_ERROR="$err" CLRTRACE_EVENT=exception.error | jq -r '"\(.CLRTRACE_FATE) \(.CLRTRACE_THROWS) \(.PRIORITY)"')" \
	"handled 2 6"
n_recs=$(jq -c --argjson id "$err" 'select(.error == $id)' "$OUT/rethrow.jsonl" | wc -l)
n_steps=$(jq -c --argjson id "$err" 'select(.error == $id and (.event | test("^exception\\.(catch|finally|catcher_found|filter|summary)$")))' "$OUT/rethrow.jsonl" | wc -l)
[ "$n_steps" -gt 0 ] || fail "no step of the rethrown error's throws carries its error"
expect "journalctl CLRTRACE_ERROR=$err: every record of the error (steps: $n_steps)" \
	"$(jctl -o cat -t "$ID-rethrow" CLRTRACE_ERROR="$err" | wc -l)" "$n_recs"
expect "every exception record of the rethrow run carries its error" \
	"$(jq -c 'select((.event | startswith("exception.")) and (.error | not))' "$OUT/rethrow.jsonl" | wc -l)" 0
jctl -o verbose -t "$ID-rethrow" CLRTRACE_EVENT=exception.error >"$OUT/rethrow-error.verbose"

finish
