#!/bin/sh
# A trace written into a shared sticky directory (mode 1777, like /tmp):
# another user (nobody) who made the trace's file or a FIFO of that name
# first gets nothing, whatever fs.protected_regular says; the program runs
# as untraced and the records go to the default file, with one line saying
# why.  The tracing user's own file is appended to as before.
. "${top_srcdir:-.}/tests/lib.sh"
[ "$(id -u)" = 0 ] || skip "needs root to act as a second user (nobody)"
command -v setpriv >/dev/null 2>&1 || die "setpriv (util-linux) is missing"
id nobody >/dev/null 2>&1 || die "no user 'nobody'"
# absolute paths: the program runs from a directory of its own
top_builddir=$(readlink -f "$top_builddir") OUT=$(readlink -f "$OUT") CLRTRACE=$(readlink -f "$CLRTRACE")
FAILMARK="$OUT/.failed" CLRTRACE_LIBRARY=$(readlink -f "$CLRTRACE_LIBRARY")
prog=$(program_cmd Scenarios 10) || exit 1
echo "fs.protected_regular=$(cat /proc/sys/fs/protected_regular 2>/dev/null || echo '?')"

shared=$(mktemp -d /tmp/clrtrace-shared.XXXXXX) || die "mktemp"
trap 'rm -rf "$shared"; kill $reader 2>/dev/null' EXIT
chmod 1777 "$shared"
mkdir "$OUT/cwd"
nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"; }

# run NAME: trace Scenarios same into $shared/NAME from $OUT/cwd
run() {
	(cd "$OUT/cwd" && rm -f clrtrace-*.jsonl && "$CLRTRACE" run -o "file:$shared/$1" -- $prog same \
		>"$OUT/$1.stdout" 2>"$OUT/$1.stderr")
}

# 1. nobody's file, writable by all, made first
nobody sh -c "umask 0; : >'$shared/planted.jsonl'" || die "nobody cannot create a file in $shared"
run planted.jsonl
expect "another user's file: exit status as untraced" "$?" 0
expect "another user's file: the program ran" "$(cat "$OUT/planted.jsonl.stdout")" "done same 1"
expect "another user's file: nothing written into it" "$(stat -c %s "$shared/planted.jsonl")" 0
grep -q "cannot open trace file $shared/planted.jsonl: it is another user's file" "$OUT/planted.jsonl.stderr" &&
	ok "another user's file: one line says why" || fail "another user's file: stderr was $(cat "$OUT/planted.jsonl.stderr")"
def=$(ls "$OUT/cwd"/clrtrace-*.jsonl 2>/dev/null | head -1)
expect "another user's file: run's summary names where the records went" \
	"$(tail -1 "$OUT/planted.jsonl.stderr" | sed 's/.*trace in //')" "$def"
[ -n "$def" ] && expect "another user's file: the records went to the default file instead" \
	"$(jq -r 'select(.event == "exception.summary") | .outcome' "$def")" caught ||
	fail "another user's file: no default file in $OUT/cwd"

# 2. nobody's own file, not writable by others: still not root's
nobody sh -c "umask 022; : >'$shared/private.jsonl'"
run private.jsonl
expect "another user's private file: nothing written into it" "$(stat -c %s "$shared/private.jsonl")" 0

# 3. nobody's FIFO, with nobody reading it
nobody mkfifo -m 666 "$shared/fifo.jsonl"
nobody sh -c "cat '$shared/fifo.jsonl' >'$OUT/fifo.read' 2>/dev/null" 2>/dev/null &
reader=$!
chmod 777 "$OUT"
sleep 0.5
run fifo.jsonl
expect "another user's FIFO: exit status as untraced" "$?" 0
kill $reader 2>/dev/null; wait $reader 2>/dev/null
expect "another user's FIFO: its reader got nothing" "$(wc -c <"$OUT/fifo.read" 2>/dev/null || echo 0)" 0

# 4. root's own file, made first: appended to
echo '{"mine":1}' >"$shared/own.jsonl"
run own.jsonl
expect "own file: exit status" "$?" 0
expect "own file: the line that was there, then the trace" "$(head -1 "$shared/own.jsonl")" '{"mine":1}'
expect "own file: the trace appended" "$(sed -n 2p "$shared/own.jsonl" | jq -r .event)" runtime.init

# 5. root's own file, but writable by all: not written
echo '{"mine":2}' >"$shared/open.jsonl" && chmod 666 "$shared/open.jsonl"
run open.jsonl
expect "own file writable by others: left as it was" "$(cat "$shared/open.jsonl")" '{"mine":2}'
finish
