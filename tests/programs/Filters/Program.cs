// Exception filter shapes for tests/exceptions-filters.sh.  Every shape
// throws an AlphaException whose message is the shape's name, is caught,
// and runs once; the test asserts the list of filter results of each.
// Every method that matters is NoInlining so its frame and clauses exist.
using System;
using System.Runtime.CompilerServices;

namespace Filters
{
    public class AlphaException : Exception { public AlphaException(string m) : base(m) { } }
    public class BetaException : Exception { public BetaException(string m) : base(m) { } }

    public static class Program
    {
        static int counter;

        [MethodImpl(MethodImplOptions.NoInlining)]
        static bool Yes() { counter++; return true; }
        [MethodImpl(MethodImplOptions.NoInlining)]
        static bool No() { counter++; return false; }
        [MethodImpl(MethodImplOptions.NoInlining)]
        static bool Throws() { counter++; throw new BetaException("from-filter"); }
        // returns true after catching an exception of its own
        [MethodImpl(MethodImplOptions.NoInlining)]
        static bool CatchesInside()
        {
            try { throw new BetaException("inside-filter"); }
            catch (BetaException) { counter++; }
            return true;
        }
        [MethodImpl(MethodImplOptions.NoInlining)]
        static void Throw(string shape) { throw new AlphaException(shape); }

        // one filter, true: [true]
        [MethodImpl(MethodImplOptions.NoInlining)]
        static void OneTrue()
        {
            try { Throw("one-true"); }
            catch (AlphaException) when (Yes()) { counter++; }
        }

        // one filter, false; the caller catches: [false]
        [MethodImpl(MethodImplOptions.NoInlining)]
        static void OneFalseInner()
        {
            try { Throw("one-false"); }
            catch (AlphaException) when (No()) { counter += 100; }
        }
        [MethodImpl(MethodImplOptions.NoInlining)]
        static void OneFalse()
        {
            try { OneFalseInner(); }
            catch (AlphaException) { counter++; }
        }

        // two filters of one try: [false, true]
        [MethodImpl(MethodImplOptions.NoInlining)]
        static void TwoFilters()
        {
            try { Throw("two-filters"); }
            catch (AlphaException) when (No()) { counter += 100; }
            catch (AlphaException) when (Yes()) { counter++; }
        }

        // a filter, then a plain catch of the same try: [false]
        [MethodImpl(MethodImplOptions.NoInlining)]
        static void FilterThenCatch()
        {
            try { Throw("filter-then-catch"); }
            catch (AlphaException) when (No()) { counter += 100; }
            catch (AlphaException) { counter++; }
        }

        // the same, the filter true: [true]
        [MethodImpl(MethodImplOptions.NoInlining)]
        static void FilterThenCatchTrue()
        {
            try { Throw("filter-then-catch-true"); }
            catch (AlphaException) when (Yes()) { counter++; }
            catch (AlphaException) { counter += 100; }
        }

        // nested try blocks, inner filter false, outer catch: [false]
        [MethodImpl(MethodImplOptions.NoInlining)]
        static void NestedFalse()
        {
            try
            {
                try { Throw("nested-false"); }
                catch (AlphaException) when (No()) { counter += 100; }
            }
            catch (AlphaException) { counter++; }
        }

        // nested try blocks, inner filter true: [true]
        [MethodImpl(MethodImplOptions.NoInlining)]
        static void NestedTrue()
        {
            try
            {
                try { Throw("nested-true"); }
                catch (AlphaException) when (Yes()) { counter++; }
            }
            catch (AlphaException) { counter += 100; }
        }

        // nested try blocks, both with filters: [false, true]
        [MethodImpl(MethodImplOptions.NoInlining)]
        static void NestedFilters()
        {
            try
            {
                try { Throw("nested-filters"); }
                catch (AlphaException) when (No()) { counter += 100; }
            }
            catch (AlphaException) when (Yes()) { counter++; }
        }

        // a catch of another type before the filter: [true]
        [MethodImpl(MethodImplOptions.NoInlining)]
        static void OtherCatchFirst()
        {
            try { Throw("other-catch-first"); }
            catch (BetaException) { counter += 100; }
            catch (AlphaException) when (Yes()) { counter++; }
        }

        // the filter throws (the runtime takes that as false); a plain
        // catch of the same try takes the exception: [threw]
        [MethodImpl(MethodImplOptions.NoInlining)]
        static void FilterThrows()
        {
            try { Throw("filter-throws"); }
            catch (AlphaException) when (Throws()) { counter += 100; }
            catch (AlphaException) { counter++; }
        }

        // the filter throws; an outer try of the same method catches:
        // [threw]
        [MethodImpl(MethodImplOptions.NoInlining)]
        static void FilterThrowsNested()
        {
            try
            {
                try { Throw("filter-throws-nested"); }
                catch (AlphaException) when (Throws()) { counter += 100; }
            }
            catch (AlphaException) { counter++; }
        }

        // the filter catches an exception of its own, then says true:
        // [true]
        [MethodImpl(MethodImplOptions.NoInlining)]
        static void FilterCatchesInside()
        {
            try
            {
                try { Throw("filter-catches-inside"); }
                catch (AlphaException) when (CatchesInside()) { counter++; }
            }
            catch (AlphaException) { counter += 100; }
        }

        // the same method twice on the stack: the inner frame's filter
        // false, the outer frame's true: [false, true]
        [MethodImpl(MethodImplOptions.NoInlining)]
        static void Recursive(int depth)
        {
            try
            {
                if (depth == 0) Throw("recursive");
                else Recursive(depth - 1);
            }
            catch (AlphaException) when (depth == 0 ? No() : Yes()) { counter++; }
        }

        // thrown in the method itself, not in a callee: [false]
        [MethodImpl(MethodImplOptions.NoInlining)]
        static void DirectNestedFalse()
        {
            try
            {
                try { throw new AlphaException("direct-nested-false"); }
                catch (AlphaException) when (No()) { counter += 100; }
            }
            catch (AlphaException) { counter++; }
        }

        // nested try blocks with empty handlers (little or no code of
        // their own in optimized code): [true], then [false]
        [MethodImpl(MethodImplOptions.NoInlining)]
        static void EmptyHandlersTrue()
        {
            try
            {
                try { Throw("empty-handlers-true"); }
                catch (AlphaException) when (Yes()) { }
            }
            catch (AlphaException) { }
        }
        [MethodImpl(MethodImplOptions.NoInlining)]
        static void EmptyHandlersFalse()
        {
            try
            {
                try { Throw("empty-handlers-false"); }
                catch (AlphaException) when (No()) { }
            }
            catch (AlphaException) { }
        }

        // filters of a try inside a catch block (so in a funclet), a
        // plain catch after them: [false] and [true]; the outer
        // exception has no filter: []
        [MethodImpl(MethodImplOptions.NoInlining)]
        static void InCatchBlock()
        {
            try { Throw("catch-block-outer"); }
            catch (AlphaException)
            {
                try { Throw("catch-block-false"); }
                catch (AlphaException) when (No()) { counter += 100; }
                catch (AlphaException) { counter++; }
                try { Throw("catch-block-true"); }
                catch (AlphaException) when (Yes()) { counter++; }
                catch (AlphaException) { counter += 100; }
            }
        }

        // the catch block of a filter rethrows (throw;), so its catch is
        // never left: no callback tells which clause ran (a stack snapshot
        // at the rethrow shows the method's main body, not the funclet):
        // [unknown]; the rethrow searches no filter: []
        [MethodImpl(MethodImplOptions.NoInlining)]
        static void RethrowInHandlerInner()
        {
            try { Throw("rethrow-in-handler"); }
            catch (AlphaException) when (Yes()) { throw; }
            catch (AlphaException) { counter += 100; }
        }
        [MethodImpl(MethodImplOptions.NoInlining)]
        static void RethrowInHandler()
        {
            try { RethrowInHandlerInner(); }
            catch (AlphaException) { counter++; }
        }

        // the filter says true, then a finally below replaces the exception
        // before its catch runs, so no catch of it ever tells; the only
        // other catch of that try is of another type, so it could not have
        // taken what the filter declined: the catcher found says [true].
        // The caller catches the replacement.
        [MethodImpl(MethodImplOptions.NoInlining)]
        static void ReplacedInFinally()
        {
            try { Throw("finally-replaces-true"); }
            finally { throw new BetaException("replacement"); }
        }
        [MethodImpl(MethodImplOptions.NoInlining)]
        static void FinallyReplacesTrueInner()
        {
            try { ReplacedInFinally(); }
            catch (AlphaException) when (Yes()) { counter += 100; }
            catch (InvalidOperationException) { counter += 100; }
        }
        [MethodImpl(MethodImplOptions.NoInlining)]
        static void FinallyReplacesTrue()
        {
            try { FinallyReplacesTrueInner(); }
            catch (BetaException) { counter++; }
        }

        static readonly (string, Action)[] shapes = {
            ("one-true", OneTrue),
            ("one-false", OneFalse),
            ("two-filters", TwoFilters),
            ("filter-then-catch", FilterThenCatch),
            ("filter-then-catch-true", FilterThenCatchTrue),
            ("nested-false", NestedFalse),
            ("nested-true", NestedTrue),
            ("nested-filters", NestedFilters),
            ("other-catch-first", OtherCatchFirst),
            ("filter-throws", FilterThrows),
            ("filter-throws-nested", FilterThrowsNested),
            ("filter-catches-inside", FilterCatchesInside),
            ("recursive", () => Recursive(1)),
            ("direct-nested-false", DirectNestedFalse),
            ("empty-handlers-true", EmptyHandlersTrue),
            ("empty-handlers-false", EmptyHandlersFalse),
            ("in-catch-block", InCatchBlock),
            ("rethrow-in-handler", RethrowInHandler),
            ("finally-replaces-true", FinallyReplacesTrue),
        };

        // Filters [--repeat N] [SHAPE…]: every shape (or those named), N
        // times over (so tiered compilation replaces their code meanwhile)
        public static int Main(string[] args)
        {
            int repeat = 1, first = 0;
            if (args.Length >= 2 && args[0] == "--repeat")
            {
                repeat = int.Parse(args[1]);
                first = 2;
            }
            for (int i = 0; i < repeat; i++)
            {
                foreach (var (name, run) in shapes)
                    if (args.Length == first || Array.IndexOf(args, name, first) >= 0)
                        run();
                // let the background compiler install tier-1 code (early on)
                if (repeat > 1 && i < 100 && i % 10 == 9)
                    System.Threading.Thread.Sleep(20);
            }
            Console.WriteLine($"done {counter}");
            return 0;
        }
    }
}
