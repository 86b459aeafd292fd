// Many exceptions of a few types at a few sites, each counted by the
// program itself (tests/sampling.sh compares its counts with the trace's
// kept and left-out errors).
//   storm N          N rounds: each throws a KeyNotFoundException in
//                    Program.Lookup, an InvalidOperationException in
//                    Program.Validate and, every 10th round, a
//                    FormatException in Program.Parse; all caught
//   unhandled N      storm N, then an InvalidOperationException thrown in
//                    Program.Validate escapes Main
//   rethrow N        N rounds of a KeyNotFoundException thrown in
//                    Program.Lookup, caught, rethrown (throw;) and caught
// Prints "count TYPE SITE N" for every (type, site), then "done".
using System;
using System.Collections.Generic;
using System.Runtime.CompilerServices;

namespace Sampling
{
    public static class Program
    {
        static readonly Dictionary<string, long> counts = new Dictionary<string, long>();

        static void Count(string type, string site)
        {
            string k = type + " " + site;
            counts[k] = counts.TryGetValue(k, out long n) ? n + 1 : 1;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        static void Lookup(int i)
        {
            Count("System.Collections.Generic.KeyNotFoundException", "Sampling.Program.Lookup");
            throw new KeyNotFoundException("no key " + i);
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        static void Validate(int i, bool last = false)
        {
            Count("System.InvalidOperationException", "Sampling.Program.Validate");
            if (last)
                Print(); // it is counted: the process dies of it
            throw new InvalidOperationException("invalid " + i);
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        static void Parse(int i)
        {
            Count("System.FormatException", "Sampling.Program.Parse");
            throw new FormatException("bad format " + i);
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        static void Rethrow(int i)
        {
            try
            {
                Lookup(i);
            }
            catch (KeyNotFoundException)
            {
                throw;
            }
        }

        static void Storm(int n)
        {
            for (int i = 0; i < n; i++)
            {
                try { Lookup(i); } catch (KeyNotFoundException) { }
                try { Validate(i); } catch (InvalidOperationException) { }
                if (i % 10 == 0)
                    try { Parse(i); } catch (FormatException) { }
            }
        }

        static void Print()
        {
            foreach (var kv in counts)
                Console.WriteLine("count " + kv.Key + " " + kv.Value);
            Console.WriteLine("done");
            Console.Out.Flush();
        }

        public static int Main(string[] args)
        {
            int n = args.Length > 1 ? int.Parse(args[1]) : 1000;
            switch (args.Length > 0 ? args[0] : "storm")
            {
            case "storm":
                Storm(n);
                break;
            case "unhandled":
                Storm(n);
                Validate(-1, true);
                break;
            case "rethrow":
                for (int i = 0; i < n; i++)
                    try { Rethrow(i); } catch (KeyNotFoundException) { }
                break;
            default:
                Console.Error.WriteLine("usage: storm|unhandled|rethrow N");
                return 2;
            }
            Print();
            return 0;
        }
    }
}
