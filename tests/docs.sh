#!/bin/sh
# The documentation cannot drift from the code: the event and category
# tables of clrtrace-records(5) are, row by row, what the vocabulary holds at
# run time (tests/unit/test-docs prints them from ct_events[] and
# ct_categories[]); every event has a payload paragraph there; the page
# renders without a groff warning; the documents name no file, option,
# variable or event that does not exist; every #include is an edge
# DESIGN.md's table of layers allows (each family a node of its own); and
# no project file points at a design document outside the tree.  Needs no
# runtime, so it does not source lib.sh (which skips without dotnet).
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
OUT="$top_builddir/tests/out/docs"
rm -rf "$OUT"
mkdir -p "$OUT"
FAILED=0
fail() { echo "FAIL: $*"; FAILED=1; }
ok() { echo "ok: $*"; }

page="$top_srcdir/man/clrtrace-records.5"
printer="$top_builddir/tests/unit/test-docs"
[ -f "$page" ] || { echo "FAIL: no $page"; exit 1; }
[ -x "$printer" ] || { echo "FAIL: no $printer (make check builds it)"; exit 1; }

# table NAME: the man page's rows between '.\" vocabulary: NAME' and the
# next '.\" vocabulary: end'
table() {
	awk -v start=".\\\\\" vocabulary: $1" -v stop=".\\\\\" vocabulary: end" '
		$0 == stop { on = 0 } on { print } $0 == start { on = 1; seen = 1 }
		END { exit !seen }' "$page"
}

for t in events categories; do
	if ! "$printer" "$t" >"$OUT/$t.want" 2>"$OUT/$t.err"; then
		fail "test-docs $t: $(cat "$OUT/$t.err")"
		continue
	fi
	if ! table "$t" >"$OUT/$t.page"; then
		fail "clrtrace-records(5) has no '.\\\" vocabulary: $t' table"
		continue
	fi
	if diff -u "$OUT/$t.page" "$OUT/$t.want" >"$OUT/$t.diff"; then
		ok "the $t table of clrtrace-records(5) is the vocabulary, $(grep -c '^T}$' "$OUT/$t.want") rows"
	else
		fail "the $t table of clrtrace-records(5) differs from the vocabulary (- page, + vocabulary; paste what '$printer $t' prints):"
		cat "$OUT/$t.diff"
	fi
done

# every event has a paragraph of its own: it is named in the tag of a .TP
described=$(awk 'tp { gsub(/[",]/, " "); for (i = 2; i <= NF; i++) print $i } { tp = ($0 == ".TP") }' "$page")
missing=
for ev in $(awk -F';' '$0 == ".T&" { k = NR + 3 } NR == k { print $1 }' "$OUT/events.want"); do
	printf '%s\n' "$described" | grep -qxF "$ev" || missing="$missing $ev"
done
if [ -z "$missing" ] && [ -s "$OUT/events.want" ]; then
	ok "every event has a paragraph in clrtrace-records(5)"
else
	fail "clrtrace-records(5) has no paragraph for:$missing"
fi

# every field the schema knows is named, in bold, somewhere in the page
schema="$top_srcdir/schemas/record.schema.json"
if ! command -v jq >/dev/null 2>&1; then
	fail "jq is needed (run setup.sh)"
elif ! fields=$(jq -r '[(.properties | keys[]), (."$defs" | [.. | objects | .properties? // empty | keys[]] | .[])] | unique[]' "$schema"); then
	fail "cannot read the field names of $schema"
else
	missing=
	for w in $fields; do
		grep -qE "(^\.(B|BR|RB|IB|BI) (.*[ ({\"])?\\\\?$w([ ,)}\"]|\$))|\\\\fB\"?$w" "$page" || missing="$missing $w"
	done
	if [ -z "$missing" ]; then
		ok "clrtrace-records(5) names all $(printf '%s\n' $fields | grep -c .) fields of the schema"
	else
		fail "fields of the schema that clrtrace-records(5) does not name:$missing"
	fi
fi

# renders: no warning from groff with tbl, as man(1) runs it
if command -v groff >/dev/null 2>&1; then
	if groff -t -man -Tutf8 -ww -z "$page" >"$OUT/groff.err" 2>&1 && [ ! -s "$OUT/groff.err" ]; then
		ok "clrtrace-records(5) renders without a groff warning"
	else
		fail "groff: $(cat "$OUT/groff.err")"
	fi
	if [ "$(head -1 "$page")" = "'\\\" t" ]; then
		ok "clrtrace-records(5) asks man(1) for tbl"
	else
		fail "clrtrace-records(5) does not start with '\\\" t, so man(1) would not run tbl"
	fi
else
	echo "note: groff is not installed; rendering not checked"
fi

# the include graph against DESIGN.md's table of layers ("Layers"): each
# row's folder may include its own files and those of the layers its "may
# use" column names ("everything below": every row above it).  Each family
# (a file or a folder under families/) is a node of its own: it may include
# itself, the families' shared headers (families/*.h) and what the
# families' row allows, never another family.  The edges come from the
# #include lines, the allowed ones from the table, so a change to either
# that breaks the rule fails here.
allowed=$(sed -n '/^## Layers/,/^## [^L]/p' "$top_srcdir/DESIGN.md" | awk -F'|' '
	/^\| `src\// {
		dir = $2; gsub(/[` ]/, "", dir); sub(/^src\//, "", dir); sub(/\/$/, "", dir)
		row[++n] = dir; use[n] = $(NF - 1)
	}
	END {
		for (i = 1; i <= n; i++) {
			if (use[i] ~ /everything below/)
				for (k = 1; k < i; k++) print row[i], row[k]
			m = split(use[i], w, /[^a-z]+/)
			for (j = 1; j <= m; j++)
				for (k = 1; k <= n; k++) {
					b = row[k]; sub(/.*\//, "", b)
					if (w[j] == b) print row[i], row[k]
				}
		}
	}')
if [ "$(printf '%s\n' "$allowed" | awk '{print $1}' | sort -u | wc -l)" -lt 6 ]; then
	fail "cannot read the layers table of DESIGN.md (## Layers: | \`src/...\` | holds | may use |)"
fi
edges=$(cd "$top_srcdir/src" && grep -rE '^#include "(common|cli|profiler)/' --include='*.c' --include='*.h' --include='*.def' . |
	sed -E 's|^\./([^:]*):#include "([^"]*)".*|\1 \2|' | sort -u)
# node PATH: the node a file is in; layer NODE: the table's row of a node
verdict=$(printf '%s\n' "$edges" | awk -v allowed="$allowed" '
	function node(p) {
		if (p ~ /^profiler\/families\/[^\/]+\//) { sub(/\/[^\/]*$/, "", p); return p }
		if (p ~ /^profiler\/families\/[^\/]+\.c$/) { sub(/\.c$/, "", p); return p }
		sub(/\/[^\/]*$/, "", p)
		return p
	}
	function layer(n) { return n ~ /^profiler\/families\// ? "profiler/families" : n }
	BEGIN {
		m = split(allowed, a, "\n")
		for (i = 1; i <= m; i++) ok[a[i]] = 1
	}
	{
		from = node($1); to = node($2)
		if (from == to) next
		lf = layer(from); lt = layer(to)
		if (lf == lt) {
			bad = lf == "profiler/families" && to != "profiler/families"
		} else
			bad = !((lf " " lt) in ok)
		if (bad) print "BAD src/" $1 " includes " $2 " (" from " -> " to ")"
		else seen[from " -> " to] = 1
	}
	END { n = 0; for (e in seen) n++; print "EDGES " n }')
if printf '%s\n' "$verdict" | grep -q '^BAD'; then
	fail "includes DESIGN.md's table of layers does not allow:"
	printf '%s\n' "$verdict" | sed -n 's/^BAD /  /p'
else
	ok "every include is an edge DESIGN.md's table of layers allows, families apart ($(printf '%s\n' "$verdict" | sed -n 's/^EDGES //p') edges between nodes)"
fi

# every file, option, variable and event a document names exists
# (tests/docs-names.py derives each list from the tree and the tables)
names_docs="README.md HACKING.md DESIGN.md bench/README.md man/clrtrace.1.in man/clrtrace-records.5
	contrib/journal.md contrib/fleet.md contrib/jq.md schemas/README.md"
if ! command -v python3 >/dev/null 2>&1; then
	fail "python3 is needed (run setup.sh)"
elif [ ! -x "$top_builddir/clrtrace" ]; then
	fail "no $top_builddir/clrtrace (make builds it)"
elif (cd "$top_srcdir" && python3 tests/docs-names.py "$top_srcdir" "$top_builddir" "$top_builddir/clrtrace" $names_docs) >"$OUT/names.out" 2>&1; then
	ok "the documents name only files, options, variables and events that exist ($(tail -1 "$OUT/names.out"))"
else
	fail "the documents name things that do not exist:"
	cat "$OUT/names.out"
fi

# no file of the project points at the design notes outside the tree
# (the pattern is split so that this file does not match itself)
far="\.\./shar""ed|/work/shar""ed"
if [ -e "$top_srcdir/.git" ] && command -v git >/dev/null 2>&1; then
	hits=$(cd "$top_srcdir" && git grep -l -E "$far" -- . ; true)
else
	hits=$(cd "$top_srcdir" && grep -rlE --exclude-dir=build --exclude-dir=.git "$far" . ; true)
fi
if [ -z "$hits" ]; then
	ok "no project file refers to the design notes outside the tree"
else
	fail "these files refer to a path outside the tree:" $hits
fi

[ "$FAILED" = 0 ] && { echo "PASS: docs"; exit 0; }
exit 1
