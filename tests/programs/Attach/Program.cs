// A long-running program to attach to: it throws and catches one exception
// every 20 ms, says "ready PID" once running, and ends (exit 0, "done N")
// when the gate file (args[0]) appears, or after args[1] seconds (default
// 120).  With args[2] = T > 0, T more threads throw without a pause, through
// a finally and a filter, so that an attach lands inside exception dispatch;
// after 20,000 exceptions each they pause 1 ms between throws, so that a
// slow detach on a loaded machine cannot make a trace of gigabytes.
using System;
using System.Diagnostics;
using System.IO;
using System.Threading;

static class Program
{
    static volatile bool stop;
    static long busy;

    static void Thrower(int i)
    {
        throw new InvalidOperationException("attach probe " + i);
    }

    static void Nested(int i)
    {
        try { Thrower(i); }
        finally { Interlocked.Increment(ref busy); }
    }

    static void Busy()
    {
        int i = 0;
        while (!stop)
        {
            try { Nested(i++); }
            catch (InvalidOperationException) when (i % 2 == 0) { }
            catch (InvalidOperationException) { }
            if (i > 20000)
                Thread.Sleep(1);
        }
    }

    static int Main(string[] args)
    {
        string gate = args.Length > 0 ? args[0] : "";
        int limit = args.Length > 1 ? int.Parse(args[1]) : 120;
        int threads = args.Length > 2 ? int.Parse(args[2]) : 0;
        var clock = Stopwatch.StartNew();
        var workers = new Thread[threads];
        int caught = 0;
        for (int t = 0; t < threads; t++)
        {
            workers[t] = new Thread(Busy);
            workers[t].Start();
        }
        Console.WriteLine("ready " + Environment.ProcessId);
        Console.Out.Flush();
        while (clock.Elapsed.TotalSeconds < limit && (gate == "" || !File.Exists(gate)))
        {
            try { Thrower(caught); }
            catch (InvalidOperationException) { caught++; }
            Thread.Sleep(20);
        }
        stop = true;
        foreach (var w in workers)
            w.Join();
        Console.WriteLine("done " + caught);
        return 0;
    }
}
