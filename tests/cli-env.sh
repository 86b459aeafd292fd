#!/bin/sh
# eval "$(clrtrace env)" then `dotnet build`: the SDK's own processes
# (dotnet, csc, VBCSCompiler, MSBuild nodes) leave no trace file, as under
# `run`; `dotnet app.dll` and `dotnet exec app.dll` are traced; -p '*'
# brings the SDK back.  The build's result is the same as untraced.
. "${top_srcdir:-.}/tests/lib.sh"

src="$OUT/src"
mkdir -p "$src"
cp -r "$top_srcdir/tests/programs/Probe" "$src/"
cp "$top_srcdir/tests/programs/Directory.Build.props" "$top_srcdir/tests/programs/NuGet.config" "$src/"
chmod -R u+w "$src"
# no server left running between the builds: each one starts its own compiler
export DOTNET_CLI_USE_MSBUILD_SERVER=0 UseSharedCompilation=false

# files PREFIX: the program names of the trace files PREFIX-*.jsonl, sorted
files() { ls "$OUT"/"$1"-*.jsonl 2>/dev/null | sed -e "s|^$OUT/$1-||" -e 's/-[0-9]*\.jsonl$//' | sort -u | tr '\n' ' '; }

# untraced, for comparison
dotnet build -c Release -o "$OUT/plain" "$src/Probe/Probe.csproj" >"$OUT/plain.log" 2>&1
expect "untraced build" "$?" 0

(
	eval "$("$CLRTRACE" env -o "file:$OUT/sdk-%n-%p.jsonl")" || exit 1
	rm -rf "$src/Probe/obj" "$src/Probe/bin"
	dotnet build -c Release -o "$OUT/traced" "$src/Probe/Probe.csproj" >"$OUT/traced.log" 2>&1 || exit 2
	dotnet "$OUT/traced/Probe.dll" hello >"$OUT/app.stdout" 2>&1 || exit 3
	dotnet exec "$OUT/traced/Probe.dll" hello >"$OUT/exec.stdout" 2>&1 || exit 4
)
expect "build and runs under clrtrace env" "$?" 0
expect "the build's output files are as untraced" "$(cd "$OUT/traced" && ls | sort | tr '\n' ' ')" "$(cd "$OUT/plain" && ls | sort | tr '\n' ' ')"
expect "clrtrace env: trace files only of the app (dotnet app.dll, dotnet exec)" "$(files sdk)" "Probe "
expect "clrtrace env: two runs of the app traced" "$(ls "$OUT"/sdk-Probe-*.jsonl | wc -l | tr -d ' ')" 2
for f in "$OUT"/sdk-Probe-*.jsonl; do check_trace "$f"; done

# -p '*': the SDK's processes are traced again
(
	eval "$("$CLRTRACE" env -p '*' -o "file:$OUT/all-%n-%p.jsonl")" || exit 1
	rm -rf "$src/Probe/obj" "$src/Probe/bin"
	dotnet build -c Release -o "$OUT/traced2" "$src/Probe/Probe.csproj" >"$OUT/traced2.log" 2>&1 || exit 2
)
expect "build under clrtrace env -p '*'" "$?" 0
case " $(files all)" in
*" dotnet "*) ok "-p '*': the dotnet CLI traced ($(files all))" ;;
*) fail "-p '*': no trace of dotnet: $(files all)" ;;
esac
finish
