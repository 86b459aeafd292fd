// A filter that does work of its own: it collects the garbage (the
// runtime suspends itself from this thread) and loads an assembly.  The
// tracer only stashes the filter's Enter (dotnet/runtime#132462), so the
// records of that work must still come after the filter's begin, nested
// in it, in time order on the thread.
using System;
using System.Runtime.CompilerServices;

namespace FilterNest
{
    public static class Program
    {
        [MethodImpl(MethodImplOptions.NoInlining)]
        static bool Busy(Exception e)
        {
            GC.Collect();
            return new System.Xml.XmlDocument().NodeType != default && e.Message == "nest";
        }

        public static int Main()
        {
            try { throw new InvalidOperationException("nest"); }
            catch (InvalidOperationException e) when (Busy(e)) { Console.WriteLine("caught"); }
            return 0;
        }
    }
}
