#!/bin/bash
# A fleet on one machine: two "hosts" (network, mount and UTS namespaces made
# here, each with its own systemd-journald and hostname) run a traced .NET
# program with the journal sink, and systemd-journal-upload sends each
# host's journal to one systemd-journal-remote in a third namespace (host 1
# over plain HTTP, host 2 over HTTPS with certificates made here).  On the
# collector, journalctl -D and clrtrace --journal-dir find every host's
# records by _HOSTNAME, CLRTRACE_EVENT, CLRTRACE_EXCEPTION_TYPE, -p crit and
# MESSAGE_ID, and CLRTRACE_JSON is the file sink's line.  Each host also
# reads its own journal with clrtrace --journal.  Traffic stays on the
# test's veth pairs and bridge (10.213.0.0/24 exists only inside them).
#
# FLEET_HOST=N (internal): run as host N inside its namespaces.
FLEET_NET=10.213.0
FLEET_PORT=19532
REMOTE_BIN=/lib/systemd/systemd-journal-remote
UPLOAD_BIN=/lib/systemd/systemd-journal-upload

# --- one host: its own journald, a traced program, an upload ----------------
if [ -n "${FLEET_HOST:-}" ]; then
	set -u
	OUT=$FLEET_OUT/h$FLEET_HOST
	CLRTRACE=$FLEET_CLRTRACE
	mkdir -p "$OUT"
	die() { echo "host $FLEET_HOST: $*" >&2; exit 1; }
	skip() { die "$*"; }
	echo "clrtrace-fleet-h$FLEET_HOST" >/proc/sys/kernel/hostname || die "cannot set the host name"
	. "$top_srcdir/tests/journald.sh"
	[ "$journald_private" = 1 ] || die "no private journald"
	journald_start
	# a reader following the journal from before the runs (view -f --journal)
	# (instants only: a span's begin and end are shown apart when the
	# follower catches up between them)
	timeout -k 5 200 "$CLRTRACE" view -f --color=never -e "$FLEET_INSTANTS" --journal --identifier "$FLEET_ID" \
		>"$OUT/follow-view.txt" 2>"$OUT/follow-view.err" &
	follow_pid=$!
	# runs in the same order as the file copy: one run that catches 3,
	# one that dies of an unhandled exception
	"$CLRTRACE" run -o "file:$OUT/throw.jsonl" -o journal --ident "$FLEET_ID" -- \
		dotnet "$FLEET_DLL" throw 3 >"$OUT/throw.stdout" 2>"$OUT/throw.stderr"
	"$CLRTRACE" run -o "file:$OUT/unh.jsonl" -o journal --ident "$FLEET_ID" -- \
		dotnet "$FLEET_DLL" unhandled >"$OUT/unh.stdout" 2>"$OUT/unh.stderr"
	journald_sync
	# the follower has shown every record once it stops growing (at most 20 s)
	last=-1
	for _ in $(seq 40); do
		n=$(wc -c <"$OUT/follow-view.txt")
		[ "$n" = "$last" ] && [ "$n" -gt 0 ] && break
		last=$n
		sleep 0.5
	done
	kill "$follow_pid" 2>/dev/null
	wait "$follow_pid" 2>/dev/null
	# the local journal through clrtrace --journal, before the upload
	"$CLRTRACE" stats --json --journal --identifier "$FLEET_ID" >"$OUT/local-stats.json" 2>"$OUT/local-stats.err"
	echo $? >"$OUT/local-stats.rc"
	"$CLRTRACE" view --color=never --journal --identifier "$FLEET_ID" >"$OUT/local-view.txt" 2>&1
	"$CLRTRACE" stats --json --journal --journal-since "@$(($(date +%s) + 3600))" --identifier "$FLEET_ID" \
		>"$OUT/local-future.json" 2>&1
	"$CLRTRACE" stats --json --journal CLRTRACE_EVENT=exception.throw CLRTRACE_EVENT=exception.unhandled \
		--identifier "$FLEET_ID" >"$OUT/local-throws.json" 2>&1
	for t in "@1" "-1d" yesterday "2000-01-01" "2000-01-01 00:00"; do
		"$CLRTRACE" stats --json --journal --journal-since "$t" --identifier "$FLEET_ID" 2>&1 | jq .records
	done >"$OUT/local-since.txt"
	"$CLRTRACE" stats --json --journal --journal-until "@1" --identifier "$FLEET_ID" >"$OUT/local-until.json" 2>&1
	"$CLRTRACE" stats --json --journal -u no-such-unit --identifier "$FLEET_ID" >"$OUT/local-unit.json" 2>&1
	"$CLRTRACE" stats --journal --journal-since "last tuesday" >/dev/null 2>"$OUT/local-badtime.err"
	echo $? >"$OUT/local-badtime.rc"
	if [ -n "${FLEET_TLS:-}" ]; then
		# HTTPS: the host checks the collector's certificate (a CA it does
		# not trust must fail); Debian's journal-remote has no --trust, so
		# the client's certificate is sent but not checked
		timeout -k 5 60 "$UPLOAD_BIN" --url="https://$FLEET_NET.1:$FLEET_TLS_PORT" --follow=no \
			--key="$FLEET_TLS/h$FLEET_HOST.key" --cert="$FLEET_TLS/h$FLEET_HOST.pem" \
			--trust="$FLEET_TLS/other-ca.pem" --save-state="$OUT/untrusted.state" >"$OUT/untrusted.log" 2>&1
		echo $? >"$OUT/untrusted.rc"
		timeout -k 5 60 "$UPLOAD_BIN" --url="https://$FLEET_NET.1:$FLEET_TLS_PORT" --follow=no \
			--key="$FLEET_TLS/h$FLEET_HOST.key" --cert="$FLEET_TLS/h$FLEET_HOST.pem" \
			--trust="$FLEET_TLS/ca.pem" --save-state="$OUT/upload.state" >"$OUT/upload.log" 2>&1
	else
		timeout -k 5 60 "$UPLOAD_BIN" --url="http://$FLEET_NET.1:$FLEET_PORT" --follow=no \
			--save-state="$OUT/upload.state" >"$OUT/upload.log" 2>&1
	fi
	echo $? >"$OUT/upload.rc"
	# after the upload (the collector is compared with the files): an entry
	# whose CLRTRACE_JSON is not a record is said with its place and counted
	if command -v logger >/dev/null 2>&1; then
		printf 'MESSAGE=broken\nSYSLOG_IDENTIFIER=%s-bad\nCLRTRACE_JSON={"v":1,"event":\n' "$FLEET_ID" | logger --journald
		printf 'MESSAGE=fine\nSYSLOG_IDENTIFIER=%s-bad\nCLRTRACE_JSON={"v":1,"event":"runtime.init"}\n' "$FLEET_ID" |
			logger --journald
		journald_sync
		"$CLRTRACE" stats --json --journal --identifier "$FLEET_ID-bad" >"$OUT/local-bad.json" 2>"$OUT/local-bad.err"
		echo $? >"$OUT/local-bad.rc"
	fi
	journald_stop
	exit 0
fi

. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
[ "$(id -u)" = 0 ] || skip "making network namespaces needs root"
for b in "$REMOTE_BIN" "$UPLOAD_BIN" /lib/systemd/systemd-journald; do
	if [ ! -x "$b" ]; then
		[ "${CI:-}" = true ] && die "$b is missing (setup.sh installs systemd-journal-remote)"
		skip "$b is missing (Debian package systemd-journal-remote; setup.sh installs it)"
	fi
done
command -v ip >/dev/null 2>&1 || skip "ip (iproute2) is missing"
command -v python3 >/dev/null 2>&1 || skip "python3 is needed"

NS_C=ctfleet$$c
HOSTS="1 2"
NAMESPACES=
REMOTE_PID=
HOST_PIDS=
# Stop what this test started (by pid, then whatever is left inside its own
# namespaces) and delete the namespaces; on every exit path.
cleanup() {
	local ns p
	for p in $HOST_PIDS $REMOTE_PID; do kill "$p" 2>/dev/null; done
	for ns in $NAMESPACES; do
		for p in $(ip netns pids "$ns" 2>/dev/null); do kill -KILL "$p" 2>/dev/null; done
	done
	for p in $HOST_PIDS $REMOTE_PID; do wait "$p" 2>/dev/null; done
	for ns in $NAMESPACES; do ip netns del "$ns" 2>/dev/null; done
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

# the network: a bridge in the collector's namespace, one veth per host
ip netns add "$NS_C" 2>"$OUT/netns.err" || skip "cannot make a network namespace: $(head -c 200 "$OUT/netns.err")"
NAMESPACES=$NS_C
ip -n "$NS_C" link set lo up
ip -n "$NS_C" link add br0 type bridge || die "cannot make a bridge"
ip -n "$NS_C" addr add "$FLEET_NET.1/24" dev br0
ip -n "$NS_C" link set br0 up
for i in $HOSTS; do
	ns=ctfleet$$h$i
	ip netns add "$ns" || die "cannot make namespace $ns"
	NAMESPACES="$NAMESPACES $ns"
	ip -n "$ns" link set lo up
	ip -n "$ns" link add eth0 type veth peer name h$i netns "$NS_C" || die "cannot make a veth pair"
	ip -n "$ns" addr add "$FLEET_NET.1$i/24" dev eth0
	ip -n "$ns" link set eth0 up
	ip -n "$NS_C" link set "h$i" master br0 up
done

# certificates of the test's own for HTTPS (host 2 uploads over it): a CA,
# the collector's for its address, a client's per host
FLEET_TLS_PORT=19533
tls=
if command -v openssl >/dev/null 2>&1; then
	tls=$OUT/tls
	mkdir -p "$tls"
	mkcert() { # NAME SUBJECT [EXTFILE]
		openssl req -newkey rsa:2048 -nodes -keyout "$tls/$1.key" -out "$tls/$1.csr" -subj "/CN=$2" &&
			openssl x509 -req -in "$tls/$1.csr" -CA "$tls/ca.pem" -CAkey "$tls/ca.key" -CAcreateserial \
				-out "$tls/$1.pem" -days 2 ${3:+-extfile "$3"}
	}
	echo "subjectAltName=IP:$FLEET_NET.1" >"$tls/server.ext"
	{ openssl req -x509 -newkey rsa:2048 -nodes -keyout "$tls/ca.key" -out "$tls/ca.pem" -days 2 \
		-subj "/CN=clrtrace fleet test CA" && mkcert server "$FLEET_NET.1" "$tls/server.ext" &&
		mkcert h2 clrtrace-fleet-h2 &&
		openssl req -x509 -newkey rsa:2048 -nodes -keyout "$tls/other-ca.key" -out "$tls/other-ca.pem" -days 2 \
			-subj "/CN=a CA nobody trusts"; } >"$tls/openssl.log" 2>&1 || { cat "$tls/openssl.log"; die "openssl failed"; }
else
	[ "${CI:-}" = true ] && die "openssl is missing (setup.sh installs it)"
	echo "note: no openssl; every host uploads over plain HTTP"
fi

# the collector
mkdir -p "$OUT/remote"
ip netns exec "$NS_C" "$REMOTE_BIN" --listen-http="$FLEET_NET.1:$FLEET_PORT" --output="$OUT/remote/" \
	${tls:+--listen-https="$FLEET_NET.1:$FLEET_TLS_PORT" --key="$tls/server.key" --cert="$tls/server.pem"} \
	--split-mode=host >"$OUT/remote.log" 2>&1 &
REMOTE_PID=$!
up=0
for _ in $(seq 100); do
	n=$(ip netns exec "$NS_C" ss -Hltn "( sport = :$FLEET_PORT or sport = :$FLEET_TLS_PORT )" 2>/dev/null | wc -l)
	if [ "$n" -ge "$([ -n "$tls" ] && echo 2 || echo 1)" ]; then up=1; break; fi
	kill -0 "$REMOTE_PID" 2>/dev/null || break
	sleep 0.1
done
[ "$up" = 1 ] || { cat "$OUT/remote.log"; die "systemd-journal-remote did not listen"; }
ok "systemd-journal-remote listens on $FLEET_NET.1:$FLEET_PORT${tls:+ (HTTP) and :$FLEET_TLS_PORT (HTTPS)} in its own namespace"

# the hosts, side by side
export FLEET_INSTANTS=runtime.init,exception.throw,exception.summary,exception.unhandled,runtime.shutdown
export FLEET_OUT=$OUT FLEET_CLRTRACE=$CLRTRACE FLEET_ID="clrtrace-fleet-$$" top_srcdir CLRTRACE_LIBRARY
FLEET_DLL=$(build_program Journal) || die "could not build Journal"
export FLEET_DLL
for i in $HOSTS; do
	FLEET_TLS=$([ "$i" = 2 ] && echo "$tls") FLEET_TLS_PORT=$FLEET_TLS_PORT \
	FLEET_HOST=$i CLRTRACE_JOURNALD_PRIVATE=1 timeout -k 10 300 \
		nsenter --net=/run/netns/ctfleet$$h$i unshare -m -u --propagation private bash "$0" >"$OUT/host$i.log" 2>&1 &
	HOST_PIDS="$HOST_PIDS $!"
done
for p in $HOST_PIDS; do wait "$p" || { cat "$OUT"/host*.log; die "a host failed (exit $?)"; }; done
HOST_PIDS=
# journal-remote writes as it receives; stop it so the files are closed
kill "$REMOTE_PID"; wait "$REMOTE_PID" 2>/dev/null; REMOTE_PID=
ls "$OUT/remote" >"$OUT/remote.files"
echo "collector files: $(tr '\n' ' ' <"$OUT/remote.files")"

rj() { journalctl -q --no-pager -D "$OUT/remote" "$@"; }
# the MESSAGE_ID of event $1, as the event table has it (test-vocabulary journal)
"$top_builddir/tests/unit/test-vocabulary" journal >"$OUT/journal-table.txt" || fail "test-vocabulary journal: exit status $?"
mid() { awk -v ev="$1" '$1 == ev { print $3 }' "$OUT/journal-table.txt"; }
for i in $HOSTS; do
	h=clrtrace-fleet-h$i
	d=$OUT/h$i
	expect "host $i: its journal uploaded$([ "$i" = 2 ] && [ -n "$tls" ] && echo " over HTTPS")" \
		"$(cat "$d/upload.rc" 2>/dev/null)" 0
	if [ -f "$d/untrusted.rc" ]; then
		if [ "$(cat "$d/untrusted.rc")" != 0 ]; then ok "host $i: an upload to a collector it cannot verify fails"; else
			fail "host $i: the upload trusted a certificate of an unknown CA"; fi
	fi
	cat "$d/throw.jsonl" "$d/unh.jsonl" >"$d/all.jsonl"
	n_file=$(wc -l <"$d/all.jsonl")
	rj -o json _HOSTNAME="$h" -t "$FLEET_ID" >"$d/collected.json"
	expect "host $i: the collector has every record by _HOSTNAME ($n_file)" "$(wc -l <"$d/collected.json")" "$n_file"
	expect "host $i: CLRTRACE_EVENT=runtime.init finds both runs" \
		"$(rj -o cat _HOSTNAME="$h" CLRTRACE_EVENT=runtime.init | wc -l)" 2
	expect "host $i: CLRTRACE_EXCEPTION_TYPE=Journal.JournalTestException finds the 3 throws" \
		"$(rj -o cat _HOSTNAME="$h" CLRTRACE_EVENT=exception.throw CLRTRACE_EXCEPTION_TYPE=Journal.JournalTestException | wc -l)" 3
	expect "host $i: -p crit finds the unhandled exception and its error" \
		"$(rj -o json _HOSTNAME="$h" -t "$FLEET_ID" -p crit | jq -r '.CLRTRACE_EVENT + " " + .CLRTRACE_EXCEPTION_TYPE' | sort | paste -sd,)" \
		"exception.error System.InvalidOperationException,exception.unhandled System.InvalidOperationException"
	expect "host $i: MESSAGE_ID of exception.unhandled finds it" \
		"$(rj -o cat _HOSTNAME="$h" MESSAGE_ID="$(mid exception.unhandled)" | wc -l)" 1
	expect "host $i: MESSAGE_ID of exception.throw finds the throws" \
		"$(rj -o cat _HOSTNAME="$h" MESSAGE_ID="$(mid exception.throw)" | wc -l)" \
		"$(jq -c 'select(.event=="exception.throw")' "$d/all.jsonl" | wc -l)"
	# every record: CLRTRACE_JSON is the file's line; PRIORITY and MESSAGE_ID
	# those of the event table (test-vocabulary journal; exception.error's
	# PRIORITY by its fate); _HOSTNAME the host's
	python3 - "$d/all.jsonl" "$d/collected.json" "$OUT/journal-table.txt" "$h" <<'EOF' >"$d/compare.txt" 2>&1
import json, sys
recs = [l.rstrip('\n') for l in open(sys.argv[1])]
ents = [json.loads(l) for l in open(sys.argv[2])]
table = {}
for l in open(sys.argv[3]):
    ev, prio, mid = l.split()
    table[ev] = (prio, mid)
if not table:
    sys.exit("no event table from test-vocabulary")
by_key = {}
for e in ents:
    by_key[(int(e['CLRTRACE_PID']), int(e['CLRTRACE_SEQ']))] = e
bad = 0
for line in recs:
    r = json.loads(line)
    e = by_key.get((r['pid'], r['seq']))
    if e is None:
        print('missing pid', r['pid'], 'seq', r['seq']); bad += 1; continue
    if e.get('CLRTRACE_JSON') != line:
        print('CLRTRACE_JSON differs at seq', r['seq']); bad += 1
    prio, mid = table[r['event']]
    if r['event'] == 'exception.error':  # by its fate (jf_priority)
        final = (r.get('handler') or {}).get('final') is True
        prio = {'unhandled': '2', 'open': '4'}.get(r['fate'],
                '3' if r['fate'] == 'handled_by_framework' and final else '6')
    if (e.get('PRIORITY'), e.get('MESSAGE_ID')) != (prio, mid):
        print('PRIORITY/MESSAGE_ID wrong at seq', r['seq']); bad += 1
    if e.get('_HOSTNAME') != sys.argv[4]:
        print('_HOSTNAME wrong at seq', r['seq'], e.get('_HOSTNAME')); bad += 1
print('compared', len(recs), 'records,', bad, 'problems')
sys.exit(1 if bad else 0)
EOF
	if [ $? = 0 ]; then ok "host $i: collected entries match the file copy ($(tail -n1 "$d/compare.txt"))"; else
		head -20 "$d/compare.txt"; fail "host $i: collected entries differ from the file copy"; fi

	# clrtrace over the collector's directory: the same views as on the files
	"$CLRTRACE" stats --json "$d/all.jsonl" >"$d/file-stats.json" 2>&1
	"$CLRTRACE" stats --json --journal-dir "$OUT/remote" _HOSTNAME="$h" >"$d/dir-stats.json" 2>"$d/dir-stats.err"
	expect "host $i: stats --journal-dir _HOSTNAME=$h exits 0" "$?" 0
	if cmp -s "$d/file-stats.json" "$d/dir-stats.json"; then ok "host $i: stats --journal-dir is stats of the file"; else
		diff "$d/file-stats.json" "$d/dir-stats.json" | head; fail "host $i: stats --journal-dir differs from the file's"; fi
	"$CLRTRACE" view --color=never "$d/all.jsonl" >"$d/file-view.txt" 2>&1
	"$CLRTRACE" view --color=never -e "$FLEET_INSTANTS" "$d/all.jsonl" >"$d/file-instants.txt" 2>&1
	"$CLRTRACE" view --color=never --journal-dir "$OUT/remote" --identifier "$FLEET_ID" _HOSTNAME="$h" \
		>"$d/dir-view.txt" 2>&1
	if cmp -s "$d/file-view.txt" "$d/dir-view.txt"; then ok "host $i: view --journal-dir is view of the file"; else
		diff "$d/file-view.txt" "$d/dir-view.txt" | head; fail "host $i: view --journal-dir differs"; fi
	"$CLRTRACE" export -F chrome "$d/all.jsonl" >"$d/file-export.json" 2>&1
	"$CLRTRACE" export -F chrome --journal-dir "$OUT/remote" _HOSTNAME="$h" >"$d/dir-export.json" 2>&1
	if cmp -s "$d/file-export.json" "$d/dir-export.json"; then ok "host $i: export --journal-dir is export of the file"; else
		fail "host $i: export --journal-dir differs"; fi

	# on the host itself, before the upload: clrtrace --journal
	expect "host $i: stats --journal --identifier exits 0" "$(cat "$d/local-stats.rc")" 0
	if cmp -s "$d/file-stats.json" "$d/local-stats.json"; then ok "host $i: stats --journal on the host is stats of the file"; else
		head -5 "$d/local-stats.err"; diff "$d/file-stats.json" "$d/local-stats.json" | head; fail "host $i: stats --journal differs"; fi
	if cmp -s "$d/file-view.txt" "$d/local-view.txt"; then ok "host $i: view --journal on the host is view of the file"; else
		fail "host $i: view --journal differs"; fi
	expect "host $i: --journal-since an hour ahead reads nothing" "$(jq .records "$d/local-future.json")" 0
	expect "host $i: --journal-since @1, -1d, yesterday, 2000-01-01[ 00:00] read every record" \
		"$(sort -u "$d/local-since.txt")" "$n_file"
	expect "host $i: --journal-until @1 reads nothing" "$(jq .records "$d/local-until.json")" 0
	expect "host $i: -u no-such-unit reads nothing" "$(jq .records "$d/local-unit.json")" 0
	if [ -f "$d/local-bad.rc" ]; then
		expect "host $i: a broken CLRTRACE_JSON: exit 1, said, counted, the good entry still read" \
			"$(cat "$d/local-bad.rc") $(grep -c '^clrtrace: journal:1: not JSON' "$d/local-bad.err") $(jq -c '[.bad_lines, .records]' "$d/local-bad.json")" \
			"1 1 [1,1]"
	else
		echo "note: no logger --journald; a broken CLRTRACE_JSON not checked"
	fi
	expect "host $i: a time journalctl-style parsing does not know is a usage error" \
		"$(cat "$d/local-badtime.rc"):$(grep -c 'is not a time' "$d/local-badtime.err")" "2:1"
	# a follow view prints a thread's header at its first record, when its
	# managed id may not be known yet (the file's view knows it): headers
	# are compared without it
	sed -E '/^--- /s/ managed [0-9]+//' "$d/file-instants.txt" >"$d/file-instants.cmp"
	sed -E '/^--- /s/ managed [0-9]+//' "$d/follow-view.txt" >"$d/follow-view.cmp"
	if [ -s "$d/follow-view.txt" ] && cmp -s "$d/file-instants.cmp" "$d/follow-view.cmp"; then
		ok "host $i: view -f --journal, started before the runs, showed them as view of the file does"
	else
		diff "$d/file-instants.cmp" "$d/follow-view.cmp" | head; fail "host $i: view -f --journal differs"
	fi
	expect "host $i: two CLRTRACE_EVENT= matches are ORed" "$(jq .records "$d/local-throws.json")" \
		"$(jq -c 'select(.event=="exception.throw" or .event=="exception.unhandled")' "$d/all.jsonl" | wc -l)"
done
# both hosts together, and a match no host has
n_all=$(cat "$OUT"/h*/all.jsonl | wc -l)
expect "the collector's directory holds both hosts' records" \
	"$("$CLRTRACE" stats --json --journal-dir "$OUT/remote" | jq .records)" "$n_all"
expect "a _HOSTNAME no host has reads nothing" \
	"$("$CLRTRACE" stats --json --journal-dir "$OUT/remote" _HOSTNAME=nohost | jq .records)" 0
timeout -k 5 30 "$CLRTRACE" view -f --journal-dir "$OUT/remote" --journal-until "$(date '+%Y-%m-%d %H:%M:%S')" \
	>"$OUT/follow-until.txt" 2>&1
expect "view -f --journal-until ends at the window's end (exit 0, not a timeout)" "$?" 0
"$CLRTRACE" view --journal-dir "$OUT/remote" hostname=x >/dev/null 2>"$OUT/badmatch.err"
expect "a malformed match is a usage error" "$?" 2
grep -q "not a journal match" "$OUT/badmatch.err" && ok "and says so" || fail "no message for a bad match: $(cat "$OUT/badmatch.err")"

finish
