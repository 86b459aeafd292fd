# The NuGet resolver of the runtime matrix (sourced by tests/lib.sh, used by
# test_runtimes in runtimes.sh): the runtime pack of a row, found on the
# machine's NuGet source, and the runtime root assembled from it.
# _rt_restore KEY PIN LOG: for an sc row, restore an empty self-contained
# program for the key's major with the packs pinned to PIN (empty: the SDK's
# choice); for a root row, download the runtime pack PIN into $RT_DIR/pkgs.
# Prints the runtime pack version it got.
_rt_restore() {
	local key=$1 pin=$2 log=$3 v d="$RT_DIR/net$1.probe"
	v=$(rt_major "$key")
	rm -rf "$d" && mkdir -p "$d/p" || return 1
	cp "$top_srcdir/tests/programs/Directory.Build.props" "$top_srcdir/tests/programs/Directory.Build.targets" "$d/"
	chmod u+w "$d"/*
	if [ "$(rt_how "$key")" = root ]; then
		[ -n "$pin" ] || return 1
		# the runtime and ASP.NET Core (tests/webapp.sh), the same version
		printf '<Project Sdk="Microsoft.NET.Sdk"><ItemGroup><PackageDownload Include="%s" Version="[%s]" /><PackageDownload Include="%s" Version="[%s]" /></ItemGroup></Project>\n' \
			Microsoft.NETCore.App.Runtime.linux-x64 "$pin" Microsoft.AspNetCore.App.Runtime.linux-x64 "$pin" >"$d/p/p.csproj"
		dotnet restore --packages "$RT_DIR/pkgs" "$d/p/p.csproj" >>"$log" 2>&1 || return 1
		[ -f "$RT_DIR/pkgs/microsoft.netcore.app.runtime.linux-x64/$pin/runtimes/linux-x64/native/libcoreclr.so" ] || return 1
		[ -d "$RT_DIR/pkgs/microsoft.aspnetcore.app.runtime.linux-x64/$pin/runtimes/linux-x64/lib" ] || return 1
		echo "$pin"
		return
	fi
	echo '<Project Sdk="Microsoft.NET.Sdk"/>' >"$d/p/p.csproj"
	dotnet restore -r linux-x64 -p:SelfContained=true -p:TestTargetFramework="net$v.0" ${pin:+-p:TestPackVersion=$pin} \
		"$d/p/p.csproj" >>"$log" 2>&1 || return 1
	jq -r '.project.frameworks[].downloadDependencies[] | select(.name == "Microsoft.NETCore.App.Runtime.linux-x64")
	  | .version | ltrimstr("[") | sub(",.*"; "")' "$d/p/obj/project.assets.json"
}

# _rt_root VERSION: assemble $RT_DIR/root-VERSION from the downloaded packs
# (the installed muxer, host/fxr/VERSION, shared/Microsoft.NETCore.App/VERSION
# and shared/Microsoft.AspNetCore.App/VERSION), whole or not at all.
_rt_root() {
	local ver=$1 root="$RT_DIR/root-$1" pkgs="$RT_DIR/pkgs" muxer fw asp pack
	pack="$pkgs/microsoft.netcore.app.runtime.linux-x64/$ver/runtimes/linux-x64"
	[ -x "$root/dotnet" ] && return 0
	muxer=$(readlink -f "$(command -v dotnet)") || return 1
	rm -rf "$root.tmp"
	fw="$root.tmp/shared/Microsoft.NETCore.App/$ver"
	asp="$root.tmp/shared/Microsoft.AspNetCore.App/$ver"
	mkdir -p "$root.tmp/host/fxr/$ver" "$fw" "$asp" &&
		cp "$muxer" "$root.tmp/dotnet" &&
		cp "$pack/native/libhostfxr.so" "$root.tmp/host/fxr/$ver/" &&
		cp "$pack"/lib/net*/* "$fw/" &&
		find "$pack/native" -maxdepth 1 -type f ! -name libhostfxr.so -exec cp {} "$fw/" \; &&
		cp "$pkgs/microsoft.aspnetcore.app.runtime.linux-x64/$ver/runtimes/linux-x64/lib"/net*/* "$asp/" &&
		mv "$root.tmp" "$root"
}

# _rt_candidates KEY LOG: pack versions of KEY's major to fall back to,
# newest first: those the source's NU1102 errors name, then the older
# patches of RT_FALLBACK.
_rt_candidates() {
	local v
	v=$(rt_major "$1")
	{
		grep -o 'Nearest version: [0-9.]*' "$2" | sed 's/.* //'
		echo "$RT_FALLBACK" | tr ' ' '\n'
	} | grep -E "^$v\\.0\\.[0-9]+\$" | awk '!seen[$0]++' | head -4
}

# _rt_resolve KEY: find a runtime pack for KEY (called under the lock);
# writes $RT_DIR/netKEY.version ("VERSION TRIES") or $RT_DIR/netKEY.failed.
_rt_resolve() {
	local key=$1 log="$RT_DIR/net$1.log" got="" tries=0 var="CLRTRACE_TEST_PACK_$1" pin
	: >"$log"
	# the wanted version (or CLRTRACE_TEST_PACK_KEY), twice: a first request can fail
	eval "pin=\${$var:-}"
	[ -n "$pin" ] || pin=$(rt_row "$key" 2)
	for pin in "$pin" "$pin"; do
		tries=$((tries + 1))
		echo "== try $tries: ${pin:-the SDK default}" >>"$log"
		got=$(_rt_restore "$key" "$pin" "$log") && [ -n "$got" ] && break
		got=""; sleep 2
	done
	if [ -z "$got" ]; then
		for pin in $(_rt_candidates "$key" "$log"); do
			tries=$((tries + 1))
			echo "== try $tries: $pin" >>"$log"
			got=$(_rt_restore "$key" "$pin" "$log") && [ -n "$got" ] && break
			got=""
		done
	fi
	if [ -n "$got" ] && [ "$(rt_how "$key")" = root ] && ! _rt_root "$got" >>"$log" 2>&1; then
		echo "== could not assemble the runtime root of $got" >>"$log"
		got=""
	fi
	if [ -n "$got" ]; then
		echo "$got $tries" >"$RT_DIR/net$key.version"
		rm -f "$RT_DIR/net$key.failed"
	else
		echo "no .NET $key runtime pack from the NuGet source after $tries tries ($(grep -m1 -o 'error NU[0-9]*:.*' "$log" | cut -c1-160); see $log)" >"$RT_DIR/net$key.failed"
	fi
}
