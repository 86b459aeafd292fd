// A long-running program to attach to: it throws and catches one exception
// every 20 ms, says "ready" once running, and ends (exit 0, "done N") when
// the gate file (args[0]) appears, or after args[1] seconds (default 120).
using System;
using System.Diagnostics;
using System.IO;
using System.Threading;

static class Program
{
    static void Thrower(int i)
    {
        throw new InvalidOperationException("attach probe " + i);
    }

    static int Main(string[] args)
    {
        string gate = args.Length > 0 ? args[0] : "";
        int limit = args.Length > 1 ? int.Parse(args[1]) : 120;
        var clock = Stopwatch.StartNew();
        int caught = 0;
        Console.WriteLine("ready " + Environment.ProcessId);
        Console.Out.Flush();
        while (clock.Elapsed.TotalSeconds < limit && (gate == "" || !File.Exists(gate)))
        {
            try { Thrower(caught); }
            catch (InvalidOperationException) { caught++; }
            Thread.Sleep(20);
        }
        Console.WriteLine("done " + caught);
        return 0;
    }
}
