/* SPDX-License-Identifier: MIT */
/*
 * Names as .NET developers read them.  The runtime names a method by its
 * metadata: Namespace.Type+Nested.Method, where the C# compiler's hidden
 * types and methods show through (Program+<FetchAsync>d__0.MoveNext,
 * Program+<>c__DisplayClass2_0.<Main>b__7, Program.<Main>g__Local|0_0).
 * dotnet_name() turns such a name into the one the source says
 * (Program.FetchAsync, Program.Main, Program.Main.Local) and marks what
 * the compiler made of it.  Pure: no runtime, no metadata; the raw name
 * stays in every record.
 */
#pragma once

#include "common/strbuf.h"

enum dotnet_mark {
	DN_ASYNC = 1 << 0,         /* an async method's (or async iterator's) state machine */
	DN_ITERATOR = 1 << 1,      /* an iterator's state machine */
	DN_STATE_MACHINE = 1 << 2, /* a state machine, async or iterator: the name cannot tell */
	DN_LAMBDA = 1 << 3,        /* a lambda (or anonymous method) inside the method named */
	DN_LOCAL = 1 << 4,         /* a local function, named Method.Local */
};

/* Append to OUT the readable form of RAW; return its marks (enum
 * dotnet_mark bits, 0 for a plain method, whose name comes out as it went
 * in).  CALLER, if known, is the raw name of the frame that called RAW:
 * it tells an async state machine (called by the async builders) from an
 * iterator's. */
unsigned dotnet_name(const char *raw, const char *caller, struct strbuf *out);

/* Append " [async]", " [lambda]", " [async lambda]"… for MARKS, or nothing. */
void dotnet_marks(unsigned marks, struct strbuf *out);

/* RAW in readable form with its marks, as one string in OUT (reset first);
 * returns OUT's text, or RAW if out of memory. */
const char *dotnet_display(const char *raw, const char *caller, struct strbuf *out);
