#!/bin/sh
# Record text is program input: view, stats, check and the reader's warnings
# escape control characters and invalid UTF-8 as strace does (\n, \e, \x9b,
# backslash doubled); view --raw and the JSON keep the original bytes.
# A real program throws a message holding ESC]0;..BEL ESC[2J, a C1 CSI, a
# lone surrogate and a newline followed by a forged record line.  Through
# the journal (when a journald can be started): CLRTRACE_JSON keeps the
# original, MESSAGE holds no control character.
. "${top_srcdir:-.}/tests/lib.sh"
JOURNALD_OPTIONAL=1
. "$top_srcdir/tests/journald.sh"
export LC_ALL=C

ESC=$(printf '\033') BEL=$(printf '\007') CSI=$(printf '\302\233')
# controls FILE: how many terminal control bytes (ESC, BEL, C1 CSI) FILE holds
controls() { tr -cd "\\033\\007" <"$1" | wc -c | tr -d ' '; }
c1() { grep -c -F "$CSI" "$1"; }

dll=$(build_program Scenarios) || die "could not build Scenarios"
dotnet "$dll" hostile >"$OUT/untraced.stdout" 2>&1 || fail "untraced hostile run exited $?"
t="$OUT/hostile.jsonl"
trace "$t" -- dotnet "$dll" hostile || fail "traced hostile run exited $?"
expect "the program's output is as untraced" "$(cat "$t.stdout")" "$(cat "$OUT/untraced.stdout")"
check_trace "$t"
expect "the record keeps the message as thrown (JSON escapes)" \
	"$(jq -r 'select(.event=="exception.throw") | .exception.message | split("\n")[0] | explode | map(select(. < 32 or (. >= 127 and . < 160))) | length' "$t")" 4

# view: one line per record, no control byte, the escapes readable
"$CLRTRACE" view --throws --color=never "$t" >"$OUT/view.txt" || fail "view exit status $?"
expect "view: no ESC or BEL byte" "$(controls "$OUT/view.txt")" 0
expect "view: no C1 control" "$(c1 "$OUT/view.txt")" 0
expect "view: the forged record is not a line of its own" "$(grep -c '^ *0\.999999 ' "$OUT/view.txt")" 0
expect "view: the throw is one line" "$(grep -v 'exception\.error #' "$OUT/view.txt" | grep -c 'exception\.unhandled Forged')" 1
grep -q -F 'evil\e]0;pwned\x07\e[2J\xc2\x9b31m' "$OUT/view.txt" && ok "view: ESC, BEL and C1 shown as escapes" ||
	fail "view: escapes missing: $(grep -F evil "$OUT/view.txt" | head -1)"
grep -q -F 'path C:\\x\n    0.999999' "$OUT/view.txt" && ok "view: backslash doubled, newline escaped" ||
	fail "view: backslash or newline: $(grep -F evil "$OUT/view.txt" | head -1)"
"$CLRTRACE" view --throws --color=always "$t" >"$OUT/color.txt"
expect "view --color=always: only our own colour sequences" \
	"$(grep -c -F "${ESC}]0;" "$OUT/color.txt") $(grep -c -F "${ESC}[2J" "$OUT/color.txt")" "0 0"

# view --raw: the original bytes
"$CLRTRACE" view --throws --raw --color=never "$t" >"$OUT/raw.txt" || fail "view --raw exit status $?"
grep -q -F "evil${ESC}]0;pwned${BEL}${ESC}[2J${CSI}31m" "$OUT/raw.txt" && ok "view --raw keeps the original bytes" ||
	fail "view --raw changed the message"
# (once in the throw's line, once in its error's, which repeats the message)
expect "view --raw: the newline is kept" "$(grep -c '^ *0\.999999 ' "$OUT/raw.txt")" 2

# stats: type names, sites and thread names from the trace (made hostile here:
# a real type name cannot hold them).  Files broken on purpose are not named
# *.jsonl: schema.sh validates every trace the tests leave
jq -c 'if .exception.type? then .exception.type |= "Evil\u001b[2J\nType" else . end
	| if .thrown_in? then .thrown_in = "Site\u0007\u009b" else . end' "$t" >"$OUT/crafted.records"
"$CLRTRACE" stats "$OUT/crafted.records" >"$OUT/stats.txt" || fail "stats exit status $?"
expect "stats: no ESC or BEL byte" "$(controls "$OUT/stats.txt")" 0
expect "stats: no C1 control" "$(c1 "$OUT/stats.txt")" 0
grep -q -F 'Evil\e[2J\nType (1 caught)' "$OUT/stats.txt" && ok "stats: the type escaped" ||
	fail "stats: $(grep -F Evil "$OUT/stats.txt")"
grep -q -F 'Site\x07\xc2\x9b' "$OUT/stats.txt" && ok "stats: the throw site escaped" || fail "stats: site not escaped"
"$CLRTRACE" stats --json "$OUT/crafted.records" >"$OUT/stats.json" || fail "stats --json exit status $?"
expect "stats --json keeps the original (JSON escapes)" \
	"$(jq -r '.exceptions.by_type[0].type' "$OUT/stats.json")" "$(printf 'Evil\033[2J\nType')"
"$CLRTRACE" export --format chrome "$OUT/crafted.records" >"$OUT/chrome.json" || fail "export exit status $?"
expect "export: JSON, no raw control byte" "$(jq -e . "$OUT/chrome.json" >/dev/null && controls "$OUT/chrome.json")" 0

# check: its messages quote record text (an event name here)
jq -c 'if .seq == 2 then .event = "x\u001b]0;t\u0007\nfake" else . end' "$t" >"$OUT/bad-event.records"
"$CLRTRACE" check "$OUT/bad-event.records" >"$OUT/check.txt" 2>&1
expect "check: a problem found (exit 1)" "$?" 1
expect "check: no ESC or BEL byte" "$(controls "$OUT/check.txt")" 0
grep -q -F 'x\e]0;t\x07\nfake' "$OUT/check.txt" && ok "check: the event name escaped" ||
	fail "check: $(head -3 "$OUT/check.txt")"
# the reader's warnings quote what they could not read
printf '{"event": "a\033[2J\n' >"$OUT/torn.records"
printf 'not json \033]0;x\007\n' >>"$OUT/torn.records"
"$CLRTRACE" view "$OUT/torn.records" >/dev/null 2>"$OUT/warn.txt"
expect "reader warnings: no ESC or BEL byte" "$(controls "$OUT/warn.txt")" 0
expect "reader warnings: one line each" "$(grep -c '^clrtrace: ' "$OUT/warn.txt")" "$(wc -l <"$OUT/warn.txt" | tr -d ' ')"

# the journal: the original in CLRTRACE_JSON, MESSAGE safe
if [ "$journald_usable" = 1 ] && command -v python3 >/dev/null 2>&1; then
	journald_start
	ID="clrtrace-escape-$$"
	"$CLRTRACE" run -q -j --ident "$ID" -- dotnet "$dll" hostile >"$OUT/j.stdout" 2>"$OUT/j.stderr" ||
		fail "journal run exited $?: $(cat "$OUT/j.stderr")"
	journald_sync
	jctl -o json --all -t "$ID" CLRTRACE_EVENT=exception.throw >"$OUT/j.json"
	jq -c 'select(.event=="exception.throw") | .exception.message' "$t" >"$OUT/j.want"
	python3 - "$OUT/j.json" "$OUT/j.want" >"$OUT/j.check" <<'PY'
import json, sys
want = json.loads(open(sys.argv[2]).read())
entries = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
def text(v):  # journalctl -o json gives a byte array for non-printable fields
    return bytes(v).decode('utf-8', 'replace') if isinstance(v, list) else v
for e in entries:
    rec = json.loads(text(e['CLRTRACE_JSON']))
    print('json', rec['exception']['message'] == want)
    msg = text(e['MESSAGE'])
    print('message', 'evil' in msg and 'Forged.Exception' in msg,
          [hex(ord(c)) for c in msg if ord(c) < 0x20 or 0x7f <= ord(c) <= 0x9f])
PY
	expect "journal: one throw entry" "$(wc -l <"$OUT/j.json" | tr -d ' ')" 1
	expect "journal: CLRTRACE_JSON keeps the message as thrown" "$(sed -n 's/^json //p' "$OUT/j.check")" True
	expect "journal: MESSAGE has the text and no control character" "$(sed -n 's/^message //p' "$OUT/j.check")" "True []"
	journald_stop
else
	ok "journal: not tried (no usable journald or python3 here)"
fi
finish
