// Probe: one behaviour per argument, for the foundation tests.
using System;
using System.Runtime.InteropServices;
using System.Threading;

namespace Probe
{
    public static class Program
    {
        [DllImport("libc", EntryPoint = "getpid")]
        static extern int getpid();

        [DllImport("libc", EntryPoint = "strlen")]
        static extern IntPtr strlen(string s);

        [DllImport("libc", EntryPoint = "gettid")]
        static extern int gettid();

        // One line per thread, "ident OS_TID MANAGED_ID NAME|-", then a
        // throw and catch on that thread: the records of the throw must
        // carry the same managed id and name.
        static void ThrowAndSay()
        {
            var me = Thread.CurrentThread;
            lock (typeof(Program))
                Console.WriteLine("ident " + gettid() + " " + Environment.CurrentManagedThreadId + " " + (me.Name ?? "-"));
            try { throw new InvalidOperationException("on " + Environment.CurrentManagedThreadId); }
            catch (InvalidOperationException) { }
        }

        public static int Main(string[] args)
        {
            string what = args.Length > 0 ? args[0] : "hello";
            switch (what)
            {
                case "hello":
                    Console.WriteLine("hello from probe");
                    Console.Error.WriteLine("probe stderr line");
                    return 0;
                case "thread":
                    var t = new Thread(() => Console.WriteLine("in worker")) { Name = "probe-worker" };
                    t.Start();
                    t.Join();
                    Console.WriteLine("joined");
                    return 0;
                case "idents":
                    // the main thread, a thread named before it starts (by
                    // this thread), one that names itself and renames itself,
                    // an unnamed one, a late one, and a pool thread
                    ThrowAndSay();
                    var named = new Thread(ThrowAndSay) { Name = "ct-named" };
                    var self = new Thread(() => { Thread.CurrentThread.Name = "ct-self"; ThrowAndSay(); Thread.CurrentThread.Name = "ct-renamed"; ThrowAndSay(); });
                    var unnamed = new Thread(ThrowAndSay);
                    // throws once before anything on it asked for
                    // Thread.CurrentThread (no managed id yet), then again
                    var late = new Thread(() =>
                    {
                        try { throw new InvalidOperationException("unasked"); }
                        catch (InvalidOperationException) { }
                        ThrowAndSay();
                    }) { Name = "ct-late" };
                    foreach (var th in new[] { named, self, unnamed, late })
                    {
                        th.Start();
                        th.Join();
                    }
                    System.Threading.Tasks.Task.Run(ThrowAndSay).Wait();
                    return 0;
                case "gc":
                    for (int i = 0; i < 3; i++)
                        GC.Collect();
                    Console.WriteLine("collected");
                    return 0;
                case "pinvoke":
                    Console.WriteLine("pid " + (getpid() > 0) + " len " + strlen("abcd"));
                    return 0;
                case "exit":
                    Console.WriteLine("exiting with 3");
                    Console.Out.Flush();
                    Environment.Exit(3);
                    return 0;
                case "status":
                    Console.WriteLine("returning " + args[1]);
                    return int.Parse(args[1]);
                case "sleep":
                    Console.WriteLine("sleeping");
                    Console.Out.Flush();
                    Thread.Sleep(int.Parse(args[1]));
                    Console.WriteLine("slept");
                    return 0;
                case "exitrace":
                    // threads busy throwing while the process exits under them
                    for (int i = 0; i < 4; i++)
                        new Thread(() => { for (;;) { try { throw new InvalidOperationException("spin"); } catch (InvalidOperationException) { } } }) { IsBackground = true }.Start();
                    Thread.Sleep(100);
                    Console.WriteLine("exiting under load");
                    Environment.Exit(5);
                    return 0;
                case "failfast":
                    Console.WriteLine("failing fast");
                    Console.Out.Flush();
                    Environment.FailFast("probe fails fast");
                    return 0;
                case "term":
                    // a service's own SIGTERM handling: stop, work a little, exit 7
                    using (var stop = new ManualResetEventSlim())
                    using (PosixSignalRegistration.Create(PosixSignal.SIGTERM, ctx => { ctx.Cancel = true; stop.Set(); }))
                    {
                        Console.WriteLine("sleeping");
                        Console.Out.Flush();
                        stop.Wait();
                        try { throw new InvalidOperationException("stopping"); } catch (InvalidOperationException) { }
                        Console.WriteLine("stopped");
                        return 7;
                    }
                default:
                    Console.Error.WriteLine("probe: unknown scenario " + what);
                    return 64;
            }
        }
    }
}
