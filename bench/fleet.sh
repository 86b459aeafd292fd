#!/bin/bash
# bench/fleet.sh: how many records one host gets through
# systemd-journal-upload to a systemd-journal-remote collector, at the
# journal's default rate limits.  Needs root (network and mount namespaces,
# as tests/fleet.sh).  Prints figures; never fails on them.
#
#   BUILD=DIR bench/fleet.sh [-n STORM_CALLS] [-r STEADY_ROUNDS]
#
# One host namespace with its own journald runs tests/programs/Journal twice,
# file and journal outputs side by side: a storm ("burst N" with
# -e +transitions: 2N debug records in well under a second) and a steady
# stream ("threads R": about 10 records per 20 ms round).  Then one upload
# (--follow=no), timed; the collector's files are counted per run against the
# file copies, and the sink's own loss reports are shown.
set -u
srcdir=$(cd "$(dirname "$0")/.." && pwd)
. "$srcdir/bench/lib.sh"
N=20000
ROUNDS=1500
while getopts n:r: o; do
	case $o in
	n) N=$OPTARG ;;
	r) ROUNDS=$OPTARG ;;
	*) die "usage: $0 [-n STORM_CALLS] [-r STEADY_ROUNDS]" ;;
	esac
done
[ "$(id -u)" = 0 ] || die "needs root (network namespaces)"
for b in /lib/systemd/systemd-journal-remote /lib/systemd/systemd-journal-upload /lib/systemd/systemd-journald; do
	[ -x "$b" ] || die "$b is missing (Debian package systemd-journal-remote)"
done
find_build libclrtrace.so
OUT=$BUILD/bench/out/fleet
rm -rf "$OUT"
mkdir -p "$OUT/remote" "$OUT/src"
export CLRTRACE_LIBRARY=$BUILD/libclrtrace.so DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1
cp -r "$srcdir/tests/programs/Journal" "$srcdir/tests/programs/Directory.Build.props" \
	"$srcdir/tests/programs/NuGet.config" "$OUT/src/"
dotnet build -c Release -o "$OUT/bin" "$OUT/src/Journal/Journal.csproj" >"$OUT/build.log" 2>&1 ||
	die "could not build Journal ($OUT/build.log)"

NS_C=ctbench$$c NS_H=ctbench$$h NET=10.213.1
REMOTE_PID=
cleanup() {
	local ns p
	[ -n "$REMOTE_PID" ] && kill "$REMOTE_PID" 2>/dev/null
	for ns in $NS_H $NS_C; do
		for p in $(ip netns pids "$ns" 2>/dev/null); do kill -KILL "$p" 2>/dev/null; done
	done
	[ -n "$REMOTE_PID" ] && wait "$REMOTE_PID" 2>/dev/null
	ip netns del "$NS_H" 2>/dev/null
	ip netns del "$NS_C" 2>/dev/null
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
ip netns add "$NS_C" && ip netns add "$NS_H" || die "cannot make network namespaces"
ip -n "$NS_C" link set lo up
ip -n "$NS_H" link set lo up
ip -n "$NS_H" link add eth0 type veth peer name h1 netns "$NS_C" || die "cannot make a veth pair"
ip -n "$NS_C" addr add "$NET.1/24" dev h1
ip -n "$NS_H" addr add "$NET.11/24" dev eth0
ip -n "$NS_C" link set h1 up
ip -n "$NS_H" link set eth0 up
ip netns exec "$NS_C" /lib/systemd/systemd-journal-remote --listen-http="$NET.1:19532" \
	--output="$OUT/remote/" >"$OUT/remote.log" 2>&1 &
REMOTE_PID=$!
for _ in $(seq 100); do
	ip netns exec "$NS_C" ss -Hltn "sport = :19532" 2>/dev/null | grep -q . && break
	sleep 0.1
done

# the host: a private journald, the two runs, one timed upload
export OUT NET N ROUNDS CLRTRACE=$BUILD/clrtrace DLL=$OUT/bin/Journal.dll
timeout -k 10 600 nsenter --net="/run/netns/$NS_H" unshare -m -u --propagation private bash -c '
	set -u
	echo clrtrace-bench-host >/proc/sys/kernel/hostname
	for d in /run/systemd/journal /run/log/journal /var/log/journal; do
		[ -d "$d" ] && mount -t tmpfs -o mode=0755 tmpfs "$d"
	done
	/lib/systemd/systemd-journald >"$OUT/journald.log" 2>&1 &
	jd=$!
	for _ in $(seq 100); do
		[ -S /run/systemd/journal/socket ] && journalctl --sync >/dev/null 2>&1 && break
		sleep 0.05
	done
	t0=$(date +%s.%N)
	"$CLRTRACE" run -o "file:$OUT/storm.jsonl" -o journal --ident bench-storm -e +transitions -- \
		dotnet "$DLL" burst "$N" >"$OUT/storm.stdout" 2>"$OUT/storm.stderr"
	t1=$(date +%s.%N)
	"$CLRTRACE" run -o "file:$OUT/steady.jsonl" -o journal --ident bench-steady -- \
		dotnet "$DLL" threads "$ROUNDS" >"$OUT/steady.stdout" 2>"$OUT/steady.stderr"
	t2=$(date +%s.%N)
	journalctl --sync
	echo "$t0 $t1 $t2" >"$OUT/times"
	journalctl -q -o cat | wc -l >"$OUT/local-entries"
	u0=$(date +%s.%N)
	timeout -k 5 300 /lib/systemd/systemd-journal-upload --url="http://$NET.1:19532" --follow=no \
		--save-state="$OUT/upload.state" >"$OUT/upload.log" 2>&1
	echo "$? $u0 $(date +%s.%N)" >"$OUT/upload"
	kill "$jd"; wait "$jd"
' || die "the host failed"
kill "$REMOTE_PID"
wait "$REMOTE_PID" 2>/dev/null
REMOTE_PID=

rj() { journalctl -q --no-pager -D "$OUT/remote" "$@"; }
read -r t0 t1 t2 <"$OUT/times"
read -r urc u0 u1 <"$OUT/upload"
entries=$(rj -o cat | wc -l)
echo "upload: exit $urc, $entries entries (host journal: $(cat "$OUT/local-entries")) in" \
	"$(echo "$u1 - $u0" | bc -l | xargs printf %.2f) s:" \
	"$(echo "$entries / ($u1 - $u0)" | bc -l | xargs printf %.0f) entries/s"
for run in storm steady; do
	file=$(wc -l <"$OUT/$run.jsonl")
	kept=$(rj -o cat -t "bench-$run" | wc -l)
	if [ "$run" = storm ]; then s=$(echo "$t1 - $t0" | bc -l); else s=$(echo "$t2 - $t1" | bc -l); fi
	echo "$run: $file records in $(printf %.2f "$s") s ($(echo "$file / $s" | bc -l | xargs printf %.0f)/s)," \
		"the collector kept $kept (records + the sink's own loss reports)"
	echo "  records kept: $(rj -o json -t "bench-$run" | jq -r 'select(.CLRTRACE_EVENT != "trace.dropped") | 1' | wc -l)"
	rj -o json -t "bench-$run" CLRTRACE_EVENT=trace.dropped |
		jq -r '"  trace.dropped in the journal: " + .CLRTRACE_COUNT + " (" + .CLRTRACE_REASON + ")"' 2>/dev/null
	grep '^clrtrace:' "$OUT/$run.stderr" | sed 's/^/  stderr: /'
	jq -r 'select(.event == "runtime.shutdown") | "  runtime.shutdown totals: \(.totals)"' "$OUT/$run.jsonl"
	rj -o json -t "bench-$run" | jq -r .PRIORITY | sort | uniq -c |
		awk '{ printf "  kept at PRIORITY %s: %s\n", $2, $1 }'
done
