#!/bin/sh
# bench/readers-memory.sh: peak resident size of the reading commands on
# traces with many threads and many processes, and of `recover` on a large
# sparse FILE.<pid>.pending.  A benchmark: it prints figures, never fails
# on them.  Usage: [BUILD=DIR] bench/readers-memory.sh [-n N] [-c CMDS]
#   -n N     threads (one process) and processes (one thread each); 1000000
#   -c CMDS  the reading commands to run, comma-separated (default all:
#            view,view --interleaved,stats,stats --json,check,export --format chrome)
# Inputs and outputs go to $BUILD/bench/out/readers-memory.
set -eu
srcdir=$(cd "$(dirname "$0")/.." && pwd)
. "$srcdir/bench/lib.sh"
N=1000000
CMDS="view,view --interleaved,stats,stats --json,check,export --format chrome"
while getopts n:c: o; do
	case $o in
	n) N=$OPTARG ;;
	c) CMDS=$OPTARG ;;
	*) echo "usage: $0 [-n N] [-c CMDS]" >&2; exit 2 ;;
	esac
done
find_build clrtrace
CLRTRACE=$BUILD/clrtrace
out="$BUILD/bench/out/readers-memory"
mkdir -p "$out"

# gen MODE N: MODE threads (one pid, N tids) or pids (N pids, one tid
# each); per thread a thread.create, then an assembly.load begin and end
# (what view holds back and stats and check pair up)
gen() {
	awk -v mode="$1" -v n="$2" 'BEGIN {
		ts = 1795332222797274262; seq = 0
		for (i = 1; i <= n; i++) {
			pid = mode == "pids" ? 1000 + i : 1000; tid = mode == "pids" ? 1000 + i : 100000 + i
			if (mode == "pids") seq = 0
			th = sprintf("0x%x", 1048576 + i)
			printf "{\"v\":1,\"seq\":%d,\"ts\":%d,\"pid\":%d,\"tid\":%d,\"thread\":\"%s\",\"event\":\"thread.create\",\"phase\":\"instant\",\"span\":null,\"parent\":null,\"depth\":0,\"target\":{\"id\":\"%s\",\"os_tid\":%d}}\n", ++seq, ts + 3 * i, pid, tid, th, th, tid
			printf "{\"v\":1,\"seq\":%d,\"ts\":%d,\"pid\":%d,\"tid\":%d,\"thread\":\"%s\",\"event\":\"assembly.load\",\"phase\":\"begin\",\"span\":%d,\"parent\":null,\"depth\":0,\"assembly\":{\"id\":\"0x7f00%x\"}}\n", ++seq, ts + 3 * i + 1, pid, tid, th, i, i
			printf "{\"v\":1,\"seq\":%d,\"ts\":%d,\"pid\":%d,\"tid\":%d,\"thread\":\"%s\",\"event\":\"assembly.load\",\"phase\":\"end\",\"span\":%d,\"parent\":null,\"depth\":0,\"dur_ns\":1000,\"assembly\":{\"id\":\"0x7f00%x\",\"name\":\"A%d\"},\"hr\":\"0x00000000\"}\n", ++seq, ts + 3 * i + 2, pid, tid, th, i, i, i
		}
	}'
}
# rss CMD...: "peak-KiB seconds" of CMD (output discarded)
rss() {
	/usr/bin/time -f '%M %e' -o "$out/time" "$@" >/dev/null 2>&1 || :
	tail -1 "$out/time"
}

for mode in threads pids; do
	t="$out/$mode.jsonl"
	[ -s "$t" ] && [ "$(wc -l <"$t")" = $((3 * N)) ] || gen $mode "$N" >"$t"
	printf '%s: %s records, %s MB\n' "$mode" $((3 * N)) $(($(stat -L -c %s "$t") / 1000000))
	old_ifs=$IFS
	IFS=,
	# shellcheck disable=SC2086
	set -- $CMDS
	IFS=$old_ifs
	for c; do
		# shellcheck disable=SC2086
		m=$(rss "$CLRTRACE" $c "$t")
		printf '  %-24s %8d KiB peak RSS  %6.1f s  %6.0f bytes/thread\n' "$c" ${m% *} ${m#* } "$(echo "${m% *} * 1024 / $N" | bc -l)"
	done
done

# a sparse 1 GiB FILE.<pid>.pending: its header says 256 buffers of 4 MiB (all
# the file), one
# record in use
p="$out/sparse.jsonl"
rm -f "$p" "$p".*.pending
: >"$p"
python3 - "$p.4242.pending" <<'PY'
import struct, sys
f = open(sys.argv[1], "wb")
hdr = b"CLRTPND4" + struct.pack("<iIQ", 4242, 256, ((1 << 30) - 4096) // 256)
line = b'{"v":1,"seq":1,"ts":1,"pid":4242,"tid":4242,"event":"thread.create","phase":"instant"}\n'
used = [0] * 256
used[0] = (24 + len(line) + 7) & ~7
hdr += struct.pack("<256Q", *used)
f.write(hdr)
f.seek(4096)
f.write(struct.pack("<QIHhiI", 1, len(line), 0, 0, 4242, 0x43524543) + line)
f.truncate(1 << 30)
PY
set -- $(rss "$CLRTRACE" recover "$p")
printf 'recover, sparse 1 GiB pending file: %8d KiB peak RSS  %6.1f s\n' "$1" "$2"
