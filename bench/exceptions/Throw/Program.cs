// clrtrace benchmark: the cost of one thrown-and-caught exception.
//
// Usage: dotnet Throw.dll [N [WARMUP]]
//
// Each iteration throws an InvalidOperationException in Thrower, which
// unwinds through WithFinally (one finally clause) and PassThrough to
// Catcher, where it is caught: 3 frames between the throw and the catch,
// every one [NoInlining] so the JIT cannot fold them away.  WARMUP
// iterations run first (tiering, first-chance costs, the tracer's caches),
// then N iterations are timed with a Stopwatch.  The last line is
// machine-readable:
//
//   THROW n=N warmup=W loop_ns=T ns_per_exception=X caught=C finally=F
using System;
using System.Diagnostics;
using System.Runtime.CompilerServices;

static class Program
{
    static long finallies;
    static long caught;

    [MethodImpl(MethodImplOptions.NoInlining)]
    static void Thrower(int i)
    {
        throw new InvalidOperationException("boom");
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static void WithFinally(int i)
    {
        try
        {
            Thrower(i);
        }
        finally
        {
            finallies++;
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static void PassThrough(int i)
    {
        WithFinally(i);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static void Catcher(int i)
    {
        try
        {
            PassThrough(i);
        }
        catch (InvalidOperationException)
        {
            caught++;
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static void Loop(int n)
    {
        for (int i = 0; i < n; i++)
            Catcher(i);
    }

    static int Main(string[] args)
    {
        int n = args.Length > 0 ? int.Parse(args[0]) : 100000;
        int warmup = args.Length > 1 ? int.Parse(args[1]) : 1000;

        Loop(warmup);
        GC.Collect();
        GC.WaitForPendingFinalizers();

        var sw = Stopwatch.StartNew();
        Loop(n);
        sw.Stop();

        long ns = (long)(sw.ElapsedTicks * (1e9 / Stopwatch.Frequency));
        if (caught != n + warmup || finallies != n + warmup)
        {
            Console.Error.WriteLine($"Throw: expected {n + warmup} catches and finallies, got {caught} and {finallies}");
            return 1;
        }
        Console.WriteLine($"THROW n={n} warmup={warmup} loop_ns={ns} ns_per_exception={(n > 0 ? (double)ns / n : 0):F1} caught={caught} finally={finallies}");
        return 0;
    }
}
