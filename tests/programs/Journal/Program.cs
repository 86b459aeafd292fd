// Journal: scenarios for the journal sink tests (tests/journal*.sh).
using System;
using System.Runtime.InteropServices;
using System.Threading;
using System.Threading.Tasks;

namespace Journal
{
    public class JournalTestException : Exception
    {
        public JournalTestException(string message) : base(message) { }
    }

    public static class Program
    {
        [DllImport("libc", EntryPoint = "getpid")]
        static extern int getpid();

        static void Thrower(int i)
        {
            throw new JournalTestException("journal test " + i);
        }

        static int CatchOne(int i)
        {
            try
            {
                Thrower(i);
            }
            catch (JournalTestException)
            {
                return 1;
            }
            return 0;
        }

        // an async method that throws: its code is a state machine's
        // MoveNext (Journal.Program+<ThrowAsync>d__N.MoveNext)
        static async Task ThrowAsync(int i)
        {
            await Task.Yield();
            throw new JournalTestException("journal async " + i);
        }

        // a throw; of what was caught: a rethrow of the first throw
        static int Rethrow()
        {
            try
            {
                try
                {
                    Thrower(0);
                }
                catch (JournalTestException)
                {
                    throw;
                }
            }
            catch (JournalTestException)
            {
                return 1;
            }
            return 0;
        }

        static void Fail()
        {
            throw new InvalidOperationException("journal unhandled");
        }

        public static int Main(string[] args)
        {
            string what = args.Length > 0 ? args[0] : "throw";
            int n = args.Length > 1 ? int.Parse(args[1]) : 1;
            int caught = 0;
            switch (what)
            {
                case "throw":
                    // N exceptions thrown and caught, after the main thread's
                    // Thread object exists (its records then carry managed_tid)
                    GC.KeepAlive(Thread.CurrentThread);
                    for (int i = 0; i < n; i++)
                        caught += CatchOne(i);
                    Console.WriteLine("caught " + caught);
                    return 0;
                case "async":
                    try
                    {
                        ThrowAsync(0).GetAwaiter().GetResult();
                    }
                    catch (JournalTestException)
                    {
                        caught++;
                    }
                    Console.WriteLine("caught " + caught);
                    return 0;
                case "rethrow":
                    caught = Rethrow();
                    Console.WriteLine("caught " + caught);
                    return 0;
                case "unhandled":
                    Console.WriteLine("about to fail");
                    Console.Out.Flush();
                    Fail();
                    return 0;
                case "threads":
                    // N rounds of 20 ms, each starting and joining a thread and
                    // throwing one exception: a steady stream of records
                    for (int i = 0; i < n; i++)
                    {
                        var t = new Thread(() => { }) { Name = "journal-" + i };
                        t.Start();
                        t.Join();
                        caught += CatchOne(i);
                        Thread.Sleep(20);
                    }
                    Console.WriteLine("rounds " + n + " caught " + caught);
                    return 0;
                case "burst":
                    // N P/Invoke calls as fast as possible (with -e +transitions:
                    // two records each)
                    long sum = 0;
                    for (int i = 0; i < n; i++)
                        sum += getpid() > 0 ? 1 : 0;
                    Console.WriteLine("calls " + sum);
                    return 0;
                default:
                    Console.Error.WriteLine("journal: unknown scenario " + what);
                    return 64;
            }
        }
    }
}
