// LoadRace: several threads load the same assembly at the same moment,
// round after round, each round a framework assembly the process has not
// loaded yet.  The runtime loads an assembly level by level, each level done
// by whichever waiting thread takes the file's load lock, so the load one
// thread began may be finished by another (tests/loader-race.sh).
//
//   LoadRace [THREADS] [ROUNDS]
//
// Prints "round K NAME" per round (NAME: the assembly's simple name) and
// "rounds N" at the end.
using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Reflection;
using System.Threading;

static class Program
{
	static int Main(string[] args)
	{
		int threads = args.Length > 0 ? int.Parse(args[0]) : 8;
		int rounds = args.Length > 1 ? int.Parse(args[1]) : 100;
		var loaded = new HashSet<string>(AppDomain.CurrentDomain.GetAssemblies().Select(a => a.GetName().Name));
		// the framework's managed assemblies, next to CoreLib (the shared
		// framework, or the program's own directory when self-contained)
		string dir = Path.GetDirectoryName(typeof(object).Assembly.Location);
		var names = Directory.GetFiles(dir, "System.*.dll").Concat(Directory.GetFiles(dir, "Microsoft.*.dll"))
			.Select(Path.GetFileNameWithoutExtension)
			.Where(n => !loaded.Contains(n) && !n.StartsWith("System.Private.") && n != "Microsoft.DiaSymReader.Native.amd64")
			.OrderBy(n => n, StringComparer.Ordinal).ToList();
		int done = 0;
		foreach (string name in names) {
			if (done == rounds)
				break;
			if (AppDomain.CurrentDomain.GetAssemblies().Any(a => a.GetName().Name == name))
				continue; // a dependency of an earlier round
			var go = new Barrier(threads);
			int failed = 0;
			var ts = new Thread[threads];
			for (int i = 0; i < threads; i++) {
				ts[i] = new Thread(() => {
					go.SignalAndWait();
					try {
						Assembly.Load(new AssemblyName(name));
					} catch (Exception) {
						Interlocked.Increment(ref failed);
					}
				});
				ts[i].Start();
			}
			foreach (var t in ts)
				t.Join();
			if (failed > 0)
				continue; // not a loadable assembly (a native image, a reference only)
			Console.WriteLine($"round {done} {name}");
			done++;
		}
		Console.WriteLine($"rounds {done}");
		return 0;
	}
}
