// Exception scenarios for tests/exceptions-*.sh: one scenario per argument.
// Every method that matters is NoInlining so the frames the tests name exist.
using System;
using System.Runtime.CompilerServices;
using System.Runtime.ExceptionServices;
using System.Runtime.InteropServices;
using System.Threading;
using System.Threading.Tasks;

namespace Scenarios
{
    public class AlphaException : Exception { public AlphaException(string m) : base(m) { } }
    public class BetaException : Exception { public BetaException(string m) : base(m) { } }
    public class GammaException : Exception { public GammaException(string m) : base(m) { } }

    public static class Program
    {
        static int counter;

        // same: thrown and caught in one method
        [MethodImpl(MethodImplOptions.NoInlining)]
        static void Same()
        {
            try { throw new AlphaException("same"); }
            catch (AlphaException) { counter++; }
        }

        // up3: Level3 throws, Level2 and Level1 pass it on, Up3 catches
        [MethodImpl(MethodImplOptions.NoInlining)]
        static void Level3() { throw new AlphaException("deep"); }
        [MethodImpl(MethodImplOptions.NoInlining)]
        static void Level2() { Level3(); counter++; }
        [MethodImpl(MethodImplOptions.NoInlining)]
        static void Level1() { Level2(); counter++; }
        [MethodImpl(MethodImplOptions.NoInlining)]
        static void Up3()
        {
            try { Level1(); }
            catch (AlphaException) { counter++; }
        }

        // filters: FilterInner's filter says false, FilterOuter's says true
        [MethodImpl(MethodImplOptions.NoInlining)]
        static bool Check(Exception e, bool result) { counter++; return result; }
        [MethodImpl(MethodImplOptions.NoInlining)]
        static void FilterInner()
        {
            try { throw new AlphaException("filtered"); }
            catch (AlphaException e) when (Check(e, false)) { counter += 100; }
        }
        [MethodImpl(MethodImplOptions.NoInlining)]
        static void FilterOuter()
        {
            try { FilterInner(); }
            catch (AlphaException e) when (Check(e, true)) { counter++; }
        }

        // finally: finally blocks in three frames during the unwind
        [MethodImpl(MethodImplOptions.NoInlining)]
        static void Fin3() { try { throw new AlphaException("fin"); } finally { counter++; } }
        [MethodImpl(MethodImplOptions.NoInlining)]
        static void Fin2() { try { Fin3(); } finally { counter++; } }
        [MethodImpl(MethodImplOptions.NoInlining)]
        static void Fin1() { try { Fin2(); } finally { counter++; } }
        [MethodImpl(MethodImplOptions.NoInlining)]
        static void FinallyMain()
        {
            try { Fin1(); }
            catch (AlphaException) { counter++; }
        }

        // in-filter: the filter itself throws; that exception is swallowed,
        // the filter counts as false and the outer catch gets Alpha
        [MethodImpl(MethodImplOptions.NoInlining)]
        static bool BadFilter(Exception e) { throw new BetaException("from filter"); }
        [MethodImpl(MethodImplOptions.NoInlining)]
        static void InFilterInner()
        {
            try { throw new AlphaException("outer"); }
            catch (AlphaException e) when (BadFilter(e)) { counter += 100; }
        }
        [MethodImpl(MethodImplOptions.NoInlining)]
        static void InFilter()
        {
            try { InFilterInner(); }
            catch (AlphaException) { counter++; }
        }

        // in-finally: a finally throws Beta while Alpha unwinds; Beta wins
        [MethodImpl(MethodImplOptions.NoInlining)]
        static void InFinallyInner()
        {
            try { throw new AlphaException("lost"); }
            finally { throw new BetaException("from finally"); }
        }
        [MethodImpl(MethodImplOptions.NoInlining)]
        static void InFinally()
        {
            try { InFinallyInner(); }
            catch (Exception) { counter++; }
        }

        // in-catch: a catch throws Beta, which escapes; Alpha is superseded
        [MethodImpl(MethodImplOptions.NoInlining)]
        static void InCatchInner()
        {
            try { throw new AlphaException("first"); }
            catch (AlphaException) { throw new BetaException("from catch"); }
        }
        [MethodImpl(MethodImplOptions.NoInlining)]
        static void InCatch()
        {
            try { InCatchInner(); }
            catch (BetaException) { counter++; }
        }

        // caught-in-catch: Beta is thrown and caught inside Alpha's catch
        [MethodImpl(MethodImplOptions.NoInlining)]
        static void Helper() { throw new BetaException("inner"); }
        [MethodImpl(MethodImplOptions.NoInlining)]
        static void CaughtInCatch()
        {
            try { throw new AlphaException("outer"); }
            catch (AlphaException)
            {
                try { Helper(); }
                catch (BetaException) { counter++; }
            }
        }

        // rethrow: `throw;` from RethrowInner's catch, caught by Rethrow
        [MethodImpl(MethodImplOptions.NoInlining)]
        static void RethrowInner()
        {
            try { throw new AlphaException("again"); }
            catch (AlphaException) { counter++; throw; }
        }
        [MethodImpl(MethodImplOptions.NoInlining)]
        static void Rethrow()
        {
            try { RethrowInner(); }
            catch (AlphaException) { counter++; }
        }

        // throw-ex: `throw ex;` of the same object
        [MethodImpl(MethodImplOptions.NoInlining)]
        static void ThrowExInner()
        {
            try { throw new AlphaException("again"); }
            catch (AlphaException ex) { counter++; throw ex; }
        }
        [MethodImpl(MethodImplOptions.NoInlining)]
        static void ThrowEx()
        {
            try { ThrowExInner(); }
            catch (AlphaException) { counter++; }
        }

        // async: thrown in an async method after an await, surfaces at the await
        [MethodImpl(MethodImplOptions.NoInlining)]
        static async Task FailLaterAsync()
        {
            await Task.Yield();
            throw new AlphaException("async");
        }
        [MethodImpl(MethodImplOptions.NoInlining)]
        static async Task AwaitIt()
        {
            try { await FailLaterAsync(); }
            catch (AlphaException) { counter++; }
        }

        // nullref / divzero: hardware faults turned into managed exceptions
        class Box { public int Value; }
        [MethodImpl(MethodImplOptions.NoInlining)]
        static int Deref(Box b) { return b.Value; }
        [MethodImpl(MethodImplOptions.NoInlining)]
        static void NullRef()
        {
            try { counter += Deref(null); }
            catch (NullReferenceException) { counter++; }
        }
        [MethodImpl(MethodImplOptions.NoInlining)]
        static int Divide(int a, int b) { return a / b; }
        [MethodImpl(MethodImplOptions.NoInlining)]
        static void DivZero()
        {
            try { counter += Divide(1, 0); }
            catch (DivideByZeroException) { counter++; }
        }

        // unhandled: nothing catches; finally blocks on the way still run
        [MethodImpl(MethodImplOptions.NoInlining)]
        static void Doomed(string where)
        {
            try { throw new GammaException("unhandled on " + where); }
            finally { counter++; }
        }
        [MethodImpl(MethodImplOptions.NoInlining)]
        static void UnhandledMain()
        {
            Same();
            Doomed("main");
        }
        [MethodImpl(MethodImplOptions.NoInlining)]
        static void WorkerBody() { Same(); Doomed("worker"); }
        [MethodImpl(MethodImplOptions.NoInlining)]
        static void UnhandledThread()
        {
            var t = new Thread(WorkerBody);
            t.Start();
            t.Join();
            Console.WriteLine("not reached");
        }

        // unhandled-uco: thrown in an [UnmanagedCallersOnly] method that
        // managed code calls through a delegate* unmanaged: the exception may
        // not cross that reverse P/Invoke, so the caller's catch cannot take
        // it and the process dies (AppDomain.UnhandledException is raised)
        [UnmanagedCallersOnly]
        static void UcoThrow() { throw new GammaException("unhandled in uco"); }
        [MethodImpl(MethodImplOptions.NoInlining)]
        static unsafe void UnhandledUco()
        {
            AppDomain.CurrentDomain.UnhandledException += (s, e) =>
                Console.Error.WriteLine("handler saw " + e.ExceptionObject.GetType().Name);
            Same();
            delegate* unmanaged<void> p = &UcoThrow;
            try { p(); }
            catch (GammaException) { counter++; }
            Console.WriteLine("not reached");
        }

        // failfast: some exceptions, then Environment.FailFast
        [MethodImpl(MethodImplOptions.NoInlining)]
        static void FailFast()
        {
            for (int i = 0; i < 5; i++)
                Same();
            Console.Out.Flush();
            Environment.FailFast("clrtrace failfast test");
        }

        // stress: 4 threads, 10,000 exceptions in all
        [MethodImpl(MethodImplOptions.NoInlining)]
        static void StressThrow(int i)
        {
            if ((i & 1) == 0) throw new AlphaException("stress");
            throw new BetaException("stress");
        }
        [MethodImpl(MethodImplOptions.NoInlining)]
        static void StressWorker()
        {
            for (int i = 0; i < 2500; i++) {
                try { StressThrow(i); }
                catch (Exception) { Interlocked.Increment(ref counter); }
            }
        }
        [MethodImpl(MethodImplOptions.NoInlining)]
        static void Stress()
        {
            var ts = new Thread[4];
            for (int i = 0; i < ts.Length; i++) { ts[i] = new Thread(StressWorker); ts[i].Start(); }
            foreach (var t in ts) t.Join();
        }

        // hostile: a message with terminal escapes, a bell, a C1 control, a lone
        // surrogate and a newline followed by a forged record line (caught)
        [MethodImpl(MethodImplOptions.NoInlining)]
        static void Hostile()
        {
            try {
                throw new GammaException("evil\u001b]0;pwned\u0007\u001b[2J\u009b31m\ud800 path C:\\x\n" +
                    "    0.999999    1234 * exception.unhandled Forged.Exception: fake");
            }
            catch (GammaException) { counter++; }
        }

        // rethrow-gc: `throw;` after a compacting collection moved the caught
        // object: garbage allocated before the throw dies in the catch, so
        // the collection slides the exception down (its ObjectID changes on
        // runtimes where clrtrace does not pin it: .NET 11, .NET 8)
        static object[] litter;
        [MethodImpl(MethodImplOptions.NoInlining)]
        static void Litter()
        {
            litter = new object[4096];
            for (int i = 0; i < litter.Length; i++) litter[i] = new byte[64];
        }
        [MethodImpl(MethodImplOptions.NoInlining)]
        static void RethrowGcInner()
        {
            Litter();
            try { throw new AlphaException("moved"); }
            catch (AlphaException)
            {
                litter = null;
                GC.Collect(2, GCCollectionMode.Forced, blocking: true, compacting: true);
                counter++;
                throw;
            }
        }
        [MethodImpl(MethodImplOptions.NoInlining)]
        static void RethrowGc()
        {
            try { RethrowGcInner(); }
            catch (AlphaException) { counter++; }
        }

        // gc-ident: one exception object thrown four times, with compacting
        // collections between its throws that move it (printed: its
        // address before and after each): an async method throws it and
        // its state machine stores it in the Task; a collection; the
        // Task's awaiter throws it again (ExceptionDispatchInfo); a catch
        // collects and rethrows it (`throw;`); the outer catch captures it
        // and another thread collects and throws it (ExceptionDispatchInfo),
        // and catches it for good.  Garbage allocated before it and dropped
        // before each collection (gen0, then 1, then 2, each compacting)
        // makes it slide down, unless clrtrace pins it (.NET 9/10, while a
        // story of it is open).
        public class IdentityException : Exception { public IdentityException(string m) : base(m) { } }
        static object[]?[] below = new object[3][];
        static IntPtr Addr(object o) => Unsafe.As<object, IntPtr>(ref o);
        [MethodImpl(MethodImplOptions.NoInlining)]
        static object[] Garbage()
        {
            var g = new object[2048];
            for (int i = 0; i < g.Length; i++) g[i] = new byte[48];
            return g;
        }
        [MethodImpl(MethodImplOptions.NoInlining)]
        static void Compact(int gen)
        {
            below[gen] = null;
            Garbage(); // allocating in between
            System.Runtime.GCSettings.LargeObjectHeapCompactionMode =
                System.Runtime.GCLargeObjectHeapCompactionMode.CompactOnce;
            GC.Collect(gen, GCCollectionMode.Forced, blocking: true, compacting: true);
        }
        [MethodImpl(MethodImplOptions.NoInlining)]
        static async Task IdentThrow()
        {
            await Task.Yield();
            for (int i = 0; i < below.Length; i++) below[i] = Garbage();
            throw new IdentityException("ident");
        }
        static void Moved(string where, IntPtr before, IntPtr after) =>
            Console.WriteLine("gc-ident " + where + " " + (before == after ? "stayed" : "moved") +
                              " 0x" + before.ToString("x") + " 0x" + after.ToString("x"));
        [MethodImpl(MethodImplOptions.NoInlining)]
        static void GcIdent()
        {
            Task t = IdentThrow();
            ((IAsyncResult)t).AsyncWaitHandle.WaitOne();
            Exception stored = t.Exception!.InnerException!;
            IntPtr a = Addr(stored);
            Compact(0);
            Moved("stored", a, Addr(stored));
            try {
                try { t.GetAwaiter().GetResult(); }
                catch (IdentityException e) {
                    a = Addr(e);
                    Compact(1);
                    Moved("caught", a, Addr(e));
                    throw;
                }
            } catch (IdentityException e) {
                var edi = ExceptionDispatchInfo.Capture(e);
                IntPtr b = Addr(e);
                var th = new Thread(() => {
                    Compact(2);
                    try { edi.Throw(); }
                    catch (IdentityException e2) {
                        Moved("thread", b, Addr(e2));
                        Console.WriteLine("gc-ident same object " + ReferenceEquals(e2, stored));
                        counter++;
                    }
                });
                th.Start();
                th.Join();
            }
        }

        public static int Main(string[] args)
        {
            foreach (var a in args) {
                switch (a) {
                case "same": Same(); break;
                case "up3": Up3(); break;
                case "filters": FilterOuter(); break;
                case "finally": FinallyMain(); break;
                case "in-filter": InFilter(); break;
                case "in-finally": InFinally(); break;
                case "in-catch": InCatch(); break;
                case "caught-in-catch": CaughtInCatch(); break;
                case "rethrow": Rethrow(); break;
                case "rethrow-gc": RethrowGc(); break;
                case "gc-ident": GcIdent(); break;
                case "throw-ex": ThrowEx(); break;
                case "async": AwaitIt().GetAwaiter().GetResult(); break;
                case "nullref": NullRef(); break;
                case "divzero": DivZero(); break;
                case "unhandled-main": UnhandledMain(); break;
                case "unhandled-thread": UnhandledThread(); break;
                case "unhandled-uco": UnhandledUco(); break;
                case "failfast": FailFast(); break;
                case "stress": Stress(); break;
                case "hostile": Hostile(); break;
                default: Console.Error.WriteLine("unknown scenario " + a); return 2;
                }
                Console.WriteLine("done " + a + " " + counter);
            }
            return 0;
        }
    }
}
