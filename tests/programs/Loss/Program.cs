// Loss: scenarios for the loss accounting tests (tests/loss-*.sh).
using System;
using System.IO;
using System.Runtime.InteropServices;
using System.Threading;

namespace Loss
{
    public class LossTestException : Exception
    {
        public LossTestException(string message) : base(message) { }
    }

    public static class Program
    {
        [DllImport("libc", EntryPoint = "getpid")]
        static extern int getpid();

        // N P/Invoke calls as fast as possible (with -e +transitions: two
        // records each)
        static long Burst(int n)
        {
            long sum = 0;
            for (int i = 0; i < n; i++)
                sum += getpid() > 0 ? 1 : 0;
            return sum;
        }

        static int CatchOne(int i)
        {
            try
            {
                throw new LossTestException("loss test " + i);
            }
            catch (LossTestException)
            {
                return 1;
            }
        }

        public static int Main(string[] args)
        {
            string what = args.Length > 0 ? args[0] : "burst";
            int n = args.Length > 1 ? int.Parse(args[1]) : 1000;
            switch (what)
            {
                case "burst":
                    Console.WriteLine("calls " + Burst(n));
                    return 0;
                case "burst-unhandled":
                    // a burst, then an exception nobody catches
                    Console.WriteLine("calls " + Burst(n));
                    Console.Out.Flush();
                    throw new LossTestException("unhandled after the burst");
                case "slow-catch":
                    // an exception whose catch block waits for the file
                    // args[2] (the test steps the wall clock meanwhile)
                    try
                    {
                        throw new LossTestException("slow catch");
                    }
                    catch (LossTestException)
                    {
                        Console.WriteLine("waiting");
                        Console.Out.Flush();
                        for (int i = 0; i < 6000 && !File.Exists(args[2]); i++)
                            Thread.Sleep(10);
                    }
                    Console.WriteLine("caught");
                    return 0;
                case "gate":
                    // a burst of N, then wait for the file args[2] to exist
                    // (the test changes the disk meanwhile), then a burst of args[3]
                    long sum = Burst(n);
                    Console.WriteLine("waiting");
                    Console.Out.Flush();
                    for (int i = 0; i < 6000 && !File.Exists(args[2]); i++)
                        Thread.Sleep(10);
                    sum += Burst(int.Parse(args[3]));
                    Console.WriteLine("calls " + sum);
                    return 0;
                case "exit-throwing":
                    // N threads throw and catch without end; Environment.Exit
                    // while they do
                    for (int t = 0; t < n; t++)
                        new Thread(() => { for (int i = 0; ; i++) CatchOne(i); }) { IsBackground = true }.Start();
                    Thread.Sleep(300);
                    Console.WriteLine("exiting");
                    Console.Out.Flush();
                    Environment.Exit(3);
                    return 0;
                default:
                    Console.Error.WriteLine("loss: unknown scenario " + what);
                    return 64;
            }
        }
    }
}
