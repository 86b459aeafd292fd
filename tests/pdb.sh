#!/bin/bash
# Source lines from portable PDBs (src/common/pdb.c, through the helper
# tests/unit/test-pdb): tests/programs/Lines prints, for each of its throw
# sites, the method token and IL offset of the throwing frame as the runtime
# reports them; the reader must map each to the file and line of the site's
# "MARK:name" comment.  With the PDB beside the assembly (on each runtime)
# and embedded in it; a deleted or stale PDB gives no lines, cleanly, and
# so does one with the right id but other content (the PDB checksum); a
# truncated or garbled one an error line, never a crash.
. "$(dirname "$0")/lib.sh"

PDB="$top_builddir/tests/unit/test-pdb"
SRC="$top_srcdir/tests/programs/Lines"
[ -x "$PDB" ] || die "$PDB is not built"

# the expected "name file:line" of every site, from the markers
expected=$(grep -n -o 'MARK:[a-z]*' "$SRC"/*.cs | sed -E 's|^.*/([^/:]*):([0-9]+):MARK:(.*)$|\3 \1:\2|' | sort)
[ "$(echo "$expected" | wc -l)" -ge 8 ] || die "the markers of Lines were not found: $expected"

# resolved DLL SITES: "name basename:line" of each site that test-pdb maps
resolved() {
	local dll=$1 sites=$2 name token il rt out
	echo "$sites" | while read -r name token il rt; do
		out=$("$PDB" lookup "$dll" "$token" "$il") || { echo "$name error: $out"; continue; }
		echo "$name $(echo "$out" | awk '{ print $3 }' | sed 's|.*/||')"
	done | sort
}

# check_lines WHAT DLL SITES
check_lines() {
	local what=$1 dll=$2 sites=$3
	expect "$what: every site's token and IL offset maps to its marked line" "$(resolved "$dll" "$sites")" "$expected"
	# the premise: the runtime itself (reading the same PDB) agrees
	expect "$what: the runtime's own lines are the marked ones" \
		"$(echo "$sites" | awk '{ print $1, $4 }' | sort)" "$(echo "$expected" | sed 's/ [^:]*:/ /')"
}

for v in $(test_runtimes); do
	cmd=$(program_cmd Lines "$v") || die "could not build Lines for .NET $v"
	# shellcheck disable=SC2086 # cmd is words
	out=$($cmd) || fail ".NET $v: Lines exited with $?"
	sites=$(echo "$out" | grep -v '^mvid ')
	dll=$(echo "$cmd" | awk '{ print $NF }')
	dll="${dll%.dll}.dll"
	[ -f "${dll%.dll}.pdb" ] || fail ".NET $v: no Lines.pdb beside $dll"
	check_lines ".NET $v, PDB beside" "$dll" "$sites"
	# the MVID a trace would record of the module is the one read from the file
	expect ".NET $v: the assembly's MVID as the runtime gives it" "$("$PDB" mvid "$dll")" "$(echo "$out" | sed -n 's/^mvid //p')"
	[ "$v" = 10 ] && { portable=$dll; portable_sites=$sites; portable_mvid=$(echo "$out" | sed -n 's/^mvid //p'); }
done
[ -n "${portable:-}" ] || die "no .NET 10 build of Lines"

# the same program with its PDB embedded (a copy of its own: the build's obj
# directory must not be shared with the portable build)
emb=$(build_variant Lines embedded -p:DebugType=embedded) || exit 1
[ ! -e "$emb/Lines.pdb" ] && ok "embedded: no Lines.pdb beside the assembly" || fail "embedded: a Lines.pdb beside it"
out=$(dotnet "$emb/Lines.dll") || fail "embedded: Lines exited with $?"
sites=$(echo "$out" | grep -v '^mvid ')
check_lines "embedded PDB" "$emb/Lines.dll" "$sites"
emb_mvid=$(echo "$out" | sed -n 's/^mvid //p')
expect "embedded: the assembly's MVID as the runtime gives it" "$("$PDB" mvid "$emb/Lines.dll")" "$emb_mvid"

# resolving against the build that ran: the right MVID gives lines, another
# build's (the assembly was rebuilt since the trace) none
first=$(echo "$portable_sites" | head -1 | awk '{ print $2, $3 }')
want=$(echo "$expected" | grep "^$(echo "$portable_sites" | head -1 | awk '{ print $1 }') " | cut -d' ' -f2)
# shellcheck disable=SC2086 # first is two words
expect "the MVID of the build that ran: its line" \
	"$("$PDB" lookup --mvid "$portable_mvid" "$portable" $first | awk '{ print $3 }' | sed 's|.*/||')" "$want"
# shellcheck disable=SC2086
expect "the MVID of another build: no lines" "$("$PDB" lookup --mvid "$emb_mvid" "$portable" $first | sed "s|.*/||")" \
	"Lines.dll: no lines (stale: another build's)"

# run DIR: test-pdb lookup of DIR/Lines.dll for the first site; its exit
# status after the output
lookup() {
	local st=0 out
	out=$("$PDB" lookup "$1/Lines.dll" $(echo "$portable_sites" | head -1 | awk '{ print $2, $3 }')) || st=$?
	echo "$out" | sed "s|$1/||"
	echo "status $st"
}

# the PDB deleted: no lines, no error
mkdir -p "$OUT/deleted" && cp "$portable" "$OUT/deleted/"
expect "PDB deleted: no lines, cleanly" "$(lookup "$OUT/deleted")" "Lines.dll: no lines (no PDB)
status 0"
sites=$(cd "$OUT/deleted" && cp "${portable%.dll}".runtimeconfig.json . && dotnet Lines.dll | grep -v '^mvid ') ||
	fail "PDB deleted: Lines exited with $?"
expect "PDB deleted: the runtime has no lines either (the premise)" "$(echo "$sites" | awk '{ print $4 }' | sort -u)" 0

# a stale PDB (another build's) beside the assembly: no lines, not wrong ones
sample=$(build_program Sample) || die "could not build Sample"
mkdir -p "$OUT/stale" && cp "$portable" "$OUT/stale/" && cp "${sample%.dll}.pdb" "$OUT/stale/Lines.pdb"
expect "a stale PDB: no lines" "$(lookup "$OUT/stale")" "Lines.dll: no lines (stale: another build's)
status 0"

# tampered: the right PDB id, other content (a document's name changed, a
# byte the reader would take as it is): the PDB Checksum entry of the
# assembly (SHA-256 of the PDB with its id zeroed) refuses it: no lines
mkdir -p "$OUT/tampered" && cp "$portable" "$OUT/tampered/"
perl -0777 -pe 's/Program\.cs/Pragram.cs/' "${portable%.dll}.pdb" >"$OUT/tampered/Lines.pdb"
cmp -s "${portable%.dll}.pdb" "$OUT/tampered/Lines.pdb" && fail "tampered: the PDB did not change"
expect "tampered: the premise: the PDB id is still the assembly's" \
	"$("$PDB" id "$OUT/tampered/Lines.pdb")" "$("$PDB" id "${portable%.dll}.pdb")"
expect "a tampered PDB with the right id: no lines (its checksum differs)" "$(lookup "$OUT/tampered")" \
	"Lines.dll: no lines (not the PDB it was built with: the checksum differs)
status 0"

# truncated: one error line
size=$(stat -c %s "${portable%.dll}.pdb")
mkdir -p "$OUT/truncated" && cp "$portable" "$OUT/truncated/"
head -c $((size / 2)) "${portable%.dll}.pdb" >"$OUT/truncated/Lines.pdb"
expect "a truncated PDB: one error line" "$(lookup "$OUT/truncated")" "Lines.dll: error: malformed
status 1"
# a Windows PDB's header: not supported, said
mkdir -p "$OUT/windows" && cp "$portable" "$OUT/windows/"
printf 'Microsoft C/C++ MSF 7.00\r\n\032DS\0\0\0' >"$OUT/windows/Lines.pdb"
expect "a Windows PDB: one error line" "$(lookup "$OUT/windows")" "Lines.dll: error: not a portable PDB
status 1"

# every truncation and many corruptions of the real files: no fault (the
# helper dies of a signal otherwise; under sanitizers, of a finding)
for f in "${portable%.dll}.pdb" "$emb/Lines.dll" "$portable"; do
	out=$("$PDB" mangle "$f" 2>&1)
	st=$?
	case $st in
	0) ok "$(echo "$out" | sed "s|$top_builddir/||")" ;;
	*) fail "mangle $f: exit status $st: $out" ;;
	esac
done

finish
