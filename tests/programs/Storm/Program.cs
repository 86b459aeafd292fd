// Storm: threads throwing at once, for tests/stress-*.sh (the record path
// under contention).  Each thread's exceptions carry "K:I" (thread K, its
// I-th exception) as their message, so the test can tell what each thread
// threw from the trace alone, and the program says what each thread did
// ("thread K tid T threw N") for the test to compare.
using System;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Threading;

namespace Storm
{
    public class StormException : Exception { public StormException(string m) : base(m) { } }

    public static class Program
    {
        [DllImport("libc", EntryPoint = "gettid")]
        static extern int gettid();

        static int[] tids;
        static long[] done;     // exceptions caught (their catch block left), per thread
        static long[] passed;   // finally blocks run, per thread
        static volatile bool stop;

        // the throw, two frames under the catch, through a finally
        [MethodImpl(MethodImplOptions.NoInlining)]
        static void Throw(int k, int i) { throw new StormException(k + ":" + i); }
        [MethodImpl(MethodImplOptions.NoInlining)]
        static void Middle(int k, int i)
        {
            try { Throw(k, i); }
            finally { passed[k]++; }
        }
        [MethodImpl(MethodImplOptions.NoInlining)]
        static void One(int k, int i)
        {
            try { Middle(k, i); }
            catch (StormException) { }
            Volatile.Write(ref done[k], i + 1);
        }

        // thread K: N exceptions (N < 0: until stop)
        [MethodImpl(MethodImplOptions.NoInlining)]
        static void Worker(int k, int n)
        {
            tids[k] = gettid();
            for (int i = 0; n < 0 ? !stop : i < n; i++)
                One(k, i);
        }

        static Thread[] Start(int threads, int n)
        {
            tids = new int[threads];
            done = new long[threads];
            passed = new long[threads];
            var ts = new Thread[threads];
            for (int k = 0; k < threads; k++) {
                int kk = k;
                ts[k] = new Thread(() => Worker(kk, n)) { IsBackground = true, Name = "storm-" + k };
                ts[k].Start();
            }
            return ts;
        }

        // what each thread has caught so far, one line each
        static void Say(string verb)
        {
            for (int k = 0; k < tids.Length; k++)
                Console.WriteLine("thread " + k + " tid " + tids[k] + " " + verb + " " + Volatile.Read(ref done[k]));
            Console.Out.Flush();
        }

        // until every thread has caught at least MIN
        static void AtLeast(int min)
        {
            for (int k = 0; k < done.Length; k++)
                while (Volatile.Read(ref done[k]) < min)
                    Thread.Sleep(1);
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        static void Doomed() { throw new StormException("doomed"); }

        public static int Main(string[] args)
        {
            string what = args.Length > 0 ? args[0] : "storm";
            int threads = args.Length > 1 ? int.Parse(args[1]) : 8;
            switch (what) {
            case "storm": {
                // THREADS threads throw N each; all joined
                int n = args.Length > 2 ? int.Parse(args[2]) : 20000;
                var ts = Start(threads, n);
                foreach (var t in ts) t.Join();
                Say("threw");
                return 0;
            }
            case "exit":
                // Environment.Exit while THREADS threads throw; the counts
                // are taken when the process starts to exit (ProcessExit
                // runs before the runtime's shutdown)
                AppDomain.CurrentDomain.ProcessExit += (s, e) => Say("completed");
                Start(threads, -1);
                AtLeast(200);
                Console.WriteLine("exiting");
                Environment.Exit(3);
                return 0;
            case "unhandled": {
                // an exception nobody catches on one more thread while
                // THREADS threads throw; the counts are taken when the
                // runtime reports it (before the process dies)
                AppDomain.CurrentDomain.UnhandledException += (s, e) => Say("completed");
                Start(threads, -1);
                AtLeast(200);
                var t = new Thread(Doomed) { Name = "doomed" };
                t.Start();
                t.Join();
                return 0;
            }
            case "forever":
                // THREADS threads throw until the process is killed; what
                // they had caught once each had 200
                Start(threads, -1);
                AtLeast(200);
                Say("completed");
                Console.WriteLine("throwing");
                Console.Out.Flush();
                Thread.Sleep(Timeout.Infinite);
                return 0;
            default:
                Console.Error.WriteLine("storm: unknown scenario " + what);
                return 64;
            }
        }
    }
}
