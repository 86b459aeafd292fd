#!/bin/bash
# clrtrace ps and attach, on .NET 8, 9 and 10: ps lists a running program
# (found through the TMPDIR of its own environment) with its runtime
# version; attach loads the profiler through the diagnostics IPC with the
# options as client data, and the trace holds the exceptions after the
# attach, valid; a second attach, and one to a process that already has
# clrtrace as main profiler, are refused (CORPROF_E_PROFILER_ALREADY_ACTIVE)
# in one line; the program runs on unchanged.  runtime.attach lists what was
# loaded before; detach (also while 4 threads throw) ends the trace with
# runtime.detach and the program runs on; a second attach after it starts a
# new trace that names no span or exception of the first.  Beside another
# main profiler (a renamed copy of clrtrace), attach falls back to notification mode and both see the exceptions; run
# --beside-profiler; attach --duration.  Also: a missing pid, a dead
# socket, a process without one, a process in another mount namespace.
. "$(dirname "$0")/lib.sh"

runtimes=$(test_runtimes)
PIDS=""
trap 'for p in $PIDS; do kill "$p" 2>/dev/null; done' EXIT

# start NAME [VAR=VALUE...] CMD...: run CMD (with $THREADS busy threads) in the background, stdout and
# stderr to $OUT/NAME.stdout/.stderr, gate file $OUT/NAME.gate; wait until it
# says "ready PID" and set $pid to that
start() {
	local name=$1 i; shift
	rm -f "$OUT/$name.gate"
	# (CLRTRACE_ATTACH_TARGET: make check-sanitizers preloads ASan into it)
	env CLRTRACE_ATTACH_TARGET=1 "$@" "$OUT/$name.gate" 120 ${THREADS:-} >"$OUT/$name.stdout" 2>"$OUT/$name.stderr" &
	job=$!
	PIDS="$PIDS $job"
	pid=""
	for i in $(seq 300); do
		pid=$(awk '/^ready /{print $2}' "$OUT/$name.stdout" 2>/dev/null)
		[ -n "$pid" ] && return 0
		sleep 0.1
	done
	fail "$name: the program never said ready ($(cat "$OUT/$name.stderr"))"
}

# stop NAME JOB: open the gate, wait for the job; its exit status in $st
stop() {
	local i
	touch "$OUT/$1.gate"
	for i in $(seq 300); do
		kill -0 "$2" 2>/dev/null || break
		sleep 0.1
	done
	wait "$2" 2>/dev/null
	st=$?
}

# one_line NAME FILE PATTERN: FILE (stderr) is one clrtrace line matching PATTERN
one_line() {
	expect "$1: one line on stderr" "$(wc -l <"$2")" 1
	grep -qE "$3" "$2" && ok "$1: it says: $(cat "$2")" || fail "$1: stderr was: $(cat "$2")"
}

for v in $runtimes; do
	n=".NET $v"
	prog=$(program_cmd Attach "$v")
	want=$(rt_version "$v")

	# a private TMPDIR: the socket is found through the program's environment
	mkdir -p "$OUT/tmp$v"
	start "net$v" TMPDIR="$OUT/tmp$v" $prog
	p=$pid
	ls "$OUT/tmp$v"/dotnet-diagnostic-"$p"-*-socket >/dev/null 2>&1 &&
		ok "$n: the runtime made its socket in the program's TMPDIR" || fail "$n: no socket in $OUT/tmp$v"

	"$CLRTRACE" ps >"$OUT/ps$v.out" 2>"$OUT/ps$v.err"
	expect "$n: ps exit status" "$?" 0
	row=$(awk -v p="$p" '$1 == p' "$OUT/ps$v.out")
	expect "$n: ps lists the program: pid, runtime version, clrtrace not loaded, name" \
		"$(echo "$row" | awk '{print $1, $2, $3, $4}')" "$p $want no Attach"
	expect "$n: ps says nothing on stderr" "$(cat "$OUT/ps$v.err")" ""
	"$CLRTRACE" ps -l | awk -v p="$p" '$1 == p' | grep -q "Attach.* $OUT/net$v.gate 120" &&
		ok "$n: ps -l adds the command line" || fail "$n: ps -l: $("$CLRTRACE" ps -l | awk -v p="$p" '$1 == p')"

	# attach: the configuration travels as the client data; the trace
	# starts at the attach and holds only what came after it
	t0=$(date +%s%N)
	"$CLRTRACE" attach -o "file:$OUT/att$v.jsonl" -e exceptions "$p" >"$OUT/att$v.out" 2>"$OUT/att$v.err"
	expect "$n: attach exit status" "$?" 0
	expect "$n: attach says nothing on stderr" "$(cat "$OUT/att$v.err")" ""
	expect "$n: attach says what it attached to" "$(cat "$OUT/att$v.out")" "clrtrace: attached to pid $p (Attach, .NET $want)"
	for i in $(seq 100); do
		[ "$(jq -s 'map(select(.event == "exception.summary")) | length' "$OUT/att$v.jsonl" 2>/dev/null || echo 0)" -ge 5 ] && break
		sleep 0.1
	done
	expect "$n: ps after the attach: clrtrace is loaded" "$("$CLRTRACE" ps | awk -v p="$p" '$1 == p {print $3}')" yes
	"$CLRTRACE" attach "$p" 2>"$OUT/att$v-2.err"
	expect "$n: a second attach: exit status" "$?" 1
	one_line "$n: a second attach" "$OUT/att$v-2.err" \
		"^clrtrace: attach: pid $p: the runtime refused: 0x8013136A CORPROF_E_PROFILER_ALREADY_ACTIVE: .*\\(clrtrace itself"
	# detach, then attach again: a new trace, from its own runtime.init
	"$CLRTRACE" detach "$p" >"$OUT/det$v.out" 2>"$OUT/det$v.err"
	expect "$n: detach: exit status" "$?" 0
	expect "$n: detach says what it did, nothing on stderr" "$(cat "$OUT/det$v.out" "$OUT/det$v.err")" "clrtrace: detached from pid $p"
	n1=$(wc -l <"$OUT/att$v.jsonl")
	"$CLRTRACE" attach -o "file:$OUT/re$v.jsonl" -e exceptions "$p" >/dev/null 2>"$OUT/re$v.err"
	expect "$n: attach after detach: exit status" "$?" 0
	expect "$n: attach after detach: nothing on stderr" "$(cat "$OUT/re$v.err")" ""
	for i in $(seq 100); do
		[ "$(grep -c '"exception.summary"' "$OUT/re$v.jsonl" 2>/dev/null)" -ge 3 ] && break
		sleep 0.1
	done
	expect "$n: the detached trace gets no record after the detach" "$(wc -l <"$OUT/att$v.jsonl")" "$n1"
	"$CLRTRACE" detach "$p" >/dev/null 2>"$OUT/det$v-2.err"
	expect "$n: a second detach: exit status" "$?" 0
	"$CLRTRACE" detach "$p" 2>"$OUT/det$v-3.err"
	expect "$n: detach with nothing attached: exit status" "$?" 1
	one_line "$n: detach with nothing attached" "$OUT/det$v-3.err" "^clrtrace: detach: pid $p: clrtrace there was not loaded by 'clrtrace attach'"
	stop "net$v" "$job"
	expect "$n: the program ends normally after the attach" "$st" 0
	expect "$n: the program said nothing on stderr" "$(cat "$OUT/net$v.stderr")" ""
	f="$OUT/att$v.jsonl"
	check_trace "$f"
	expect "$n: the trace begins with runtime.init, runtime.attach, ends with runtime.detach" \
		"$(jq -r .event "$f" | sed -n '1p;2p;$p' | tr '\n' ' ')" "runtime.init runtime.attach runtime.detach "
	expect "$n: runtime.attach lists System.Private.CoreLib and its module, loaded before" \
		"$(jq -r 'select(.event == "runtime.attach") | [(.assemblies[] | select(.name == "System.Private.CoreLib") | .id), (.modules[] | select(.path | endswith("/System.Private.CoreLib.dll")) | .assembly)] | unique | length' "$f")" 1
	expect "$n: runtime.attach lists the program's own assembly" \
		"$(jq -r 'select(.event == "runtime.attach") | .assemblies[].name' "$f" | grep -cx Attach)" 1
	check_trace "$OUT/re$v.jsonl"
	expect "$n: the trace after a re-attach: runtime.init, runtime.attach ... runtime.detach" \
		"$(jq -r .event "$OUT/re$v.jsonl" | sed -n '1p;2p;$p' | tr '\n' ' ')" "runtime.init runtime.attach runtime.detach "
	expect "$n: the trace after a re-attach starts at seq 1" "$(head -1 "$OUT/re$v.jsonl" | jq .seq)" 1
	expect "$n: the totals after a re-attach count that trace's exceptions only" \
		"$(tail -1 "$OUT/re$v.jsonl" | jq .totals.exceptions.caught)" "$(grep -c '"outcome":"caught"' "$OUT/re$v.jsonl")"
	expect "$n: the trace after a re-attach names no span or exception of the first" \
		"$(jq -s '(map(.span // empty) + map(select(.event == "exception.throw") | .exception.id)) as $known |
			[.[] | .parent, .error, .rethrow_of, .nested_in | numbers | select(($known | index(.)) == null)] | length' \
			"$OUT/re$v.jsonl")" 0
	expect "$n: runtime.init has the attach's options" "$(head -1 "$f" | jq -c '[.config.events, .config.output]')" \
		"[[\"exceptions\"],[\"file:$f\"]]"
	expect "$n: runtime.init says it was loaded by attach, with nothing left out" \
		"$(head -1 "$f" | jq -c '[.loaded, .not_enabled]')" '["attach",[]]'
	expect "$n: no record from before the attach" "$(jq -s --argjson t0 "$t0" 'map(select(.ts < $t0)) | length' "$f")" 0
	caught=$(sed -n 's/^done //p' "$OUT/net$v.stdout")
	summaries=$(jq -s 'map(select(.event == "exception.summary")) | length' "$f")
	[ "$summaries" -ge 5 ] && [ "$summaries" -lt "${caught:-0}" ] &&
		ok "$n: $summaries of the program's $caught exceptions traced: those after the attach" ||
		fail "$n: $summaries exception summaries for $caught exceptions"
	expect "$n: every traced exception was caught" \
		"$(jq -r 'select(.event == "exception.summary") | .outcome' "$f" | sort -u)" caught
	expect "$n: no exception.unhandled" "$(jqf "$f" 'select(.event == "exception.unhandled")')" ""

	# attach while 4 threads are inside exception dispatch all the time:
	# the stories the attach cut are left out, the rest are whole
	THREADS=4 start "busy$v" $prog
	p=$pid
	"$CLRTRACE" attach -o "file:$OUT/busy$v.jsonl" -e exceptions "$p" >/dev/null 2>"$OUT/busy$v.err"
	expect "$n: attach to 4 busy threads: exit status" "$?" 0
	for i in $(seq 100); do
		[ "$(grep -c '"exception.summary"' "$OUT/busy$v.jsonl" 2>/dev/null)" -ge 1000 ] && break
		sleep 0.1
	done
	"$CLRTRACE" detach "$p" >/dev/null 2>"$OUT/busydet$v.err"
	expect "$n: detach from 4 busy threads: exit status" "$?" 0
	expect "$n: detach from 4 busy threads: nothing on stderr" "$(cat "$OUT/busydet$v.err")" ""
	sleep 0.5
	stop "busy$v" "$job"
	expect "$n: 4 busy threads: the program ends normally" "$st" 0
	expect "$n: 4 busy threads: the program's output is as untraced" \
		"$(sed 's/[0-9][0-9]*/N/g' "$OUT/busy$v.stdout" | tr '\n' ' ')" "ready N done N "
	expect "$n: 4 busy threads: the trace ends with runtime.detach" "$(tail -1 "$OUT/busy$v.jsonl" | jq -r .event)" runtime.detach
	expect "$n: 4 busy threads: the program said nothing on stderr" "$(cat "$OUT/busy$v.stderr")" ""
	check_trace "$OUT/busy$v.jsonl"
	expect "$n: 4 busy threads: every traced exception caught or cut by the detach, none unhandled" \
		"$(jq -r 'select(.event | test("exception.summary|exception.unhandled")) | .outcome // .event' "$OUT/busy$v.jsonl" | grep -v '^unknown$' | sort -u)" caught

	# beside another main profiler (a copy of clrtrace under another name
	# stands for an APM agent, with only exceptions on): attach falls back to
	# notification mode, and both see the exceptions
	mkdir -p "$OUT/apm"
	cp "$top_builddir/libclrtrace.so" "$OUT/apm/libapm.so"
	start "apm$v" CORECLR_ENABLE_PROFILING=1 CORECLR_PROFILER="{94D19DC5-3374-47C3-9729-75E330DECA23}" \
		CORECLR_PROFILER_PATH="$OUT/apm/libapm.so" CLRTRACE_EVENTS=exceptions CLRTRACE_OUTPUT="file:$OUT/apm$v.jsonl" $prog
	p=$pid
	"$CLRTRACE" attach -o "file:$OUT/beside$v.jsonl" -e exceptions "$p" >"$OUT/beside$v.out" 2>"$OUT/beside$v.err"
	expect "$n: attach beside a main profiler: exit status" "$?" 0
	expect "$n: attach beside a main profiler: it says so" "$(cat "$OUT/beside$v.out" "$OUT/beside$v.err")" \
		"clrtrace: attached to pid $p (Attach, .NET $want) as a notification profiler, beside its main profiler"
	for i in $(seq 100); do
		[ "$(grep -c '"exception.summary"' "$OUT/beside$v.jsonl" 2>/dev/null)" -ge 3 ] && break
		sleep 0.1
	done
	"$CLRTRACE" detach "$p" >/dev/null 2>"$OUT/beside-det$v.err"
	expect "$n: detach of the notification profiler: exit status" "$?" 0
	stop "apm$v" "$job"
	expect "$n: beside a main profiler: the program ends normally" "$st" 0
	check_trace "$OUT/beside$v.jsonl"
	expect "$n: beside a main profiler: runtime.init says notification" \
		"$(head -1 "$OUT/beside$v.jsonl" | jq -c '[.loaded, .not_enabled]')" '["notification",[]]'
	[ "$(grep -c '"exception.summary"' "$OUT/beside$v.jsonl")" -ge 3 ] && [ "$(grep -c '"exception.summary"' "$OUT/apm$v.jsonl")" -ge 3 ] &&
		ok "$n: both profilers saw the exceptions" || fail "$n: the notification and the main profiler's summaries: $(grep -c '"exception.summary"' "$OUT/beside$v.jsonl") $(grep -c '"exception.summary"' "$OUT/apm$v.jsonl")"
	expect "$n: the main profiler's trace ends with its runtime.shutdown" "$(tail -1 "$OUT/apm$v.jsonl" | jq -r .event)" runtime.shutdown

	# run --beside-profiler: a notification profiler from the start
	rm -f "$OUT/rb$v.gate"
	"$CLRTRACE" run --beside-profiler -o "file:$OUT/rb$v.jsonl" -e exceptions -- $prog "$OUT/rb$v.gate" 1 >"$OUT/rb$v.out" 2>"$OUT/rb$v.err"
	expect "$n: run --beside-profiler: exit status" "$?" 0
	check_trace "$OUT/rb$v.jsonl"
	expect "$n: run --beside-profiler: runtime.init says notification" "$(head -1 "$OUT/rb$v.jsonl" | jq -r .loaded)" notification
	expect "$n: run --beside-profiler: one summary per caught exception" \
		"$(grep -c '"exception.summary"' "$OUT/rb$v.jsonl")" "$(sed -n 's/^done //p' "$OUT/rb$v.out")"

	# attach --duration: the CLI detaches by itself
	start "dur$v" $prog
	p=$pid
	"$CLRTRACE" attach --duration 1 -o "file:$OUT/dur$v.jsonl" -e exceptions "$p" >"$OUT/dur$v.out" 2>"$OUT/dur$v.err"
	expect "$n: attach --duration 1: exit status" "$?" 0
	expect "$n: attach --duration 1: it says both" "$(sed 's/ (.*//' "$OUT/dur$v.out" | tr '\n' ' ')" \
		"clrtrace: attached to pid $p clrtrace: detached from pid $p "
	stop "dur$v" "$job"
	expect "$n: attach --duration: the program ends normally" "$st" 0
	check_trace "$OUT/dur$v.jsonl"
	expect "$n: attach --duration: the trace ends with runtime.detach" "$(tail -1 "$OUT/dur$v.jsonl" | jq -r .event)" runtime.detach

	# a process that already has clrtrace as its main profiler
	start "main$v" "$CLRTRACE" run -o "file:$OUT/main$v.jsonl" -e exceptions -- $prog
	p=$pid
	expect "$n: ps shows clrtrace loaded in the traced program" \
		"$("$CLRTRACE" ps | awk -v p="$p" '$1 == p {print $3}')" yes
	"$CLRTRACE" attach "$p" 2>"$OUT/main$v.err"
	expect "$n: attach to a traced process: exit status" "$?" 1
	one_line "$n: attach to a traced process" "$OUT/main$v.err" \
		"^clrtrace: attach: pid $p: the runtime refused: 0x8013136A CORPROF_E_PROFILER_ALREADY_ACTIVE: .*\\(clrtrace itself"
	"$CLRTRACE" detach "$p" 2>"$OUT/main-det$v.err"
	expect "$n: detach from a process traced by run: exit status" "$?" 1
	one_line "$n: detach from a process traced by run" "$OUT/main-det$v.err" "^clrtrace: detach: pid $p: clrtrace there was not loaded by 'clrtrace attach'"
	stop "main$v" "$job"
	expect "$n: the traced program ends normally" "$st" 0
	check_trace "$OUT/main$v.jsonl"
	expect "$n: runtime.init of the main profiler says startup" \
		"$(head -1 "$OUT/main$v.jsonl" | jq -c '[.loaded, .not_enabled]')" '["startup",[]]'
	expect "$n: the trace goes on after the refused attach: one summary per caught exception" \
		"$(jq -r 'select(.event == "exception.summary") | .outcome' "$OUT/main$v.jsonl" | sort -u)" caught
done

# a program in its own mount namespace with its own /tmp (a container's
# case): the socket is reached through /proc/PID/root, and a long TMPDIR
# makes that path too long for a socket address (connected through an fd)
if [ "$(id -u)" = 0 ] && unshare -m --propagation private true 2>/dev/null; then
	prog=$(program_cmd Attach 10)
	long=/tmp/clrtrace-attach-long-temporary-directory-name-for-a-socket # the runtime's socket path stays within 107 bytes, not /proc/PID/root's
	# the source and build trees stay visible when they live under /tmp
	# itself (a clone there): bound back into the new /tmp from a view of
	# the old one
	keep=$(mktemp -d /run/clrtrace-ns.XXXXXX) || die "no directory under /run"
	start ns unshare -m --propagation private sh -c \
		'mount --bind /tmp "$1" && mount -t tmpfs tmpfs /tmp && mkdir -p "$0" &&
		for d in "$2" "$3"; do case "$d" in /tmp/*) mkdir -p "$d" && mount --bind "$1${d#/tmp}" "$d" || exit 1 ;; esac; done &&
		shift 3 && TMPDIR="$0" exec "$@"' "$long" "$keep" "$top_srcdir" "$top_builddir" $prog
	p=$pid
	[ ! -e "$long" ] && ls "/proc/$p/root$long"/dotnet-diagnostic-"$p"-*-socket >/dev/null 2>&1 &&
		ok "namespace: the socket is visible only through /proc/$p/root" || fail "namespace: the setup is broken"
	expect "namespace: ps lists the program" "$("$CLRTRACE" ps | awk -v p="$p" '$1 == p {print $2, $4}')" "$(rt_version 10) Attach"
	"$CLRTRACE" attach -o file:/tmp/ns.jsonl "$p" >"$OUT/ns.out" 2>"$OUT/ns.err"
	expect "namespace: attach exit status" "$?" 0
	expect "namespace: attach says nothing on stderr" "$(cat "$OUT/ns.err")" ""
	for i in $(seq 100); do
		grep -q '"exception.summary"' "/proc/$p/root/tmp/ns.jsonl" 2>/dev/null && break
		sleep 0.1
	done
	grep -q '"exception.summary"' "/proc/$p/root/tmp/ns.jsonl" 2>/dev/null &&
		ok "namespace: the trace is written inside the namespace's /tmp" || fail "namespace: no trace in /proc/$p/root/tmp"
	stop ns "$job"
	expect "namespace: the program ends normally" "$st" 0
	rmdir "$keep" 2>/dev/null
else
	echo "note: not root or no unshare: the mount-namespace case is not tested"
fi

# root attaches to a process of another user; that user's ps cannot query
# root's process and says why
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null 2>&1 && id nobody >/dev/null 2>&1; then
	dir=$(mktemp -d /tmp/clrtrace-attach.XXXXXX) || die "mktemp"
	trap 'for p in $PIDS; do kill "$p" 2>/dev/null; done; rm -rf "$dir"' EXIT
	dll=$(build_program Attach)
	cp -r "$(dirname "$dll")" "$dir/bin" && cp "$top_builddir/libclrtrace.so" "$top_builddir/clrtrace" "$dir/" || die "copy"
	mkdir "$dir/out" && chmod 1777 "$dir/out" && chmod -R a+rX "$dir"
	start other DOTNET_ROOT="$(dirname "$(readlink -f "$(command -v dotnet)")")" HOME="$dir" \
		setpriv --reuid=nobody --regid=nogroup --clear-groups dotnet "$dir/bin/Attach.dll"
	p=$pid other=$job
	"$CLRTRACE" attach --library "$dir/libclrtrace.so" -o "file:$dir/out/t.jsonl" -e exceptions "$p" >/dev/null 2>"$OUT/other.err"
	expect "another user's process: root attaches (exit status)" "$?" 0
	expect "another user's process: nothing on stderr" "$(cat "$OUT/other.err")" ""
	for i in $(seq 100); do grep -q '"exception.summary"' "$dir/out/t.jsonl" 2>/dev/null && break; sleep 0.1; done
	expect "another user's process: the trace is the process's user's" "$(stat -c %U "$dir/out/t.jsonl" 2>/dev/null)" nobody
	# root's own program, seen by nobody
	start mine $(program_cmd Attach 10)
	mine=$pid
	setpriv --reuid=nobody --regid=nogroup --clear-groups "$dir/clrtrace" ps >"$OUT/nobody-ps.out" 2>&1
	expect "ps as another user: exit status" "$?" 0
	expect "ps as another user: root's process is listed with the reason" \
		"$(awk -v p="$mine" '$1 == p' "$OUT/nobody-ps.out" | sed 's/^[^(]*(//')" \
		"cannot query: permission denied (the process runs as uid 0))"
	expect "ps as another user: its own process is queried" \
		"$(awk -v p="$p" '$1 == p {print $4}' "$OUT/nobody-ps.out")" Attach
	stop other "$other"
	expect "another user's process: it ends normally" "$st" 0
	touch "$OUT/mine.gate"
	check_trace "$dir/out/t.jsonl"
else
	echo "note: not root, or no setpriv or user nobody: another user's process is not tested"
fi

# no such process
"$CLRTRACE" attach 999999999 2>"$OUT/nopid.err"
expect "missing pid: exit status" "$?" 1
one_line "missing pid" "$OUT/nopid.err" "^clrtrace: attach: pid 999999999: no such process$"

# a process without a socket
sleep 300 &
PIDS="$PIDS $!"
p=$!
"$CLRTRACE" attach "$p" 2>"$OUT/nosock.err"
expect "no socket: exit status" "$?" 1
one_line "no socket" "$OUT/nosock.err" "^clrtrace: attach: pid $p: no diagnostics socket "

# a dead socket: the right name, nobody listening
mkdir -p "$OUT/dead"
TMPDIR="$OUT/dead" sleep 300 &
PIDS="$PIDS $!"
p=$!
sleep 0.2
stat=$(cat "/proc/$p/stat")
set -- ${stat##*) }
python3 -c 'import socket, sys; s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.close()' \
	"$OUT/dead/dotnet-diagnostic-$p-${20}-socket" || die "could not make a dead socket"
"$CLRTRACE" attach "$p" 2>"$OUT/dead.err"
expect "dead socket: exit status" "$?" 1
one_line "dead socket" "$OUT/dead.err" "^clrtrace: attach: pid $p: its diagnostics socket is dead"
"$CLRTRACE" ps >"$OUT/ps-dead.out" 2>&1
expect "ps: a dead socket is listed with its reason" \
	"$(awk -v p="$p" '$1 == p' "$OUT/ps-dead.out" | sed 's/^[^(]*(//')" "cannot query: its diagnostics socket is dead (nobody listens on it))"

# a fake runtime on the socket of a non-.NET process: every malformed
# answer is one clear line, never a crash or a wild read (the string counts
# are past the end or overflow a size when doubled)
fake_server() { # MODE: answer every command so (exec: the job is python, which kill ends)
	exec python3 -c '
import socket, struct, sys, os
path, mode = sys.argv[1], sys.argv[2]
srv = socket.socket(socket.AF_UNIX); srv.bind(path); srv.listen(8)
print("listening", flush=True)
held = []
def head(size, cid=0): return b"DOTNET_IPC_V1\0" + struct.pack("<HBBH", size, 0xFF, cid, 0)
def string(n, units=b""): return struct.pack("<I", n) + units
while True:
    c, _ = srv.accept()
    h = c.recv(20)
    if len(h) == 20:
        size = struct.unpack("<H", h[14:16])[0]
        left = size - 20
        while left > 0:
            got = c.recv(left)
            if not got: break
            left -= len(got)
    if mode == "hugestring":
        body = struct.pack("<IQ", 0, 42) + bytes(16) + string(0x7FFFFFFF, b"a\0")
    elif mode == "overflow":
        body = struct.pack("<IQ", 0, 42) + bytes(16) + string(0xFFFFFFFF, b"a\0b\0")
    elif mode == "short":
        body = struct.pack("<I", 0)
    elif mode == "badmagic":
        c.sendall(b"DOTNET_IPC_V2\0" + struct.pack("<HBBH", 20, 0xFF, 0, 0)); c.close(); continue
    elif mode == "tinysize":
        c.sendall(head(3)); c.close(); continue
    elif mode == "hangup":
        c.close(); continue
    elif mode == "silent":
        held.append(c); continue  # kept open, never answered
    elif mode == "unknown":
        c.sendall(head(24, 0xFF) + struct.pack("<I", 0x80131385)); c.close(); continue
    c.sendall(head(20 + len(body)) + body); c.close()
' "$FAKE_SOCKET" "$1"
}
mkdir -p "$OUT/fake"
TMPDIR="$OUT/fake" sleep 300 &
PIDS="$PIDS $!"
p=$!
sleep 0.2
stat=$(cat "/proc/$p/stat")
set -- ${stat##*) }
FAKE_SOCKET="$OUT/fake/dotnet-diagnostic-$p-${20}-socket"
for mode in hugestring:malformed overflow:malformed short:malformed badmagic:malformed tinysize:malformed \
	hangup:"closed the connection without an answer" silent:"did not answer in time" \
	unknown:"0x80131385 DS_IPC_E_UNKNOWN_COMMAND"; do
	rm -f "$FAKE_SOCKET"
	fake_server "${mode%%:*}" >"$OUT/fake.out" 2>&1 &
	srv=$!
	for i in $(seq 50); do grep -q listening "$OUT/fake.out" && break; sleep 0.1; done
	"$CLRTRACE" ps >"$OUT/fake-ps.out" 2>&1
	expect "fake runtime, ${mode%%:*}: ps exit status" "$?" 0
	awk -v p="$p" '$1 == p' "$OUT/fake-ps.out" | grep -q "cannot query: .*${mode#*:}" &&
		ok "fake runtime, ${mode%%:*}: ps says: $(awk -v p="$p" '$1 == p' "$OUT/fake-ps.out" | sed 's/^[^(]*(//')" ||
		fail "fake runtime, ${mode%%:*}: ps: $(cat "$OUT/fake-ps.out")"
	"$CLRTRACE" attach --timeout 1 "$p" 2>"$OUT/fake-attach.err"
	expect "fake runtime, ${mode%%:*}: attach exit status" "$?" 1
	one_line "fake runtime, ${mode%%:*}: attach" "$OUT/fake-attach.err" "^clrtrace: attach: pid $p: .*${mode#*:}"
	kill "$srv"; wait "$srv" 2>/dev/null
done

# env --beside-profiler: the notification variables, after those already
# there, and no CORECLR_PROFILER
CORECLR_NOTIFICATION_PROFILERS="/opt/apm.so={11111111-2222-3333-4444-555555555555}" \
	"$CLRTRACE" env --beside-profiler -e exceptions >"$OUT/envb.out" 2>&1
expect "env --beside-profiler: exit status" "$?" 0
expect "env --beside-profiler: the notification list, ours after the one there" \
	"$(sed -n "s/^export CORECLR_NOTIFICATION_PROFILERS=//p" "$OUT/envb.out")" \
	"'/opt/apm.so={11111111-2222-3333-4444-555555555555};$(readlink -f "$top_builddir/libclrtrace.so")={94D19DC5-3374-47C3-9729-75E330DECA24};'"
expect "env --beside-profiler: notification profilers enabled, CORECLR_PROFILER left alone" \
	"$(grep -c '^export CORECLR_ENABLE_NOTIFICATION_PROFILERS=.1.$' "$OUT/envb.out") $(grep -c '^export CORECLR_PROFILER' "$OUT/envb.out")" "1 0"

# usage errors; a category the runtime allows only at startup
"$CLRTRACE" attach -e +transitions 1 2>"$OUT/usage3.err"
expect "attach -e +transitions: exit status" "$?" 2
one_line "attach -e +transitions" "$OUT/usage3.err" \
	"^clrtrace: attach: --events: transitions can be traced only from the start \\('clrtrace run'\\), not after attach$"
"$CLRTRACE" attach 2>"$OUT/usage.err"
expect "attach without a pid: exit status" "$?" 2
one_line "attach without a pid" "$OUT/usage.err" "^clrtrace: attach: which process\\?"
"$CLRTRACE" attach 12x 2>"$OUT/usage2.err"
expect "attach to a bad pid: exit status" "$?" 2
one_line "attach to a bad pid" "$OUT/usage2.err" "^clrtrace: attach: '12x' is not a process id$"
finish
