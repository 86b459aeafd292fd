#!/bin/sh
# FILE.<pid>.pending on the real runtime: a merge never takes a live
# process's file (nothing duplicated, nothing unlinked, nothing lost when
# that process dies later); crafted headers give one line, never a crash;
# pid reuse (a PID namespace's pid 1, twice) neither truncates the dead
# run's file nor confuses `check`; a SIGTERM-stopped program's last records
# reach the trace without `recover`; a FIFO or /dev/null gets no mirror.
. "${top_srcdir:-.}/tests/lib.sh"
dll=$(build_program Probe)
GUID='{94D19DC5-3374-47C3-9729-75E330DECA23}'

# env $TRACED CLRTRACE_OUTPUT=file:F PROGRAM...: the program under the
# profiler directly (no `clrtrace run`, so no merge), nothing flushed
# before exit; in the background, $! is the program's pid
TRACED="CORECLR_ENABLE_PROFILING=1 CORECLR_PROFILER=$GUID CORECLR_PROFILER_PATH=$CLRTRACE_LIBRARY CLRTRACE_FLUSH_MS=0"
wait_for() { for _ in $(seq 300); do grep -q "$1" "$2" 2>/dev/null && return 0; sleep 0.1; done; return 1; }
# no_dups FILE: every (pid, seq) once, and each pid's seqs 1..N
no_dups() {
	jq -s -r 'group_by(.pid) | map((map(.seq) | sort) as $s | select(($s | unique | length) != ($s | length)
	  or $s[0] != 1 or $s[-1] != ($s | length)) | "pid \(.[0].pid)") | join(",")' "$1"
}

# 1. a live writer's file is left alone by `run` and `recover`
t="$OUT/shared.jsonl"
env $TRACED CLRTRACE_OUTPUT="file:$t" dotnet "$dll" sleep 60000 >"$OUT/live.out" 2>&1 &
live=$!
wait_for sleeping "$OUT/live.out" || fail "the first program did not start"
[ -s "$t.$live.pending" ] && ok "the live process's records are in $(basename "$t").$live.pending" ||
	fail "no FILE.$live.pending"
"$CLRTRACE" run -o "file:$t" -- dotnet "$dll" hello >/dev/null 2>"$OUT/second.err"
expect "the second program's run exits 0" "$?" 0
[ -s "$t.$live.pending" ] && ok "run's merge left the live process's file in place" || fail "run took FILE.$live.pending"
expect "and took none of its records" "$(jq -c "select(.pid==$live)" "$t" | grep -c .)" 0
grep -q "$live.pending: in use by a running process" "$OUT/second.err" && ok "run says it left the file alone" ||
	fail "run said: $(cat "$OUT/second.err")"
"$CLRTRACE" recover "$t" 2>"$OUT/recover-live.err"
expect "recover with a live writer exits 0" "$?" 0
[ -s "$t.$live.pending" ] && expect "recover took none of its records" "$(jq -c "select(.pid==$live)" "$t" | grep -c .)" 0 ||
	fail "recover took FILE.$live.pending"
# a copy holds no lock: its header (pid, start time, boot id) still tells
cp "$t.$live.pending" "$t.$live.7.pending"
"$CLRTRACE" recover "$t" 2>"$OUT/recover-copy.err"
grep -q "$live.7.pending: its process (pid $live) still runs; left alone" "$OUT/recover-copy.err" &&
	[ -e "$t.$live.7.pending" ] && ok "an unlocked file of a live process is left alone (start time)" ||
	fail "unlocked copy: $(cat "$OUT/recover-copy.err")"
kill -9 $live
wait $live 2>/dev/null
cp "$t.$live.pending" "$OUT/saved.pending"
"$CLRTRACE" recover "$t" 2>"$OUT/recover-dead.err"
expect "recover after the kill exits 0" "$?" 0
n=$(jq -c "select(.pid==$live)" "$t" | grep -c .)
[ "$n" -gt 20 ] && ok "the killed process's $n records are in the trace" || fail "only $n records of the killed process"
[ ! -e "$t.$live.pending" ] && [ ! -e "$t.$live.7.pending" ] && ok "and its files are gone (the copy's records were not added twice)" ||
	fail "FILE.$live.pending left after recover"
expect "no record twice, every pid's seq 1..N" "$(no_dups "$t")" ""
"$CLRTRACE" check -q "$t" >"$OUT/check1" 2>&1 && ok "check: no problem" || fail "check: $(head -3 "$OUT/check1")"

# the same file again (as if the writer died between a write and emptying
# its buffer): nothing is written twice
lines=$(wc -l <"$t")
cp "$OUT/saved.pending" "$t.$live.pending"
"$CLRTRACE" recover "$t" 2>/dev/null
expect "a mirror whose records are all in the trace adds nothing" "$(wc -l <"$t")" "$lines"
# died in the middle of writing a line: the line is finished, not repeated
head -c -40 "$t" >"$t.cut" && mv "$t.cut" "$t"
cp "$OUT/saved.pending" "$t.$live.pending"
"$CLRTRACE" recover "$t" 2>/dev/null
expect "a torn last line of the dead writer is completed" "$(wc -l <"$t")" "$lines"
"$CLRTRACE" check -q "$t" >"$OUT/check2" 2>&1 && ok "check: no problem after completing it" ||
	fail "check: $(head -3 "$OUT/check2")"

# 2. crafted headers: one line each, the file kept, never a crash
put() { # put FILE OFFSET FORMAT VALUE: write one header field in place
	python3 -c 'import struct,sys; f=open(sys.argv[1],"r+b"); f.seek(int(sys.argv[2])); f.write(struct.pack(sys.argv[3], int(sys.argv[4])))' "$@"
}
tc="$OUT/crafted.jsonl"
for case in bufsize-2^63 bufsize-2^64-1 used-past-file n_bufs truncated magic; do
	: >"$tc"
	p="$tc.4242.pending"
	cp "$OUT/saved.pending" "$p"
	case $case in
	bufsize-2^63) put "$p" 16 '<Q' 9223372036854775808 ;;
	bufsize-2^64-1) put "$p" 16 '<Q' 18446744073709551615 ;;
	used-past-file) put "$p" 24 '<Q' 1099511627776 ;;
	n_bufs) put "$p" 12 '<I' 3 ;;
	truncated) head -c 2000 "$OUT/saved.pending" >"$p" ;;
	magic) printf 'XXXXXXXX' | dd of="$p" conv=notrunc 2>/dev/null ;;
	esac
	"$CLRTRACE" recover "$tc" >"$OUT/$case.out" 2>"$OUT/$case.err"
	st=$?
	expect "recover, $case: exit 1" "$st" 1
	expect "recover, $case: one line naming the file" "$(grep -c "4242.pending" "$OUT/$case.err")/$(grep -c . "$OUT/$case.err")" 1/1
	[ -e "$p" ] && [ ! -s "$tc" ] && ok "recover, $case: file kept, trace untouched" || fail "recover, $case: file or trace changed"
	"$CLRTRACE" run -o "file:$tc" -- dotnet "$dll" status 3 >/dev/null 2>"$OUT/$case.run.err"
	expect "run, $case: the program's exit status" "$?" 3
	grep -q "4242.pending: " "$OUT/$case.run.err" && ok "run, $case: says why the file was not merged" ||
		fail "run, $case: $(cat "$OUT/$case.run.err")"
	rm -f "$p"
done

# 3. pid reuse: two programs as pid 1 of new PID namespaces, one file
if [ "$(id -u)" = 0 ] && unshare -fp --mount-proc true 2>/dev/null; then
	tn="$OUT/ns.jsonl"
	env $TRACED CLRTRACE_OUTPUT="file:$tn" unshare -fp --mount-proc dotnet "$dll" sleep 60000 >"$OUT/ns1.out" 2>&1 &
	ns=$!
	wait_for sleeping "$OUT/ns1.out" || fail "the first pid 1 did not start"
	[ -s "$tn.1.pending" ] && ok "pid 1's records are in $(basename "$tn").1.pending" || fail "no FILE.1.pending"
	kill -9 "$(pgrep -P $ns)"
	wait $ns 2>/dev/null
	size=$(stat -c %s "$tn.1.pending")
	sum=$(md5sum <"$tn.1.pending")
	env $TRACED CLRTRACE_OUTPUT="file:$tn" unshare -fp --mount-proc dotnet "$dll" hello >"$OUT/ns2.out" 2>&1
	expect "the second pid 1 exits 0" "$?" 0
	expect "the dead run's file is untouched by the next pid 1" "$(md5sum <"$tn.1.pending")" "$sum"
	[ ! -e "$tn.1.1.pending" ] && ok "the second run's own file (FILE.1.1.pending) is gone after its clean exit" ||
		fail "FILE.1.1.pending left"
	"$CLRTRACE" recover "$tn" 2>/dev/null
	expect "two runtime.init of pid 1 in the file" "$(jq -c 'select(.event=="runtime.init" and .pid==1)' "$tn" | grep -c .)" 2
	"$CLRTRACE" check -q "$tn" >"$OUT/check-ns" 2>&1 && ok "check: no problem with pid 1 twice" ||
		fail "check: $(head -3 "$OUT/check-ns")"
	[ "$size" -gt 0 ] || fail "empty FILE.1.pending"
	# the later run's records around the earlier one's, as a merge during
	# the later run would put them
	late=$(jq -c 'select(.event=="runtime.init" and .pid==1) | .ts' "$tn" | sort -n | tail -1)
	jq -c --argjson t "$late" 'select(.ts >= $t)' "$tn" >"$OUT/late"
	jq -c --argjson t "$late" 'select(.ts < $t)' "$tn" >"$OUT/early"
	{ head -20 "$OUT/late"; cat "$OUT/early"; tail -n +21 "$OUT/late"; } >"$OUT/mixed.jsonl"
	"$CLRTRACE" check -q "$OUT/mixed.jsonl" >"$OUT/check-mixed" 2>&1 &&
		ok "check: no problem with two runs of pid 1 interleaved in the file" ||
		fail "check (interleaved): $(head -3 "$OUT/check-mixed")"
	# the same two as if they had run at once (two PID namespaces, one
	# file): said once, not reported as problems
	early=$(jq -c 'select(.event=="runtime.init" and .pid==1) | .ts' "$tn" | sort -n | head -1)
	jq -c --argjson l "$late" --argjson e "$early" 'if .ts < $l then .ts += ($l - $e + 1000) else . end' "$tn" |
		jq -s -c 'sort_by(.ts)[]' >"$OUT/overlap.jsonl"
	"$CLRTRACE" check -q "$OUT/overlap.jsonl" >"$OUT/check-overlap" 2>&1
	expect "check: two pid 1 at once: no false problem, one line saying they cannot be told apart" \
		"$?/$(grep -c "cannot be told apart" "$OUT/check-overlap")/$(grep -c . "$OUT/check-overlap")" 0/1/1
else
	echo "note: PID namespace part skipped (needs root and unshare -fp)"
fi

# 4. SIGTERM: a service's own handler: the runtime's shutdown path writes
# what came after the last flush (none here: CLRTRACE_FLUSH_MS=0)
ts="$OUT/term.jsonl"
env $TRACED CLRTRACE_OUTPUT="file:$ts" dotnet "$dll" term >"$OUT/term.out" 2>&1 &
tp=$!
wait_for sleeping "$OUT/term.out" || fail "term: did not start"
kill -TERM $tp
wait $tp
expect "SIGTERM, own handler: the program's exit status" "$?" 7
expect "its trace ends with runtime.shutdown" "$(tail -1 "$ts" | jq -r .event)" runtime.shutdown
jq -c 'select(.event=="exception.throw" and .exception.message=="stopping")' "$ts" | grep -q . &&
	ok "the exception thrown after the signal is in the trace" || fail "no record of the work after SIGTERM"
[ ! -e "$ts.$tp.pending" ] && ok "nothing left in FILE.<pid>.pending" || fail "FILE.$tp.pending left"
check_trace "$ts"

# no handler, by the profiler alone: .NET 8 and 9 raise ProcessExit and shut
# down, so the Shutdown callback writes everything; .NET 10 dies of the
# signal and runs nothing, so the records wait in FILE.<pid>.pending
for v in $(test_runtimes "9 8"); do
	probe=$(program_cmd Probe "$v") || continue
	t9="$OUT/term-net$v.jsonl"
	env $TRACED CLRTRACE_OUTPUT="file:$t9" $probe sleep 60000 >"$OUT/term-net$v.out" 2>&1 &
	p9=$!
	wait_for sleeping "$OUT/term-net$v.out" || fail ".NET $v: did not start"
	kill -TERM $p9
	wait $p9
	expect ".NET $v, SIGTERM without a handler: the runtime exits 143" "$?" 143
	expect ".NET $v: the trace ends with runtime.shutdown, written from the Shutdown callback" \
		"$(tail -1 "$t9" | jq -r .event)" runtime.shutdown
	[ ! -e "$t9.$p9.pending" ] && ok ".NET $v: nothing left in FILE.<pid>.pending" || fail ".NET $v: FILE.$p9.pending left"
	check_trace "$t9"
done
t10="$OUT/term-net10.jsonl"
env $TRACED CLRTRACE_OUTPUT="file:$t10" dotnet "$dll" sleep 60000 >"$OUT/term-net10.out" 2>&1 &
p10=$!
wait_for sleeping "$OUT/term-net10.out" || fail ".NET 10: did not start"
kill -TERM $p10
wait $p10
expect ".NET 10, SIGTERM without a handler: death by the signal" "$?" 143
expect ".NET 10: nothing ran after it (the runtime wrote nothing, nor did the profiler)" "$(wc -l <"$t10")" 0
[ -s "$t10.$p10.pending" ] && ok ".NET 10: the records wait in FILE.<pid>.pending" || fail ".NET 10: no FILE.$p10.pending"
"$CLRTRACE" recover "$t10" 2>/dev/null
check_trace "$t10"

# no handler (on .NET 10 the runtime dies of the signal, running nothing):
# SIGTERM to `clrtrace run` reaches the program, run merges and dies alike
tr="$OUT/term-run.jsonl"
CLRTRACE_FLUSH_MS=0 "$CLRTRACE" run -o "file:$tr" -- dotnet "$dll" sleep 60000 >"$OUT/term-run.out" 2>"$OUT/term-run.err" &
rp=$!
wait_for sleeping "$OUT/term-run.out" || fail "term-run: did not start"
kill -TERM $rp
wait $rp
expect "SIGTERM to clrtrace run: exit status 143 (the program's death)" "$?" 143
pgrep -f "$dll sleep 60000" >/dev/null && fail "the program still runs" || ok "the program got the signal and is gone"
! ls "$tr".*.pending >/dev/null 2>&1 && ok "run merged the program's FILE.<pid>.pending" || fail "FILE.<pid>.pending left"
check_trace "$tr"
grep -q "records, .* trace in $tr" "$OUT/term-run.err" && ok "run printed its summary" || fail "no summary: $(cat "$OUT/term-run.err")"

# a handler in the program sees the forwarded signal; run exits as it did
th="$OUT/term-handler.jsonl"
"$CLRTRACE" run -o "file:$th" -- dotnet "$dll" term >"$OUT/th.out" 2>/dev/null &
rp=$!
wait_for sleeping "$OUT/th.out" || fail "term via run: did not start"
kill -TERM $rp
wait $rp
expect "the program's handler ran and its status came back" "$?/$(grep -c stopped "$OUT/th.out")" 7/1

# under timeout(1), which signals its child and then the whole group
tt="$OUT/term-timeout.jsonl"
timeout 3 "$CLRTRACE" run -o "file:$tt" -- dotnet "$dll" sleep 60000 >/dev/null 2>&1
expect "timeout: its status 124" "$?" 124
sleep 0.5
pgrep -f "$dll sleep 60000" >/dev/null && fail "the program outlived timeout" || ok "timeout: the program is gone"
! ls "$tt".*.pending >/dev/null 2>&1 && ok "timeout: run merged what the program left" || fail "timeout: FILE.<pid>.pending left"

# 5. a trace sent to a FIFO or a device: no mirror beside it (nothing
# could be recovered into it, and /dev/null.<pid>.pending would be left in
# /dev); the records still go through; a FIFO with no reader never blocks
mkfifo "$OUT/fifo"
cat "$OUT/fifo" >"$OUT/fifo.out" &
reader=$!
env $TRACED CLRTRACE_OUTPUT="file:$OUT/fifo" dotnet "$dll" term >"$OUT/fifo.prog" 2>&1 &
fp=$!
wait_for sleeping "$OUT/fifo.prog" || fail "fifo: did not start"
! ls "$OUT"/fifo.*.pending >/dev/null 2>&1 && ok "a trace to a FIFO has no FILE.<pid>.pending beside it" ||
	fail "a mirror beside the FIFO: $(ls "$OUT"/fifo.*.pending)"
kill -TERM $fp
wait $fp
expect "fifo: the program's handler ran" "$?" 7
wait $reader
expect "the FIFO's reader got the records, to runtime.shutdown" "$(tail -1 "$OUT/fifo.out" | jq -r .event)" runtime.shutdown
# a FIFO no one reads does not stop the program: the default file instead
mkfifo "$OUT/fifo2"
(cd "$OUT" && timeout 60 "$CLRTRACE" run -o "file:$OUT/fifo2" -- dotnet "$dll" hello >/dev/null 2>"$OUT/fifo2.err")
expect "a FIFO with no reader: the program runs and exits 0" "$?" 0
grep -q "cannot open trace file $OUT/fifo2: a FIFO with no reader; writing $OUT/clrtrace-Probe-[0-9]*.jsonl instead" \
	"$OUT/fifo2.err" && ok "run says so and where the records went instead" || fail "fifo2: $(cat "$OUT/fifo2.err")"
check_trace "$(ls "$OUT"/clrtrace-Probe-*.jsonl | head -1)"
rm -f "$OUT"/clrtrace-Probe-*.jsonl
if [ -w /dev ]; then
	env $TRACED CLRTRACE_OUTPUT="file:/dev/null" dotnet "$dll" sleep 60000 >"$OUT/null.prog" 2>&1 &
	np=$!
	wait_for sleeping "$OUT/null.prog" || fail "/dev/null: did not start"
	[ ! -e "/dev/null.$np.pending" ] && ok "a trace to /dev/null leaves nothing in /dev" ||
		fail "/dev/null.$np.pending made"
	kill -9 $np
	wait $np 2>/dev/null
	rm -f "/dev/null.$np.pending"
fi
"$CLRTRACE" run -o file:/dev/null -- dotnet "$dll" hello >/dev/null 2>"$OUT/null-run.err"
expect "run to /dev/null: the program's status" "$?" 0
expect "and its summary says where the trace went" "$(grep clrtrace: "$OUT/null-run.err")" \
	"clrtrace: trace sent to /dev/null, not a regular file: nothing to count"

# as PID 1 of a PID namespace (a container's entrypoint)
if [ "$(id -u)" = 0 ] && unshare -fp --mount-proc true 2>/dev/null; then
	tp1="$OUT/term-pid1.jsonl"
	CLRTRACE_FLUSH_MS=0 unshare -fp --mount-proc "$CLRTRACE" run -o "file:$tp1" -- dotnet "$dll" sleep 60000 \
		>"$OUT/pid1.out" 2>"$OUT/pid1.err" &
	up=$!
	wait_for sleeping "$OUT/pid1.out" || fail "pid 1: did not start"
	kill -TERM "$(pgrep -P $up)" # clrtrace, pid 1 inside
	wait $up
	expect "clrtrace run as PID 1: the program's status after SIGTERM" "$?" 143
	check_trace "$tp1"
	# an orphan passed to PID 1 is reaped, not left a zombie
	unshare -fp --mount-proc "$CLRTRACE" run -p Probe -o "file:$OUT/orphan.jsonl" -- \
		sh -c '(sleep 0.2 &); exec dotnet "$0" sleep 4000' "$dll" >"$OUT/orphan.out" 2>&1 &
	up=$!
	wait_for sleeping "$OUT/orphan.out" || fail "orphan: did not start"
	sleep 1
	clr=$(pgrep -P $up)
	expect "clrtrace run as PID 1 reaps an orphan (no zombie child)" "$(ps -o stat= --ppid "$clr" | grep -c Z)" 0
	wait $up
	expect "and exits with the program's status" "$?" 0
fi
finish
