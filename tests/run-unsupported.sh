#!/bin/sh
# What `clrtrace run` cannot trace is said plainly, on real programs:
# - a NativeAOT executable (Probe published with PublishAot) has no CoreCLR
#   to load a profiler: one line names NativeAOT and the JIT build to use,
#   stripped or not; the same program as an apphost is traced as usual;
# - the SDK's own processes, which the default program filter leaves out on
#   purpose: `clrtrace run -- dotnet build` (the real SDK) names them and
#   -p '*', and with -p '*' they are traced.
# A NativeAOT build that cannot be had fails the test under CI=true, and is
# left out with a note elsewhere.
. "${top_srcdir:-.}/tests/lib.sh"

src="$OUT/src"
mkdir -p "$src"
cp -r "$top_srcdir/tests/programs/Probe" "$src/"
cp "$top_srcdir/tests/programs/Directory.Build.props" "$src/"
chmod -R u+w "$src"

# --- NativeAOT ---------------------------------------------------------------
# no NuGet.config: the ILCompiler packages come from the machine's NuGet
# source; a failed request is tried again once
aot=""
for try in 1 2; do
	dotnet publish -c Release -r linux-x64 -p:PublishAot=true -o "$OUT/aot" "$src/Probe/Probe.csproj" \
		>"$OUT/aot-build.log" 2>&1 && aot="$OUT/aot/Probe" && break
	sleep 2
done
if [ -z "$aot" ]; then
	why="no NativeAOT build of Probe: $(grep -m1 -E 'error' "$OUT/aot-build.log" | cut -c1-200) (see $OUT/aot-build.log)"
	[ "${CI:-}" = true ] && fail "$why (CI=true: it must be tested)" || echo "note: NativeAOT left out: $why"
fi
aot_line="is a NativeAOT program, which has no CoreCLR to load a profiler; trace a JIT build of it (dotnet publish without -p:PublishAot=true)"
# unsupported NAME PROGRAM: run it traced; the same status and output as untraced, and one line
unsupported() {
	timeout -k 10 600 "$CLRTRACE" run -o "file:$OUT/$1-%n-%p.jsonl" -- "$2" hello >"$OUT/$1.out" 2>"$OUT/$1.err"
	expect "$1: the program's status" "$?" "$plain"
	cmp -s "$OUT/aot.plain.out" "$OUT/$1.out" && ok "$1: the program's output" || fail "$1: output: $(cat "$OUT/$1.out")"
	grep -v '^clrtrace: ' "$OUT/$1.err" | cmp -s "$OUT/aot.plain.err" - && ok "$1: its stderr, and clrtrace's line" ||
		fail "$1: stderr: $(cat "$OUT/$1.err")"
	expect "$1: no trace file" "$(ls "$OUT"/"$1"-*.jsonl 2>/dev/null)" ""
	expect "$1: one line naming NativeAOT and what to trace instead" "$(grep '^clrtrace: ' "$OUT/$1.err")" \
		"clrtrace: no trace: $2 $aot_line"
}
if [ -n "$aot" ]; then
	# a NativeAOT program: one native file, no Probe.dll and no libcoreclr beside it
	[ -x "$aot" ] && [ ! -e "$OUT/aot/Probe.dll" ] && ! ldd "$aot" | grep -q coreclr &&
		ok "NativeAOT: Probe published as one native executable" || fail "NativeAOT: $(ls "$OUT/aot")"
	"$aot" hello >"$OUT/aot.plain.out" 2>"$OUT/aot.plain.err"
	plain=$?
	unsupported aot "$aot"
	# stripped: the mark is a dynamic symbol, which strip keeps
	cp "$aot" "$OUT/Probe-stripped" && strip --strip-all "$OUT/Probe-stripped" || fail "cannot strip $aot"
	unsupported aot-stripped "$OUT/Probe-stripped"
	# found in PATH as execvp finds it
	(PATH="$OUT/aot:$PATH" timeout -k 10 600 "$CLRTRACE" run -- Probe hello >/dev/null 2>"$OUT/aot-path.err")
	expect "NativeAOT found in PATH: the line" "$(grep '^clrtrace: ' "$OUT/aot-path.err")" "clrtrace: no trace: Probe $aot_line"
fi

# the same program built for the JIT, run through its apphost: traced, no such line
apphost="$(dirname "$(build_program Probe)")/Probe"
trace "$OUT/jit.jsonl" -- "$apphost" hello
expect "apphost: status" "$?" 0
check_trace "$OUT/jit.jsonl"
grep -q NativeAOT "$OUT/jit.jsonl.stderr" && fail "apphost: called NativeAOT: $(cat "$OUT/jit.jsonl.stderr")" ||
	ok "apphost: not called NativeAOT"
# a native program that is not .NET: the line as before
"$CLRTRACE" run -o "file:$OUT/sh-%n-%p.jsonl" -- sh -c 'exit 0' 2>"$OUT/sh.err"
expect "not .NET: the line" "$(cat "$OUT/sh.err")" "clrtrace: no trace file was written (was the program a .NET program?)"

# --- the SDK -----------------------------------------------------------------
cp "$top_srcdir/tests/programs/NuGet.config" "$src/"
# no server left running: each build starts its own MSBuild and compiler, under run
export DOTNET_CLI_USE_MSBUILD_SERVER=0 UseSharedCompilation=false MSBUILDDISABLENODEREUSE=1
sdk_build() { # NAME [run options]: dotnet build of Probe under run
	name=$1
	shift
	rm -rf "$src/Probe/obj" "$src/Probe/bin"
	timeout -k 10 600 "$CLRTRACE" run -o "file:$OUT/$name-%n-%p.jsonl" "$@" -- \
		dotnet build -c Release -o "$OUT/$name.bin" "$src/Probe/Probe.csproj" >"$OUT/$name.out" 2>"$OUT/$name.err"
}
sdk_build sdk
expect "dotnet build: status" "$?" 0
expect "dotnet build: no trace file" "$(ls "$OUT"/sdk-*.jsonl 2>/dev/null)" ""
last=$(grep '^clrtrace: ' "$OUT/sdk.err")
echo "$last" | grep -qxE "clrtrace: no trace: the program filter left out [0-9]+ process(es)? of the \\.NET SDK \\(dotnet build(, [A-Za-z]+)*\\); -p '\\*' traces them" &&
	ok "dotnet build: the line names the SDK's processes and -p '*'" || fail "dotnet build: '$last'"
echo "$last" | grep -q "csc" && ok "dotnet build: the compiler (csc) is named" || fail "dotnet build: no csc in '$last'"

sdk_build all -p '*'
expect "dotnet build -p '*': status" "$?" 0
ls "$OUT"/all-dotnet-*.jsonl >/dev/null 2>&1 && ok "dotnet build -p '*': the SDK's dotnet is traced" ||
	fail "dotnet build -p '*': $(ls "$OUT"; cat "$OUT/all.err")"
grep -q "left out" "$OUT/all.err" && fail "dotnet build -p '*': $(cat "$OUT/all.err")" || ok "dotnet build -p '*': nothing left out"
finish
