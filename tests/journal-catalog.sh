#!/bin/sh
# contrib/clrtrace.catalog, generated from src/common/vocabulary.def: a
# catalog journalctl accepts, and journalctl -x shows its text next to an
# entry of a traced program.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
CATALOG="$top_builddir/contrib/clrtrace.catalog"
JOURNALD_OPTIONAL=1 . "$top_srcdir/tests/journald.sh"

# 1. one entry per MESSAGE_ID, each with a Subject (that every event has
# one, and its text, is tests/unit/test-vocabulary's: the catalog is
# generated from the event table)
[ -s "$CATALOG" ] || die "no generated catalog at $CATALOG (make first)"
sed -n 's/^-- \([0-9a-f]\{32\}\)$/\1/p' "$CATALOG" | sort >"$OUT/catalog"
[ -s "$OUT/catalog" ] || fail "no entries in $CATALOG"
expect "no MESSAGE_ID has two entries" "$(uniq -d "$OUT/catalog" | wc -l)" 0
n=$(awk '/^-- /{e=1; next} e && /^Subject: /{s++} e && /^$/{e=0} END{print s+0}' "$CATALOG")
expect "every entry has a Subject" "$n" "$(wc -l <"$OUT/catalog")"

# 2. journalctl takes it (into a scratch root, never the system's)
command -v journalctl >/dev/null 2>&1 || skip "no journalctl"
root="$OUT/root"
mkdir -p "$root/usr/lib/systemd/catalog"
cp "$CATALOG" "$root/usr/lib/systemd/catalog/"
journalctl --root="$root" --update-catalog 2>"$OUT/update.err" || { cat "$OUT/update.err"; fail "journalctl --update-catalog refused it"; }
journalctl --root="$root" --list-catalog 2>/dev/null | awk '{print $1}' | sort >"$OUT/listed"
expect "journalctl --list-catalog lists every entry" \
	"$(comm -23 "$OUT/catalog" "$OUT/listed" | wc -l)" 0

# 3. journalctl -x explains a traced program's entries (private journald:
# the catalog database of this test's mount namespace only)
[ "$journald_private" = 1 ] || { echo "note: no private journald here; journalctl -x not checked"; finish; }
mkdir -p /var/lib/systemd/catalog /usr/local/lib/systemd/catalog
mount -t tmpfs tmpfs /var/lib/systemd/catalog || die "cannot mount over /var/lib/systemd/catalog"
mount -t tmpfs tmpfs /usr/local/lib/systemd/catalog || die "cannot mount over /usr/local/lib/systemd/catalog"
cp "$CATALOG" /usr/local/lib/systemd/catalog/
journalctl --update-catalog || die "journalctl --update-catalog failed"
journald_start
dll=$(build_program Journal)
ID="clrtrace-cat-$$"
"$CLRTRACE" run -o "file:$OUT/unh.jsonl" -o journal --ident "$ID" -- dotnet "$dll" unhandled >/dev/null 2>&1
journald_sync
jctl -x -t "$ID" CLRTRACE_EVENT=runtime.init >"$OUT/x-init.txt"
grep -q "Subject: clrtrace started tracing $ID" "$OUT/x-init.txt" &&
	grep -q "loaded" "$OUT/x-init.txt" &&
	ok "journalctl -x shows the catalog text for runtime.init, fields substituted" ||
	{ cat "$OUT/x-init.txt"; fail "journalctl -x: no catalog text for runtime.init"; }
if jq -e 'select(.event=="exception.unhandled")' "$OUT/unh.jsonl" >/dev/null 2>&1 ||
	[ -n "$(jctl -o cat -t "$ID" CLRTRACE_EVENT=exception.unhandled)" ]; then
	jctl -x -t "$ID" -p crit >"$OUT/x-unh.txt"
	grep -q "Subject: Unhandled System.InvalidOperationException in $ID" "$OUT/x-unh.txt" &&
		ok "journalctl -x -p crit explains the unhandled exception" ||
		{ cat "$OUT/x-unh.txt"; fail "journalctl -x: no catalog text for exception.unhandled"; }
	# the crash's exception.error is crit too; its text leads to its throws
	grep -q "Subject: System.InvalidOperationException in $ID: unhandled" "$OUT/x-unh.txt" &&
		grep -q "CLRTRACE_ERROR=1\.\$" "$OUT/x-unh.txt" &&
		ok "journalctl -x -p crit explains the crash's error, with its CLRTRACE_ERROR recipe" ||
		{ cat "$OUT/x-unh.txt"; fail "journalctl -x: no catalog text for the crash's exception.error"; }
else
	echo "note: no exception.unhandled records in this build yet; its catalog text not checked"
fi
finish
