// Names the tracer must read from modules of every kind: a type emitted
// with Reflection.Emit (no image: the tracer asks IMetaDataImport), this
// assembly loaded again from bytes (an image in memory, no file), and the
// same in a collectible context, unloaded and loaded again (a module id
// the runtime may reuse).  Each throw is caught here; the program prints
// what it threw from, so the test compares the trace with it.
using System;
using System.IO;
using System.Reflection;
using System.Reflection.Emit;
using System.Runtime.CompilerServices;
using System.Runtime.Loader;

namespace Names
{
    public static class Outer
    {
        public static class Inner
        {
            [MethodImpl(MethodImplOptions.NoInlining)]
            public static void Throw(string what) => throw new InvalidOperationException(what);
        }
    }

    public static class Program
    {
        static void Emitted()
        {
            var ab = AssemblyBuilder.DefineDynamicAssembly(new AssemblyName("NamesEmitted"), AssemblyBuilderAccess.Run);
            var mb = ab.DefineDynamicModule("NamesEmitted");
            var tb = mb.DefineType("Emitted.Thrower", TypeAttributes.Public | TypeAttributes.Class);
            var m = tb.DefineMethod("Boom", MethodAttributes.Public | MethodAttributes.Static, typeof(void), Type.EmptyTypes);
            var il = m.GetILGenerator();
            il.Emit(OpCodes.Ldstr, "emitted");
            il.Emit(OpCodes.Newobj, typeof(InvalidOperationException).GetConstructor(new[] { typeof(string) })!);
            il.Emit(OpCodes.Throw);
            var t = tb.CreateType();
            try { t.GetMethod("Boom")!.Invoke(null, null); }
            catch (TargetInvocationException) { }
            Console.WriteLine("threw emitted Emitted.Thrower.Boom");
        }

        static void FromBytes(AssemblyLoadContext alc, string what)
        {
            var a = alc.LoadFromStream(new MemoryStream(File.ReadAllBytes(typeof(Program).Assembly.Location)));
            var inner = a.GetType("Names.Outer+Inner")!;
            try { inner.GetMethod("Throw")!.Invoke(null, new object[] { what }); }
            catch (TargetInvocationException) { }
            Console.WriteLine($"threw {what} Names.Outer+Inner.Throw");
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        static WeakReference Collectible(int round)
        {
            var alc = new AssemblyLoadContext($"names-{round}", isCollectible: true);
            FromBytes(alc, $"collectible-{round}");
            alc.Unload();
            return new WeakReference(alc);
        }

        public static int Main(string[] args)
        {
            Emitted();
            FromBytes(new AssemblyLoadContext("names-bytes"), "bytes");
            for (int round = 0; round < 3; round++) {
                var w = Collectible(round);
                for (int i = 0; i < 10 && w.IsAlive; i++) { GC.Collect(); GC.WaitForPendingFinalizers(); }
            }
            try { Outer.Inner.Throw("file"); } catch (InvalidOperationException) { }
            Console.WriteLine("threw file Names.Outer+Inner.Throw");
            return 0;
        }
    }
}
