// A console program whose start-up clrtrace startup audits: it loads a
// few assemblies, runs a type initializer, makes a dynamic method, probes
// for a missing assembly, forces a collection, and prints at the end what
// the runtime itself counted.
using System;
using System.Linq;
using System.Reflection.Emit;
using System.Text.Json;

static class Config
{
	public static readonly string Name = Environment.GetEnvironmentVariable("HOME") ?? "none";
}

static class Program
{
	[System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.NoInlining)]
	static void ClrtraceReady() { }

	static int Main(string[] args)
	{
		var doc = JsonSerializer.Serialize(new[] { 1, 2, 3 }.Select(x => x * 2).ToArray());
		var dm = new DynamicMethod("Twice", typeof(int), new[] { typeof(int) });
		var il = dm.GetILGenerator();
		il.Emit(OpCodes.Ldarg_0);
		il.Emit(OpCodes.Ldc_I4_2);
		il.Emit(OpCodes.Mul);
		il.Emit(OpCodes.Ret);
		var f = (Func<int, int>)dm.CreateDelegate(typeof(Func<int, int>));
		// a probe for an assembly that is not there, as plug-in loaders do
		try { System.Reflection.Assembly.Load("No.Such.Assembly"); }
		catch (System.IO.FileNotFoundException) { }
		GC.Collect();
		Console.WriteLine($"work {doc} {f(21)} {Config.Name.Length > 0}");
		// what the runtime counted, all threads, up to here; then the
		// program's ready mark (clrtrace startup: ClrtraceReady compiled)
		int assemblies = AppDomain.CurrentDomain.GetAssemblies().Length;
		int gc0 = GC.CollectionCount(0);
		long jit = System.Runtime.JitInfo.GetCompiledMethodCount(false);
		ClrtraceReady();
		Console.WriteLine($"counts assemblies {assemblies} jit {jit} gc0 {gc0}");
		return 0;
	}
}
