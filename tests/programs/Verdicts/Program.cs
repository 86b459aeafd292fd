// Verdict scenarios for tests/exceptions-verdicts.sh: native boundaries
// (reflection, type initializers, reverse P/Invoke), unhandled exceptions,
// "reported unhandled then survived", Environment.Exit and rethrow
// journeys.  One scenario per argument; every method that matters is
// NoInlining so the frames the tests name exist.
using System;
using System.Reflection;
using System.Runtime.CompilerServices;
using System.Runtime.ExceptionServices;
using System.Runtime.InteropServices;
using System.Threading;
using System.Threading.Tasks;

namespace Verdicts
{
    public class AlphaException : Exception { public AlphaException(string m) : base(m) { } }
    public class BetaException : Exception { public BetaException(string m) : base(m) { } }

    public class Thrower
    {
        public Thrower() { Fail("ctor"); }
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static void Fail(string m) { throw new AlphaException(m); }
    }

    static class Doomed
    {
        public static readonly int Value = Init();
        [MethodImpl(MethodImplOptions.NoInlining)]
        static int Init() { throw new AlphaException("cctor"); }
    }

    // Dispose throws Beta while Alpha unwinds through the using block
    sealed class Res : IDisposable
    {
        public void Dispose() { throw new BetaException("dispose"); }
    }

    public static class Program
    {
        static int counter;

        [MethodImpl(MethodImplOptions.NoInlining)]
        static void Invoke()
        {
            MethodInfo m = typeof(Thrower).GetMethod("Fail");
            for (int i = 0; i < 3; i++)
            {
                try { m.Invoke(null, new object[] { "invoke" }); }
                catch (TargetInvocationException) { counter++; }
            }
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        static void Activate()
        {
            try { Activator.CreateInstance(typeof(Thrower)); }
            catch (TargetInvocationException) { counter++; }
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        static void DynamicInvoke()
        {
            Action<string> d = Thrower.Fail;
            try { d.DynamicInvoke("dynamic"); }
            catch (TargetInvocationException) { counter++; }
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        static void TypeInit()
        {
            try { counter += Doomed.Value; }
            catch (TypeInitializationException) { counter++; }
        }

        // the second access throws the TypeInitializationException the
        // runtime cached at the first, its stack trace cleared
        [MethodImpl(MethodImplOptions.NoInlining)]
        static void TypeInitAgain()
        {
            TypeInit();
            TypeInit();
        }

        [UnmanagedCallersOnly]
        static unsafe int Compare(void* a, void* b) { throw new AlphaException("reverse"); }

        [DllImport("libc", EntryPoint = "qsort")]
        static extern unsafe void qsort(void* b, nuint n, nuint size, delegate* unmanaged<void*, void*, int> cmp);

        // the catch cannot help: an exception may not cross a reverse P/Invoke
        [MethodImpl(MethodImplOptions.NoInlining)]
        static unsafe void Reverse()
        {
            int* v = stackalloc int[2];
            v[0] = 2; v[1] = 1;
            try { qsort(v, 2, sizeof(int), &Compare); }
            catch (AlphaException) { counter++; }
        }

        [DllImport("libc", EntryPoint = "bsearch")]
        static extern unsafe void* bsearch(void* key, void* b, nuint n, nuint size, IntPtr cmp);
        [MethodImpl(MethodImplOptions.NoInlining)]
        static int Cmp(IntPtr a, IntPtr b) { throw new AlphaException("delegate"); }
        delegate int CmpFn(IntPtr a, IntPtr b);
        static CmpFn keep;

        // the same through a marshalled delegate
        [MethodImpl(MethodImplOptions.NoInlining)]
        static unsafe void ReverseDelegate()
        {
            int* v = stackalloc int[2];
            int key = 1;
            v[0] = 1; v[1] = 2;
            keep = Cmp;
            try { bsearch(&key, v, 2, sizeof(int), Marshal.GetFunctionPointerForDelegate(keep)); }
            catch (AlphaException) { counter++; }
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        static void Boom(string m) { throw new AlphaException(m); }

        [MethodImpl(MethodImplOptions.NoInlining)]
        static void UnhandledPool()
        {
            ThreadPool.QueueUserWorkItem(_ => Boom("pool"));
            Thread.Sleep(30000);
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        static void UnhandledHandler()
        {
            AppDomain.CurrentDomain.UnhandledException += (s, e) => Console.Error.WriteLine("handler saw " + e.ExceptionObject.GetType().Name);
            Boom("handled?");
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        static void UsingThrow()
        {
            using (new Res()) Boom("using");
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        static void DisposeCaught()
        {
            try { UsingThrow(); }
            catch (BetaException) { counter++; }
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        static void DisposeUncaught()
        {
            try { UsingThrow(); }
            catch (InvalidOperationException) { counter++; }
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        static void ExitInCatch()
        {
            try { Boom("exit"); }
            catch (AlphaException) { Console.Out.Flush(); Environment.Exit(3); }
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        static void FinallyExit()
        {
            try { Boom("exit"); }
            finally { Console.Out.Flush(); Environment.Exit(4); }
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        static void ExitInFinally()
        {
            try { FinallyExit(); }
            catch (AlphaException) { counter++; }
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        static void RethrowInner()
        {
            try { Boom("again"); }
            catch (AlphaException) { counter++; throw; }
        }
        [MethodImpl(MethodImplOptions.NoInlining)]
        static void Rethrow()
        {
            try { RethrowInner(); }
            catch (AlphaException) { counter++; }
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        static void Edi()
        {
            ExceptionDispatchInfo edi = null;
            try { Boom("edi"); }
            catch (AlphaException e) { edi = ExceptionDispatchInfo.Capture(e); }
            try { edi.Throw(); }
            catch (AlphaException) { counter++; }
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        static async Task ThrowLater()
        {
            await Task.Yield();
            Boom("async");
        }
        [MethodImpl(MethodImplOptions.NoInlining)]
        static void Await()
        {
            try { ThrowLater().GetAwaiter().GetResult(); }
            catch (AlphaException) { counter++; }
        }

        // a catch inside a finally that runs while Alpha unwinds; Alpha is
        // caught further up
        [MethodImpl(MethodImplOptions.NoInlining)]
        static void CatchInFinallyInner()
        {
            try { Boom("outer"); }
            finally
            {
                try { throw new BetaException("inner"); }
                catch (BetaException) { counter++; }
            }
        }
        [MethodImpl(MethodImplOptions.NoInlining)]
        static void CatchInFinally()
        {
            try { CatchInFinallyInner(); }
            catch (AlphaException) { counter++; }
        }

        // another thread sits in a catch block when the process exits
        [MethodImpl(MethodImplOptions.NoInlining)]
        static void ExitOtherThread()
        {
            var inCatch = new ManualResetEventSlim();
            var t = new Thread(() =>
            {
                try { Boom("other"); }
                catch (AlphaException) { inCatch.Set(); Thread.Sleep(Timeout.Infinite); }
            });
            t.IsBackground = true;
            t.Start();
            inCatch.Wait();
            Environment.Exit(5);
        }

        // Beta, thrown in Alpha's finally, is caught past it in the same
        // method: Alpha (whose catch is in the caller) is superseded
        [MethodImpl(MethodImplOptions.NoInlining)]
        static void FinallyLeftSameMethod()
        {
            try
            {
                try { Boom("left"); }
                finally { throw new BetaException("from finally"); }
            }
            catch (BetaException) { counter++; }
        }
        [MethodImpl(MethodImplOptions.NoInlining)]
        static void FinallyLeft()
        {
            try { FinallyLeftSameMethod(); }
            catch (AlphaException) { counter += 100; }
        }

        public static int Main(string[] args)
        {
            switch (args.Length > 0 ? args[0] : "")
            {
                case "invoke": Invoke(); break;
                case "activator": Activate(); break;
                case "dynamic-invoke": DynamicInvoke(); break;
                case "type-init": TypeInit(); break;
                case "type-init-again": TypeInitAgain(); break;
                case "reverse-pinvoke": Reverse(); break;
                case "reverse-delegate": ReverseDelegate(); break;
                case "unhandled-main": Boom("main"); break;
                case "unhandled-pool": UnhandledPool(); break;
                case "unhandled-handler": UnhandledHandler(); break;
                case "dispose-caught": DisposeCaught(); break;
                case "dispose-uncaught": DisposeUncaught(); break;
                case "exit-in-catch": ExitInCatch(); break;
                case "exit-in-finally": ExitInFinally(); break;
                case "exit-other-thread": ExitOtherThread(); break;
                case "rethrow": Rethrow(); break;
                case "edi": Edi(); break;
                case "await": Await(); break;
                case "catch-in-finally": CatchInFinally(); break;
                case "finally-left": FinallyLeft(); break;
                // the same in Main itself: the outermost frame's finally
                // (Dispose) replaces Alpha, and Main catches Beta
                case "dispose-in-main":
                    try { using (new Res()) Boom("dispose-main"); }
                    catch (BetaException) { counter++; }
                    break;
                // Main's finally runs and the process dies after it
                case "finally-in-main":
                    try { Boom("finally-main"); }
                    finally { Console.Out.Flush(); }
                    break;
                default: Console.Error.WriteLine("unknown scenario"); return 2;
            }
            Console.WriteLine("done " + counter);
            return 0;
        }
    }
}
