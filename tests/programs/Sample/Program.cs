// The sample traced by setup.sh: a little of everything clrtrace records.
using System;
using System.IO;
using System.Runtime.CompilerServices;
using System.Threading;

namespace Sample
{
    public static class Program
    {
        [MethodImpl(MethodImplOptions.NoInlining)]
        static void ReadConfig(string path)
        {
            try
            {
                File.ReadAllText(path);
            }
            finally
            {
                Console.WriteLine("closing " + path);
            }
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        static int Load(string path)
        {
            try
            {
                ReadConfig(path);
                return 0;
            }
            catch (IOException e) when (e.Message.Length > 0)
            {
                Console.WriteLine("no config, using defaults");
                return 1;
            }
        }

        public static int Main(string[] args)
        {
            var worker = new Thread(() => Load("/nonexistent/worker.conf")) { Name = "worker" };
            worker.Start();
            worker.Join();
            int r = Load("/nonexistent/app.conf");
            GC.Collect();
            Console.WriteLine("done");
            return r == 1 ? 0 : 1;
        }
    }
}
