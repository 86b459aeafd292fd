// Many threads, each throwing through a finally into a catch with a filter:
// the load under which dotnet/runtime#132462 (the exception object left
// unprotected while the profiler's filter-enter and catcher-enter callbacks
// run) crashes a traced program.  Usage: FilterLoad [THREADS [ITERATIONS]]
using System;
using System.Threading;

namespace FilterLoad
{
    public static class Program
    {
        private static long finallies, caught;

        private static void Worker(int iterations)
        {
            int n = 0, c = 0;

            for (int i = 0; i < iterations; i++)
            {
                try
                {
                    try
                    {
                        throw new InvalidOperationException("msg-" + i);
                    }
                    finally
                    {
                        n++;
                    }
                }
                catch (InvalidOperationException e) when (e.Message.Length > 0)
                {
                    c++;
                }
            }
            Interlocked.Add(ref finallies, n);
            Interlocked.Add(ref caught, c);
        }

        public static int Main(string[] args)
        {
            int threads = args.Length > 0 ? int.Parse(args[0]) : 64;
            int iterations = args.Length > 1 ? int.Parse(args[1]) : 2000;
            var all = new Thread[threads];

            for (int t = 0; t < threads; t++)
            {
                all[t] = new Thread(() => Worker(iterations));
                all[t].Start();
            }
            foreach (var t in all)
                t.Join();
            Console.WriteLine($"done filterload threads={threads} iterations={iterations} caught={caught} finally={finallies}");
            return caught == (long)threads * iterations && finallies == caught ? 0 : 1;
        }
    }
}
