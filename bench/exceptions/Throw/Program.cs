// clrtrace benchmark: the cost of one thrown-and-caught exception.
//
// Usage: dotnet Throw.dll [N [WARMUP [THREADS]]]
//
// Each iteration throws an InvalidOperationException in Thrower, which
// unwinds through WithFinally (one finally clause) and PassThrough to
// Catcher, where it is caught: 3 frames between the throw and the catch,
// every one [NoInlining] so the JIT cannot fold them away.  WARMUP
// iterations run first (tiering, first-chance costs, the tracer's caches),
// then N iterations are timed with a Stopwatch.  With THREADS > 1, the N
// iterations (and the warm-up) are split between that many threads, which
// start together: loop_ns is the time until the last one ends, so N divided
// by it is the exceptions per second of them all.  The last line is
// machine-readable:
//
//   THROW n=N warmup=W threads=T loop_ns=L ns_per_exception=X caught=C finally=F
using System;
using System.Diagnostics;
using System.Runtime.CompilerServices;
using System.Threading;

static class Program
{
    [ThreadStatic] static long finallies;
    [ThreadStatic] static long caught;
    static long totalFinallies, totalCaught;

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

    // Add this thread's counts to the totals.
    static void Count()
    {
        Interlocked.Add(ref totalCaught, caught);
        Interlocked.Add(ref totalFinallies, finallies);
        caught = finallies = 0;
    }

    static int Main(string[] args)
    {
        int n = args.Length > 0 ? int.Parse(args[0]) : 100000;
        int warmup = args.Length > 1 ? int.Parse(args[1]) : 1000;
        int threads = args.Length > 2 ? int.Parse(args[2]) : 1;
        long ns;

        if (threads <= 1)
        {
            threads = 1;
            Loop(warmup);
            GC.Collect();
            GC.WaitForPendingFinalizers();

            var sw = Stopwatch.StartNew();
            Loop(n);
            sw.Stop();
            Count();
            ns = (long)(sw.ElapsedTicks * (1e9 / Stopwatch.Frequency));
        }
        else
        {
            // every thread warms up, then all wait for the start together
            var ready = new Barrier(threads + 1);
            var done = new CountdownEvent(threads);
            var workers = new Thread[threads];
            for (int k = 0; k < threads; k++)
            {
                int share = n / threads + (k < n % threads ? 1 : 0);
                int wshare = warmup / threads + (k < warmup % threads ? 1 : 0);
                workers[k] = new Thread(() =>
                {
                    Loop(wshare);
                    ready.SignalAndWait();
                    ready.SignalAndWait();
                    Loop(share);
                    Count();
                    done.Signal();
                });
                workers[k].Start();
            }
            ready.SignalAndWait();
            GC.Collect();
            GC.WaitForPendingFinalizers();
            var sw = Stopwatch.StartNew();
            ready.SignalAndWait();
            done.Wait();
            sw.Stop();
            foreach (var w in workers)
                w.Join();
            ns = (long)(sw.ElapsedTicks * (1e9 / Stopwatch.Frequency));
        }

        if (totalCaught != n + warmup || totalFinallies != n + warmup)
        {
            Console.Error.WriteLine($"Throw: expected {n + warmup} catches and finallies, got {totalCaught} and {totalFinallies}");
            return 1;
        }
        Console.WriteLine($"THROW n={n} warmup={warmup} threads={threads} loop_ns={ns} ns_per_exception={(n > 0 ? (double)ns / n : 0):F1} caught={totalCaught} finally={totalFinallies}");
        return 0;
    }
}
