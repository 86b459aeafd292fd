#!/bin/sh
# Hostile input never costs memory beyond a fixed bound nor gives a wrapped
# number (issue 27): a sparse 1 GiB FILE.<pid>.pending is refused unread, a
# pending record's seq beyond what the profiler gives is damage, not loss;
# trace.dropped counts that overflow, a span at the smallest timestamp, a
# duration of INT64_MAX, an empty trace; view, stats and check of a trace
# with many threads and processes, stats and export of one with many
# threads and loads.  Each gives one line of warning at most.
# `ulimit -v` makes a regression fail here rather than eat the machine.
. "${top_srcdir:-.}/tests/lib.sh"
command -v python3 >/dev/null || die "python3 is needed (run setup.sh)"

# limited KIB CMD...: CMD with at most KIB KiB of address space (not
# under ASan, which reserves terabytes of shadow address space: there the
# sanitizer's own checks stand guard)
if [ -n "${CLRTRACE_SANITIZERS:-}" ]; then
	limited() { shift; "$@"; }
else
	limited() { (ulimit -v "$1" && shift && exec "$@"); }
fi
# mkpending FILE NBUFS BUFSIZE FILESIZE SEQ...: a dead writer's (pid 4242)
# mirror, sparse, with one record per SEQ in buffer 0
mkpending() {
	python3 - "$@" <<'PY'
import struct, sys
path, n_bufs, buf_size, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
data = b""
for s in sys.argv[5:]:
    line = b'{"v":1,"seq":%d,"ts":1795332222797274262,"pid":4242,"tid":4242,"event":"thread.create","phase":"instant"}\n' % int(s)
    rec = struct.pack("<QIHhiI", int(s), len(line), 0, 0, 4242, 0x43524543) + line
    data += rec + b"\0" * (-len(rec) % 8)
used = [0] * 256
used[0] = len(data)
with open(path, "wb") as f:
    f.write(b"CLRTPND4" + struct.pack("<iIQ", 4242, n_bufs, buf_size) + struct.pack("<256Q", *used))
    f.seek(4096)
    f.write(data)
    f.truncate(size)
PY
}
# written SEQ...: the trace's lines of pid 4242 that the writer wrote
written() {
	for s in "$@"; do
		printf '{"v":1,"seq":%s,"ts":1795332222797274262,"pid":4242,"tid":4242,"event":"thread.create","phase":"instant"}\n' "$s"
	done
}
# recover_case NAME: recover $t (with 200 MB of address space), output in $OUT/NAME.err
recover_case() {
	limited 200000 "$CLRTRACE" recover "$t" >"$OUT/$1.out" 2>"$OUT/$1.err"
}
t="$OUT/t.jsonl"

# 1. a sparse 1 GiB pending file (64 times the largest real one): refused
# unread, one line, the file kept
: >"$t"
mkpending "$t.4242.pending" 256 4194304 1073741824 1
recover_case sparse
expect "recover, sparse 1 GiB pending file: exit 1" "$?" 1
expect "recover, sparse 1 GiB: one line" "$(grep -c . "$OUT/sparse.err")" 1
grep -q '4242.pending: not a clrtrace pending file: 1073741824 bytes, larger than any' "$OUT/sparse.err" &&
	ok "recover says it is larger than any pending file" || fail "recover said: $(cat "$OUT/sparse.err")"
[ -e "$t.4242.pending" ] && [ ! -s "$t" ] && ok "the file is kept, the trace untouched" || fail "sparse: file or trace changed"
rm -f "$t.4242.pending"

# 2. the largest real size (256 buffers of 64 KiB): only what is in use is read
mkpending "$t.4242.pending" 256 65536 $((4096 + 256 * 65536)) 1 2
recover_case full
expect "recover, a full-size pending file: exit 0" "$?" 0
expect "its two records are merged" "$(jq -c .seq "$t" | tr '\n' ' ')" "1 2 "
[ ! -e "$t.4242.pending" ] && ok "and the file is gone" || fail "full-size file left"

# 3. a record with seq 2^64-1 (no seq the profiler gives): damage, skipped;
# before, the trace.dropped after it had seq 0
written 1 2 >"$t"
mkpending "$t.4242.pending" 256 65536 $((4096 + 65536)) 3 18446744073709551615
recover_case seq-max
expect "recover, seq 2^64-1: exit 1" "$?" 1
expect "seq 2^64-1: one line (besides whose records were merged)" "$(grep pending: "$OUT/seq-max.err" | grep -vc "records\? merged (pid")" 1
grep -q '4242.pending: damaged records skipped' "$OUT/seq-max.err" && ok "seq 2^64-1: said to be damaged" ||
	fail "seq 2^64-1: $(cat "$OUT/seq-max.err")"
expect "seq 2^64-1: the good record merged, no trace.dropped" "$(jq -c '[.seq, .event]' "$t" | tr '\n' ' ')" \
	'[1,"thread.create"] [2,"thread.create"] [3,"thread.create"] '

# 4. seq 10^15 after 3: a jump no writer can lose; before, a trace.dropped
# of 10^15 lost records
written 1 2 >"$t"
mkpending "$t.4242.pending" 256 65536 $((4096 + 65536)) 3 1000000000000000
recover_case seq-jump
expect "recover, seq 10^15: exit 1" "$?" 1
expect "seq 10^15: one line (besides whose records were merged)" "$(grep pending: "$OUT/seq-jump.err" | grep -vc "records\? merged (pid")" 1
grep -q '4242.pending: seq jumps from 3 to 1000000000000000, more than a process can lose' "$OUT/seq-jump.err" &&
	ok "seq 10^15: the jump is said" || fail "seq 10^15: $(cat "$OUT/seq-jump.err")"
expect "seq 10^15: records merged, no trace.dropped" "$(jq -c .event "$t" | grep -c dropped)" 0
# a real loss (records 4 and 5 numbered, never written) is still told
written 1 2 >"$t"
mkpending "$t.4242.pending" 256 65536 $((4096 + 65536)) 3 6
recover_case seq-lost
expect "a real gap: trace.dropped of 2 after seq 6" "$(jq -c 'select(.event=="trace.dropped") | [.seq, .count]' "$t")" "[7,2]"

# 5. an empty trace (a NULL mapping once): the records are merged
: >"$t"
mkpending "$t.4242.pending" 256 65536 $((4096 + 65536)) 1 2
recover_case empty
expect "recover into an empty trace: exit 0" "$?" 0
expect "its records are merged" "$(jq -c .seq "$t" | tr '\n' ' ')" "1 2 "

# 6. numbers in a trace: two trace.dropped of 2^63-1 (stats said -2), a span
# at the smallest timestamp (export overflowed), a duration of INT64_MAX
# (view read past a table); the inputs are in the fuzz corpus too
C="$top_srcdir/tests/fuzz/corpus"
"$CLRTRACE" stats --json "$C/regress-dropped-overflow" >"$OUT/drop.json" 2>"$OUT/drop.err"
expect "stats, dropped counts past INT64_MAX: exit 1" "$?" 1
grep -q '"records": 9223372036854775807' "$OUT/drop.json" && ok "stats: the total is capped, not wrapped" ||
	fail "stats: $(jq -c .dropped "$OUT/drop.json")"
expect "stats: one warning" "$(grep -c . "$OUT/drop.err")" 1
grep -q 'regress-dropped-overflow:2: .*overflow' "$OUT/drop.err" && ok "stats names the line" || fail "stats: $(cat "$OUT/drop.err")"
"$CLRTRACE" stats "$C/regress-dropped-overflow" 2>/dev/null | grep -q -- '-2' && fail "stats text shows a wrapped total" ||
	ok "stats text: no wrapped total"
"$CLRTRACE" export --format chrome "$C/regress-span-min-ts" >"$OUT/span.json" 2>"$OUT/span.err"
expect "export, a span at the smallest timestamp: exit 1" "$?" 1
expect "export: one warning" "$(grep -c . "$OUT/span.err")" 1
jq -e '[.traceEvents[] | select(.ts != null and .ts < 0)] | length == 0' "$OUT/span.json" >/dev/null &&
	ok "export: no negative (wrapped) time" || fail "export: $(head -c 300 "$OUT/span.json")"
"$CLRTRACE" view --color=never "$C/regress-dur-max" >"$OUT/dur.out" 2>"$OUT/dur.err"
expect "view, a duration of INT64_MAX: exit 1" "$?" 1
expect "view: one warning" "$(grep -c . "$OUT/dur.err")" 1
grep -q 'regress-dur-max:1: .*dur_ns' "$OUT/dur.err" && ok "view names the line" || fail "view: $(cat "$OUT/dur.err")"

# 7. many threads, many processes: view, stats and check within a bound
# that one thread's or process's worth of state per record would pass
gen() { # gen threads|pids N
	awk -v mode="$1" -v n="$2" 'BEGIN { for (i = 1; i <= n; i++) {
		pid = mode == "pids" ? 1000 + i : 1000; tid = 100000 + i; seq = mode == "pids" ? 1 : i
		printf "{\"v\":1,\"seq\":%d,\"ts\":%d,\"pid\":%d,\"tid\":%d,\"thread\":\"0x%x\",\"event\":\"thread.create\",\"phase\":\"instant\",\"span\":null,\"parent\":null,\"depth\":0,\"target\":{\"id\":\"0x%x\",\"os_tid\":%d}}\n", seq, 1795332222797274262 + i, pid, tid, 1048576 + i, 1048576 + i, tid } }'
}
for mode in threads pids; do
	gen $mode 200000 >"$OUT/$mode.jsonl"
	for c in view stats check; do
		limited 400000 "$CLRTRACE" $c "$OUT/$mode.jsonl" >"$OUT/$mode.$c.out" 2>"$OUT/$mode.$c.err"
		st=$?
		[ "$st" -le 1 ] && ! grep -qi 'memory' "$OUT/$mode.$c.err" && ok "$c of 200000 $mode in 400 MB" ||
			fail "$c of 200000 $mode: status $st, $(head -2 "$OUT/$mode.$c.err")"
	done
	expect "view of 200000 $mode: a header each" "$(grep -c '^--- pid' "$OUT/$mode.view.out")" 200000
done

# 8. the lists of stats and export's threads: 100000 threads, each with a
# load, in 60 MB of address space (they need about 25); a JSON object a
# thread and a load (stats) or room for 16 spans a thread (export) passed
# 100 MB
awk -v n=100000 'BEGIN { for (i = 1; i <= n; i++) {
	th = sprintf("0x%x", 1048576 + i); c = "\"pid\":1000,\"tid\":" 100000 + i ",\"thread\":\"" th "\",\"event\":"
	printf "{\"v\":1,\"seq\":%d,\"ts\":%d,%s\"thread.create\",\"phase\":\"instant\",\"target\":{\"id\":\"%s\",\"os_tid\":%d}}\n", 3 * i - 2, 1795332222797274262 + 3 * i, c, th, 100000 + i
	printf "{\"v\":1,\"seq\":%d,\"ts\":%d,%s\"assembly.load\",\"phase\":\"begin\",\"span\":%d,\"assembly\":{\"id\":\"0x7f00%x\"}}\n", 3 * i - 1, 1795332222797274262 + 3 * i + 1, c, i, i
	printf "{\"v\":1,\"seq\":%d,\"ts\":%d,%s\"assembly.load\",\"phase\":\"end\",\"span\":%d,\"dur_ns\":1000,\"assembly\":{\"id\":\"0x7f00%x\",\"name\":\"A%d\"},\"hr\":\"0x00000000\"}\n", 3 * i, 1795332222797274262 + 3 * i + 2, c, i, i, i } }' >"$OUT/loads.jsonl"
for c in stats "stats --json" "export --format chrome"; do
	f="$OUT/loads.$(echo "$c" | tr -c 'a-z\n' -)"
	# shellcheck disable=SC2086
	limited 60000 "$CLRTRACE" $c "$OUT/loads.jsonl" >"$f.out" 2>"$f.err"
	st=$?
	[ "$st" = 0 ] && [ ! -s "$f.err" ] && ok "$c of 100000 threads with a load each in 60 MB" ||
		fail "$c of 100000 threads with a load each: status $st, $(head -2 "$f.err")"
done
expect "stats: every thread and every load" "$(jq '[(.threads.list | length), (.loads | length)] | @text' "$OUT/loads.stats---json.out")" '"[100000,100000]"'
expect "stats text: every thread and every load" "$(grep -c '^  0x\|assembly  A' "$OUT/loads.stats.out")" 200000
finish
