#!/bin/sh
# Merges in a shared sticky directory (mode 1777, like /tmp): another user
# (nobody) who plants FILE.<n>.pending there, with a forged unhandled
# exception in it, gets nothing into root's trace: `run` and `recover` name
# the file in one line and leave it as it is (not deleted).  `run` takes
# only the mirrors of the processes it started (the run named in the
# header), not another dead process's of the same user; `recover` takes
# the user's own and says whose they were.  And `run` checks the directory
# of a %p name, not the name with its own pid, which another user can
# plant a symlink under.
. "${top_srcdir:-.}/tests/lib.sh"
[ "$(id -u)" = 0 ] || skip "needs root to act as a second user (nobody)"
command -v setpriv >/dev/null 2>&1 || die "setpriv (util-linux) is missing"
id nobody >/dev/null 2>&1 || die "no user 'nobody'"
dll=$(build_program Probe)
GUID='{94D19DC5-3374-47C3-9729-75E330DECA23}'
TRACED="CORECLR_ENABLE_PROFILING=1 CORECLR_PROFILER=$GUID CORECLR_PROFILER_PATH=$CLRTRACE_LIBRARY CLRTRACE_FLUSH_MS=0"
wait_for() { for _ in $(seq 300); do grep -q "$1" "$2" 2>/dev/null && return 0; sleep 0.1; done; return 1; }
nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"; }

shared=$(mktemp -d /tmp/clrtrace-merge.XXXXXX) || die "mktemp"
trap 'rm -rf "$shared"' EXIT
chmod 1777 "$shared"

# a real mirror: a traced program killed before it could flush
env $TRACED CLRTRACE_OUTPUT="file:$OUT/src.jsonl" dotnet "$dll" sleep 60000 >"$OUT/src.out" 2>&1 &
src=$!
wait_for sleeping "$OUT/src.out" || die "the source program did not start"
kill -9 $src
wait $src 2>/dev/null
[ -s "$OUT/src.jsonl.$src.pending" ] || die "no FILE.$src.pending from the killed program"
# forge FROM TO: FROM's header, one record in its first buffer: an
# unhandled exception that never happened
forge() {
	python3 - "$1" "$2" <<'EOF'
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
n_bufs, = struct.unpack_from("<I", d, 12)
line = b'{"v":1,"seq":999,"ts":1,"pid":4242,"tid":4242,"thread":null,"event":"exception.summary","phase":"instant","span":null,"parent":null,"depth":0,"outcome":"unhandled","forged":true}\n'
rec = struct.pack("<QIHhiI", 999, len(line), 0, 0, 4242, 0x43524543) + line
rec += b"\0" * (-len(rec) % 8)
for i in range(n_bufs):
    struct.pack_into("<Q", d, 24 + 8 * i, 0)
struct.pack_into("<Q", d, 24, len(rec))
d[4096:4096 + len(rec)] = rec
open(sys.argv[2], "wb").write(d)
EOF
}
forge "$OUT/src.jsonl.$src.pending" "$OUT/forged.pending" || die "cannot forge a mirror"
chmod 644 "$OUT/forged.pending"
chmod 755 "$OUT"

# run TRACE: trace Probe hello into TRACE
run() { "$CLRTRACE" run -o "file:$1" -- dotnet "$dll" hello >"$OUT/run.out" 2>"$OUT/run.err"; }

# 1. nobody's planted mirror: run neither merges nor deletes it
nobody cp "$OUT/forged.pending" "$shared/app.jsonl.1.pending" || die "nobody cannot plant a file in $shared"
run "$shared/app.jsonl"
expect "run, nobody's mirror: the program's exit status" "$?" 0
expect "run, nobody's mirror: no forged record in the trace" "$(grep -c forged "$shared/app.jsonl")" 0
[ -e "$shared/app.jsonl.1.pending" ] && ok "run, nobody's mirror: left in place" || fail "run deleted nobody's file"
expect "run, nobody's mirror: named in one line" \
	"$(grep -c "^clrtrace: $shared/app.jsonl.1.pending: another user's file (uid $(id -u nobody)), not the tracing user's: not merged; left as it is$" "$OUT/run.err")" 1
grep -q "records, [0-9]* exceptions (0 unhandled), trace in $shared/app.jsonl$" "$OUT/run.err" &&
	ok "run, nobody's mirror: the summary counts no forged exception" || fail "run: summary: $(cat "$OUT/run.err")"

# 2. the same for recover: exit 1, one line, file kept, trace untouched
sum=$(md5sum <"$shared/app.jsonl")
"$CLRTRACE" recover "$shared/app.jsonl" >"$OUT/recover.out" 2>"$OUT/recover.err"
expect "recover, nobody's mirror: exit 1" "$?" 1
expect "recover, nobody's mirror: one line naming it" \
	"$(grep -c "app.jsonl.1.pending: another user's file" "$OUT/recover.err")/$(grep -c . "$OUT/recover.err")" 1/1
[ -e "$shared/app.jsonl.1.pending" ] && expect "recover, nobody's mirror: trace untouched" "$(md5sum <"$shared/app.jsonl")" "$sum" ||
	fail "recover deleted nobody's file"
rm -f "$shared/app.jsonl.1.pending"

# 3. the user's own mirror, but writable by others: not merged by either
cp "$OUT/forged.pending" "$shared/open.jsonl.1.pending" && chmod 666 "$shared/open.jsonl.1.pending"
run "$shared/open.jsonl"
expect "run, a mirror others may write: no forged record" "$(grep -c forged "$shared/open.jsonl")" 0
grep -q "open.jsonl.1.pending: others may write to it (mode 0666): not merged; left as it is" "$OUT/run.err" &&
	ok "run, a mirror others may write: said" || fail "run: $(cat "$OUT/run.err")"
"$CLRTRACE" recover "$shared/open.jsonl" 2>"$OUT/recover-open.err"
expect "recover, a mirror others may write: exit 1, file kept" "$?/$(ls "$shared/open.jsonl.1.pending")" \
	"1/$shared/open.jsonl.1.pending"

# 4. the user's own mirror of a process this run did not start: run leaves
# it (to recover), recover merges it and says whose records they were
cp "$OUT/forged.pending" "$shared/own.jsonl.1.pending"
run "$shared/own.jsonl"
expect "run, another process's mirror: not merged" "$(grep -c forged "$shared/own.jsonl")" 0
grep -q "own.jsonl.1.pending: not written by a process of this run (pid $src, started [0-9]* ticks after boot, this boot): not merged; left as it is" \
	"$OUT/run.err" && ok "run, another process's mirror: said, with whose it is" || fail "run: $(cat "$OUT/run.err")"
"$CLRTRACE" recover "$shared/own.jsonl" 2>"$OUT/recover-own.err"
expect "recover, the user's own mirror: exit 0" "$?" 0
expect "recover, the user's own mirror: merged" "$(grep -c forged "$shared/own.jsonl")/$(ls "$shared" | grep -c own.jsonl.1.pending)" 1/0
grep -q "own.jsonl.1.pending: 1 record merged (pid $src, started [0-9]* ticks after boot, this boot)" "$OUT/recover-own.err" &&
	ok "recover says whose records it merged" || fail "recover: $(cat "$OUT/recover-own.err")"

# 5. run's own program, killed: its mirror (the run named in it) is merged
CLRTRACE_FLUSH_MS=0 "$CLRTRACE" run -o "file:$shared/killed.jsonl" -- dotnet "$dll" sleep 60000 >"$OUT/killed.out" 2>"$OUT/killed.err" &
rp=$!
wait_for sleeping "$OUT/killed.out" || fail "killed: did not start"
pkill -9 -P $rp
wait $rp 2>/dev/null
! ls "$shared"/killed.jsonl.*.pending >/dev/null 2>&1 && ok "run merged its killed program's mirror" ||
	fail "run left its own program's mirror: $(cat "$OUT/killed.err")"
check_trace "$shared/killed.jsonl"

# 6. a %p name: run checks its directory, not the name with its own pid,
# where nobody planted symlinks (for the next thousand pids)
# (one process makes them all: each would take a pid of the range)
nobody perl -e 'open(my $f, "<", "/proc/sys/kernel/ns_last_pid") or die; my $l = <$f>;
	symlink("/nonexistent", "$ARGV[0]/p-$_.jsonl") or die "symlink: $!" for $l + 1 .. $l + 1000' "$shared" ||
	fail "nobody cannot plant symlinks in $shared"
"$CLRTRACE" run -o "file:$shared/p-%p.jsonl" -- dotnet "$dll" status 3 >"$OUT/p.out" 2>"$OUT/p.err"
expect "a %p name with symlinks planted: the program ran (its status)" "$?" 3
grep -q "the program was not started" "$OUT/p.err" && fail "run refused: $(cat "$OUT/p.err")" ||
	ok "a %p name with symlinks planted: run did not refuse it"
# its directory is still checked, in one line
"$CLRTRACE" run -o "file:$shared/nodir/p-%p.jsonl" -- dotnet "$dll" status 3 >"$OUT/c.out" 2>"$OUT/c.err"
expect "a %p name in a missing directory: exit 2" "$?" 2
expect "a %p name in a missing directory: one line" "$(cat "$OUT/c.err")" \
	"clrtrace: run: --output file:$shared/nodir/p-%p.jsonl: its directory: No such file or directory; the program was not started"
finish
