// A second source file: a second Document row in the PDB.
using System;
using System.Runtime.CompilerServices;

namespace Lines.Other
{
    static class Thrower
    {
        [MethodImpl(MethodImplOptions.NoInlining)]
        internal static void Throw(int depth)
        {
            if (depth > 0) {
                Throw(depth - 1);
                return;
            }
            throw new ApplicationException("in Other.cs"); // MARK:other
        }
    }
}
