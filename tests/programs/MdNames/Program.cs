// Prints what the runtime's reflection says of an assembly's TypeDef and
// MethodDef rows, in the lines tests/unit/md-dump prints for the same rows
// from the metadata itself (tests/metadata.sh compares them):
//   P path            the file the runtime loaded
//   R version         the runtime's (Environment.Version)
//   V mvid            Module.ModuleVersionId
//   T row name        Module.ResolveType(0x02000000|row).FullName
//   M row type.name   Module.ResolveMethod(0x06000000|row): DeclaringType.FullName "." Name
//   F row field       each of that TypeDef's own fields (GetFields, DeclaredOnly)
//   U row             MethodDef row that carries [UnmanagedCallersOnly]
// TypeDef row 1, which reflection refuses to resolve, is "<Module>" with
// the module's global fields.  Any other row reflection cannot resolve
// prints nothing but a line on stderr, and the last line there counts them
// ("unresolved T n M n F n").  The argument: "self" (this program, whose
// own types below are the hard cases), an assembly name, or the path of a
// .dll; "emit PATH" writes the names C# cannot (Emitted, below) to PATH.
using System;
using System.Collections;
using System.Collections.Generic;
using System.Linq;
using System.Reflection;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Threading.Tasks;

namespace MdNames
{
    static class Program
    {
        const BindingFlags All = BindingFlags.DeclaredOnly | BindingFlags.Public | BindingFlags.NonPublic |
                                 BindingFlags.Static | BindingFlags.Instance;

        static int Main(string[] args)
        {
            if (args.Length == 2 && args[0] == "emit")
                return Emitted.Write(args[1]);
            if (args.Length != 1)
            {
                Console.Error.WriteLine("usage: MdNames self|ASSEMBLY-NAME|PATH.dll | MdNames emit PATH.dll");
                return 2;
            }
            Assembly asm = args[0] == "self" ? typeof(Program).Assembly
                : args[0].EndsWith(".dll") ? Assembly.LoadFrom(args[0])
                : Assembly.Load(new AssemblyName(args[0]));
            Module mod = asm.ManifestModule;
            var lines = new List<string>();
            int badTypes = 0, badMethods = 0, badFields = 0;

            lines.Add("P " + asm.Location);
            lines.Add("R " + Environment.Version);
            lines.Add("V " + mod.ModuleVersionId);
            for (int row = 1; ; row++)
            {
                Type t;
                try
                {
                    t = mod.ResolveType(0x02000000 | row);
                }
                catch (ArgumentOutOfRangeException)
                {
                    break;
                }
                catch (ArgumentException) when (row == 1)
                {
                    // the special module type: reflection will not name it; its
                    // name (ECMA-335 II.10.8) and its members are the module's
                    lines.Add("T 1 <Module>");
                    foreach (FieldInfo f in mod.GetFields(All & ~BindingFlags.DeclaredOnly))
                        lines.Add("F 1 " + f.Name);
                    continue;
                }
                catch (Exception e)
                {
                    Console.Error.WriteLine($"unresolved T {row}: {e.GetType()}: {e.Message}");
                    badTypes++;
                    continue;
                }
                lines.Add($"T {row} {t.FullName}");
                try
                {
                    foreach (FieldInfo f in t.GetFields(All))
                        lines.Add($"F {row} {f.Name}");
                }
                catch (Exception e)
                {
                    Console.Error.WriteLine($"unresolved F {row}: {e.GetType()}: {e.Message}");
                    badFields++;
                }
            }
            for (int row = 1; ; row++)
            {
                MethodBase m;
                try
                {
                    m = mod.ResolveMethod(0x06000000 | row);
                }
                catch (ArgumentOutOfRangeException)
                {
                    break;
                }
                catch (Exception e)
                {
                    Console.Error.WriteLine($"unresolved M {row}: {e.GetType()}: {e.Message}");
                    badMethods++;
                    continue;
                }
                // a global method (in <Module>) has no declaring type
                string owner = m.DeclaringType == null ? "<Module>" : m.DeclaringType.FullName;
                lines.Add($"M {row} {owner}.{m.Name}");
                try
                {
                    if (m.CustomAttributes.Any(a => a.AttributeType.FullName == typeof(UnmanagedCallersOnlyAttribute).FullName))
                        lines.Add($"U {row}");
                }
                catch (Exception e)
                {
                    Console.Error.WriteLine($"unresolved U {row}: {e.GetType()}: {e.Message}");
                    badMethods++;
                }
            }
            Console.Out.Write(string.Join("\n", lines) + "\n");
            Console.Error.WriteLine($"unresolved T {badTypes} M {badMethods} F {badFields}");
            // the hard cases run too, so that they are what the compiler made of real code
            return Cases.Run() == 42 ? 0 : 3;
        }
    }

    // An assembly C# cannot write: type names with the characters reflection
    // escapes in a FullName (, + & * [ ] \), a nested type with a namespace
    // of its own, global methods and fields (in <Module>).  Written with
    // PersistedAssemblyBuilder (.NET 9 on); on .NET 8, status 4.
    static class Emitted
    {
        public static int Write(string path)
        {
#if NET9_0_OR_GREATER
            var ab = new System.Reflection.Emit.PersistedAssemblyBuilder(new AssemblyName("MdEmitted"), typeof(object).Assembly);
            var mb = ab.DefineDynamicModule("MdEmitted");
            foreach (string name in new[] { "Ns.Comma,Name", "Ns.Plus+Name", "Ns.Brackets[]", "Ns.Amp&Star*", "Ns.Back\\slash", "NoNs,Comma" })
            {
                var tb = mb.DefineType(name, TypeAttributes.Public | TypeAttributes.Class);
                tb.DefineField("field,with+odd[chars]", typeof(int), FieldAttributes.Public);
                Method(tb.DefineMethod("Method,Odd+Name", MethodAttributes.Public | MethodAttributes.Static, typeof(void), Type.EmptyTypes));
                var nested = tb.DefineNestedType("Inner+Odd", TypeAttributes.NestedPublic | TypeAttributes.Class);
                Method(nested.DefineMethod("M", MethodAttributes.Public | MethodAttributes.Static, typeof(void), Type.EmptyTypes));
                nested.CreateType();
                tb.CreateType();
            }
            var outer = mb.DefineType("Ns.Outer", TypeAttributes.Public | TypeAttributes.Class);
            var dotted = outer.DefineNestedType("Inner.Dotted", TypeAttributes.NestedPublic | TypeAttributes.Class);
            Method(dotted.DefineMethod("M", MethodAttributes.Public | MethodAttributes.Static, typeof(void), Type.EmptyTypes));
            dotted.CreateType();
            outer.CreateType();
            Method(mb.DefineGlobalMethod("GlobalMethod", MethodAttributes.Public | MethodAttributes.Static, typeof(void), Type.EmptyTypes));
            mb.DefineUninitializedData("GlobalData", 16, FieldAttributes.Public);
            mb.CreateGlobalFunctions();
            ab.Save(path);
            return 0;
#else
            Console.Error.WriteLine("no PersistedAssemblyBuilder before .NET 9: " + path + " not written");
            return 4;
#endif
        }

#if NET9_0_OR_GREATER
        static void Method(System.Reflection.Emit.MethodBuilder m) => m.GetILGenerator().Emit(System.Reflection.Emit.OpCodes.Ret);
#endif
    }

    // The shapes of TypeDef names: nested, generic, nested in generic,
    // compiler-generated (closures, lambdas, async and iterator state
    // machines, local functions, anonymous types, fixed buffers, array
    // initializer data), explicit interface implementations (method names
    // with dots), enums, constants, Unicode names, no namespace.
    static class Cases
    {
        public static int Run()
        {
            int n = 0;
            var outer = new Outer<int>.Inner<string> { Value = "x" };
            n += outer.Value.Length;
            n += new Outer<long>.Plain().Count();
            n += Iterate(3).Sum();
            n += AsyncAdd(1, 2).GetAwaiter().GetResult();
            int captured = 4;
            Func<int, int> add = x => x + captured;
            Func<int, int> twice = x => x * 2;
            n += add(1) + twice(1);
            n += Local(2);
            var anon = new { A = 1, B = "two" };
            n += anon.A + anon.B.Length;
            n += Deep.Level1.Level2.Level3.Depth;
            n += ((IDisposableCount)new Explicit()).Count();
            using (var e = new Explicit())
                n += (int)Colour.Green;
            n += Lookup(new byte[] { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20 });
            n += Switch("gamma");
            n += new Ünïcødé().Ĳ;
            n += new NoNamespace().Get();
            n += Buffers.Sum();
            n += new Rec(1, 2).A;
            n += Gen<int, int, int, int, int, int, int, int, int, int, int>.Arity;
            unsafe { n += ((delegate* unmanaged<int, int>)&Unmanaged)(1); }
            return n > 0 ? 42 : 0;

            int Local(int v) => v + captured;
        }

        // [UnmanagedCallersOnly], an attribute referenced from CoreLib (a
        // MemberRef), where CoreLib's own are defined in it (a MethodDef)
        [UnmanagedCallersOnly]
        static int Unmanaged(int v) => v + 1;

        static IEnumerable<int> Iterate(int count)
        {
            for (int i = 0; i < count; i++)
                yield return i;
        }

        static async Task<int> AsyncAdd(int a, int b)
        {
            await Task.Yield();
            return a + b;
        }

        static readonly byte[] Table = { 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0 };

        static int Lookup(byte[] key) => key.Length + Table[0];

        static int Switch(string s)
        {
            switch (s)
            {
            case "alpha": return 1;
            case "beta": return 2;
            case "gamma": return 3;
            case "delta": return 4;
            case "epsilon": return 5;
            case "zeta": return 6;
            case "eta": return 7;
            default: return 0;
            }
        }
    }

    class Outer<T>
    {
        public T Field;
        public class Inner<U>
        {
            public U Value;
            public static int Shared;
            public Func<U, int> Map() => u => u.GetHashCode();
        }
        public class Plain : IEnumerable<T>
        {
            public IEnumerator<T> GetEnumerator()
            {
                yield break;
            }
            IEnumerator IEnumerable.GetEnumerator() => GetEnumerator();
        }
    }

    static class Deep
    {
        public static class Level1
        {
            public static class Level2
            {
                public static class Level3
                {
                    public const int Depth = 3;
                }
            }
        }
    }

    interface IDisposableCount
    {
        int Count();
        static int Default = 1;
    }

    sealed class Explicit : IDisposableCount, IDisposable
    {
        int IDisposableCount.Count() => 1;
        void IDisposable.Dispose() { }
    }

    enum Colour { Red, Green = 5, Blue }

    class Ünïcødé
    {
        public int Ĳ = 1;
    }

    unsafe struct Buffers
    {
        public fixed int Data[4];
        public static int Sum() => 1;
    }

    record Rec(int A, int B);

    static class Gen<T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11>
    {
        public const int Arity = 11;
    }
}

namespace MdNames.Deeper.Still
{
    class Leaf
    {
        public event EventHandler Changed;
        public int Property { get; set; }
        void Raise() => Changed?.Invoke(this, EventArgs.Empty);
    }
}

class NoNamespace
{
    class Nested { }
    public int Get() => 1;
}
