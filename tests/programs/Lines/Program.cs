// Throw sites at known lines.  Each throw carries a marker comment (MARK,
// a colon and the site's name) on the line where its statement starts;
// tests/pdb.sh finds the expected line numbers by looking for them, so
// lines may move freely.  For every site the program prints the method
// token and IL offset of the throwing frame, as the runtime reports them,
// and the runtime's own line; first, the module's MVID.
using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Linq.Expressions;
using System.Reflection;
using System.Runtime.CompilerServices;
using System.Threading.Tasks;

namespace Lines
{
    static class Program
    {
        [MethodImpl(MethodImplOptions.NoInlining)]
        static void Direct()
        {
            int x = Environment.ProcessorCount;
            if (x > 0)
                throw new InvalidOperationException("direct"); // MARK:direct
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        static int MultiLine(int n)
        {
            var list = new List<int> { n };
            throw new ArgumentException( // MARK:multiline
                "spread over " +
                "three lines", nameof(n));
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        static T Generic<T>(T value)
        {
            if (value != null)
                throw new NotSupportedException(typeof(T).Name); // MARK:generic
            return value;
        }

        static class Nested
        {
            internal sealed class Inner
            {
                [MethodImpl(MethodImplOptions.NoInlining)]
                internal void Fail(string what)
                {
                    string s = what.ToUpperInvariant();
                    throw new FormatException(s); // MARK:nested
                }
            }
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        static async Task Async(int delay)
        {
            await Task.Yield();
            await Task.Delay(delay);
            throw new TimeoutException("async"); // MARK:async
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        static void InSwitch(int k)
        {
            switch (k) {
            case 1:
                Console.Write("");
                break;
            default:
                throw new IndexOutOfRangeException("switch " + k); // MARK:switch
            }
        }

        // The frame of the throw: its method token, IL offset and the line
        // the runtime itself gives (from the same PDB).
        static void Report(string name, Exception e)
        {
            StackFrame f = new StackTrace(e, true).GetFrame(0);
            Console.WriteLine("{0} 0x{1:x8} {2} {3}", name, f.GetMethod().MetadataToken, f.GetILOffset(),
                              f.GetFileLineNumber());
        }

        static void Site(string name, Action a)
        {
            try {
                a();
            } catch (Exception e) {
                Report(name, e is AggregateException ae ? ae.InnerException : e);
            }
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        static void Target()
        {
            throw new DivideByZeroException("by reflection"); // STACK:target
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        static int Length(string s, int k)
        {
            Console.Write("");
            int n = s.Length * k; // STACK:null
            return n;
        }

        static void Catch(string name, Action a)
        {
            try {
                a();
            } catch (Exception e) {
                Console.WriteLine("{0} {1}", name, e.GetType().Name);
            }
        }

        // For tests/stacks.sh: what the stacks category must survive and say.
        // Their markers are STACK ones: tests/pdb.sh takes the others as its sites.
        static void More()
        {
            // deep recursion: the depth limit
            Catch("deep", () => Other.Thrower.Throw(200));
            // a throw inside a dynamic method, and its caller's line
            var thrower = Expression.Lambda<Action>(
                Expression.Throw(Expression.New(typeof(InvalidTimeZoneException)))).Compile();
            Catch("dynamic", () => thrower()); // STACK:dynamic
            // wrappers: what they wrap is in the throw record
            Catch("reflection", () => typeof(Program).GetMethod("Target",
                BindingFlags.NonPublic | BindingFlags.Static)!.Invoke(null, null));
            Catch("aggregate", () => Task.WhenAll(Task.Run(() => throw new OverflowException("first")),
                                                 Task.Run(() => throw new RankException("second"))).Wait());
            // a hardware fault: the frame's IP is the faulting instruction
            Catch("null", () => Length(null!, 3));
            // a hand-made chain 10 deep below the thrown one
            Exception chain = new Exception("inner 10");
            for (int i = 9; i >= 1; i--)
                chain = new Exception("inner " + i, chain);
            var outer = new InvalidProgramException("outer", chain);
            Catch("chain", () => throw outer); // STACK:chain
        }

        static void Main(string[] args)
        {
            if (args.Length > 0 && args[0] == "more") {
                More();
                return;
            }
            Console.WriteLine("mvid {0}", typeof(Program).Module.ModuleVersionId);
            Site("direct", Direct);
            Site("multiline", () => MultiLine(3));
            Site("generic", () => Generic("text"));
            Site("nested", () => new Nested.Inner().Fail("nested"));
            Site("async", () => Async(1).Wait());
            Site("switch", () => InSwitch(7));
            Site("lambda", () => {
                var d = new Dictionary<string, int>();
                throw new KeyNotFoundException("lambda"); // MARK:lambda
            });
            Site("other", () => Other.Thrower.Throw(2));
        }
    }
}
