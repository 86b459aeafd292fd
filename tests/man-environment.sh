#!/bin/sh
# The man page's ENVIRONMENT list is src/common/config.def's, and every
# CLRTRACE_* variable the code reads is in that table.  No runtime needed.
# (clrtrace(1) is the variables' one home; the README has no list.)
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
FAILED=0
ok() { echo "ok: $*"; }
fail() { echo "FAIL: $*"; FAILED=1; }

gen="$top_builddir/man/environment"
page="$top_srcdir/man/clrtrace.1.in"
[ -x "$gen" ] || { echo "FAIL: $gen is not built"; exit 1; }
if out=$("$gen" <"$page" 2>&1); then
	if diff_out=$(printf '%s\n' "$out" | diff -u "$page" -); then
		ok "man/clrtrace.1.in lists the variables of config.def, as config.def words them"
	else
		fail "man/clrtrace.1.in and config.def differ (run make update-man, or change the table):"
		printf '%s\n' "$diff_out"
	fi
else
	fail "$out"
fi
# the list has one entry per table row (a generator that printed nothing
# would pass the diff only if the page had no list either)
n=$(sed -n '/^\.\\" BEGIN config\.def/,/^\.\\" END config\.def/p' "$page" | grep -c '^\.TP$')
rows=$(grep -c '^CT_\(VAR\|ENV\)(' "$top_srcdir/src/common/config.def")
[ "$n" -eq "$rows" ] && [ "$n" -gt 0 ] && ok "the page's list has $n entries, one per row" ||
	fail "the page's list has $n entries, the table $rows rows"
# every variable the code asks for by name is a row of the table
listed=$(sed -n 's/^CT_VAR(\([A-Z_]*\),.*/CLRTRACE_\1/p; s/^CT_ENV("[^"]*\(CLRTRACE_[A-Z_]*\)".*/\1/p' \
	"$top_srcdir/src/common/config.def")
for v in $(grep -rhoE 'getenv\("CLRTRACE_[A-Z_]+"\)' "$top_srcdir/src" | sed 's/.*"\(.*\)".*/\1/' | sort -u); do
	printf '%s\n' "$listed" | grep -qx "$v" && ok "$v, read in src/, is in config.def" ||
		fail "$v is read in src/ but is not in config.def (so not in the man page)"
done
[ "$FAILED" = 0 ] && { echo "PASS: man-environment"; exit 0; }
exit 1
