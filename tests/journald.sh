# A real systemd-journald for the journal tests; source it after lib.sh.
#
# By default the test re-runs itself in a private mount namespace
# (unshare -m) with tmpfs over /run/systemd/journal and /run/log/journal, and
# starts its own systemd-journald there: tests never see each other's
# entries, nor the host's, and stopping journald mid-run hurts nobody else.
# Where unshare is not allowed, the host's socket is used: a journald is
# started only if none answers, and only what was started is stopped
# (journald_private=0 then; tests that stop journald skip).
#
#   journald_start        start journald (if needed) and wait for its socket
#   journald_stop         stop the journald this test started
#   journald_sync         make journald write out everything it was sent
#   jctl ARGS...          journalctl over this test's journal, no pager
JOURNALD_BIN=${JOURNALD_BIN:-/lib/systemd/systemd-journald}
JOURNAL_SOCKET=/run/systemd/journal/socket
JOURNALD_PID=
journald_private=${CLRTRACE_JOURNALD_PRIVATE:-0}

# JOURNALD_OPTIONAL=1: without a usable journald, go on (journald_private
# stays 0 and journald_usable 0) instead of skipping the whole test.
journald_usable=1
if [ ! -x "$JOURNALD_BIN" ] || ! command -v journalctl >/dev/null 2>&1 || [ "$(id -u)" != 0 ]; then
	[ "${JOURNALD_OPTIONAL:-0}" = 1 ] || skip "needs $JOURNALD_BIN, journalctl and root"
	journald_usable=0
fi

if [ "$journald_usable" = 1 ] && [ "$journald_private" = 0 ] && [ -z "${CLRTRACE_JOURNALD_SHARED:-}" ] &&
	unshare -m --propagation private true 2>/dev/null; then
	CLRTRACE_JOURNALD_PRIVATE=1 exec unshare -m --propagation private "${BASH:-/bin/sh}" "$0" "$@"
fi

if [ "$journald_private" = 1 ]; then
	mkdir -p /run/systemd/journal /run/log/journal
	for d in /run/systemd/journal /run/log/journal /var/log/journal; do
		[ -d "$d" ] || continue
		mount -t tmpfs -o mode=0755 tmpfs "$d" || die "cannot mount a tmpfs on $d"
	done
fi

# Does a journald answer on the socket?
journald_alive() {
	[ -S "$JOURNAL_SOCKET" ] && journalctl --sync >/dev/null 2>&1
}

journald_start() {
	local i
	if [ "$journald_private" = 0 ] && journald_alive; then
		return 0
	fi
	"$JOURNALD_BIN" >"$OUT/journald.log" 2>&1 &
	JOURNALD_PID=$!
	for i in $(seq 100); do
		[ -S "$JOURNAL_SOCKET" ] && journalctl --sync >/dev/null 2>&1 && return 0
		kill -0 "$JOURNALD_PID" 2>/dev/null || break
		sleep 0.05
	done
	cat "$OUT/journald.log" >&2
	die "systemd-journald did not come up"
}

# journald_stop [SIGNAL]: stop what journald_start started.
journald_stop() {
	[ -n "$JOURNALD_PID" ] || return 0
	kill -"${1:-TERM}" "$JOURNALD_PID" 2>/dev/null
	kill -CONT "$JOURNALD_PID" 2>/dev/null
	wait "$JOURNALD_PID" 2>/dev/null
	JOURNALD_PID=
}

journald_sync() {
	journalctl --sync >/dev/null 2>&1 || true
}

jctl() {
	journalctl -q --no-pager "$@"
}

trap 'journald_stop' EXIT
