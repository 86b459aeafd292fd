/* SPDX-License-Identifier: MIT */
/* Unit tests of the readable .NET method names (src/common/dotnet-names.c):
 * one table of raw names, as traces of the test programs and of ASP.NET
 * carry them, with the name a .NET developer reads and the marks. */
#include <string.h>

#include "common/dotnet-names.h"
#include "unit.h"

static const struct {
	const char *raw, *caller, *want;
} cases[] = {
	/* plain methods pass through unchanged */
	{ "Sample.Program.Load", NULL, "Sample.Program.Load" },
	{ "System.IO.Strategies.OSFileStreamStrategy..ctor", NULL, "System.IO.Strategies.OSFileStreamStrategy..ctor" },
	{ "Interop.ThrowExceptionForIoErrno", NULL, "Interop.ThrowExceptionForIoErrno" },
	{ "Program.<Main>$", NULL, "Program.<Main>$" },
	{ "System.Threading.Tasks.ValueTask`1.get_Result", NULL, "System.Threading.Tasks.ValueTask`1.get_Result" },
	{ "Microsoft.Extensions.DependencyInjection.ServiceLookup.CallSiteVisitor`2.VisitCallSite", NULL,
	  "Microsoft.Extensions.DependencyInjection.ServiceLookup.CallSiteVisitor`2.VisitCallSite" },
	{ "System.Net.Sockets.Socket+AwaitableSocketAsyncEventArgs.System.Threading.Tasks.Sources.IValueTaskSource<System.Net.Sockets.Socket>.GetResult",
	  NULL,
	  "System.Net.Sockets.Socket+AwaitableSocketAsyncEventArgs.System.Threading.Tasks.Sources.IValueTaskSource<System.Net.Sockets.Socket>.GetResult" },
	{ "Lines.Program+Nested+Inner.Fail", NULL, "Lines.Program+Nested+Inner.Fail" },
	{ "", NULL, "" },
	{ "[native]", NULL, "[native]" },
	/* async methods: a state machine; the caller tells async from iterator */
	{ "Verdicts.Program+<ThrowLater>d__25.MoveNext", NULL, "Verdicts.Program.ThrowLater [async or iterator]" },
	{ "Verdicts.Program+<ThrowLater>d__25.MoveNext",
	  "System.Runtime.CompilerServices.AsyncMethodBuilderCore.Start", "Verdicts.Program.ThrowLater [async]" },
	{ "Verdicts.Program+<ThrowLater>d__25.MoveNext", "Verdicts.Program.ThrowLater", "Verdicts.Program.ThrowLater [async]" },
	{ "Scenarios.Program+<FailLaterAsync>d__26.MoveNext",
	  "System.Runtime.CompilerServices.AsyncTaskMethodBuilder`1+AsyncStateMachineBox`1.ExecutionContextCallback",
	  "Scenarios.Program.FailLaterAsync [async]" },
	{ "Scenarios.Program+<AwaitIt>d__27.MoveNext", "System.Threading.ExecutionContext.RunInternal",
	  "Scenarios.Program.AwaitIt [async]" },
	{ "Microsoft.AspNetCore.Server.Kestrel.Transport.Sockets.SocketConnectionListener+<AcceptAsync>d__10.MoveNext", NULL,
	  "Microsoft.AspNetCore.Server.Kestrel.Transport.Sockets.SocketConnectionListener.AcceptAsync [async or iterator]" },
	/* a generic method's state machine: the arity goes to the method */
	{ "Microsoft.AspNetCore.Server.Kestrel.Core.Internal.Http.HttpProtocol+<ProcessRequests>d__238`1.MoveNext",
	  "System.Runtime.CompilerServices.AsyncMethodBuilderCore.Start",
	  "Microsoft.AspNetCore.Server.Kestrel.Core.Internal.Http.HttpProtocol.ProcessRequests`1 [async]" },
	/* iterators: the same shape, called by the code that enumerates */
	{ "Lines.Program+<Numbers>d__5.MoveNext", "Lines.Program.Sum", "Lines.Program.Numbers [iterator]" },
	{ "Lines.Program+<Numbers>d__5.MoveNext", "[native]", "Lines.Program.Numbers [async or iterator]" },
	/* another method of a state machine stays said; its interface tells */
	{ "Lines.Program+<Numbers>d__5.System.IDisposable.Dispose", NULL,
	  "Lines.Program.Numbers.System.IDisposable.Dispose [iterator]" },
	{ "Program+<Stream>d__1.System.Threading.Tasks.Sources.IValueTaskSource<System.Boolean>.GetResult",
	  "Program+<Main>d__2.MoveNext",
	  "Program.Stream.System.Threading.Tasks.Sources.IValueTaskSource<System.Boolean>.GetResult [async]" },
	{ "System.Collections.Program+<Numbers>d__0.SetStateMachine", NULL,
	  "System.Collections.Program.Numbers.SetStateMachine [async or iterator]" },
	{ "Program+<Numbers>d__0.SetStateMachine", "Program.Main", "Program.Numbers.SetStateMachine [async or iterator]" },
	/* from a traced program (.NET 10): iterator, async iterator, local
	 * functions capturing and static, async local, async lambda */
	{ "Program+<Numbers>d__0.MoveNext", "Program+<Main>d__2.MoveNext", "Program.Numbers [iterator]" },
	{ "Program+<Stream>d__1.MoveNext", "System.Runtime.CompilerServices.AsyncMethodBuilderCore.Start",
	  "Program.Stream [async]" },
	{ "Program+<>c__DisplayClass2_0.<Main>g__Local|0", "Program+<Main>d__2.MoveNext",
	  "Program.Main.Local [local function]" },
	{ "Program+<<Main>g__LocalAsync|2_1>d.MoveNext",
	  "System.Runtime.CompilerServices.AsyncTaskMethodBuilder`1+AsyncStateMachineBox`1.ExecutionContextCallback",
	  "Program.Main.LocalAsync [async local function]" },
	{ "Program+<>c+<<Main>b__2_2>d.MoveNext",
	  "System.Runtime.CompilerServices.AsyncTaskMethodBuilder`1+AsyncStateMachineBox`1.ExecutionContextCallback",
	  "Program.Main [async lambda]" },
	{ "Program+<>c__DisplayClass2_0.<Main>b__3", "Program+<Main>d__2.MoveNext", "Program.Main [lambda]" },
	/* lambdas: the holder class goes, the containing method stays */
	{ "Verdicts.Program+<>c.<UnhandledPool>b__14_0", NULL, "Verdicts.Program.UnhandledPool [lambda]" },
	{ "Program+<>c.<<Main>$>b__0_9", NULL, "Program.<Main>$ [lambda]" },
	{ "Microsoft.AspNetCore.Builder.UseWhenExtensions+<>c__DisplayClass0_1.<UseWhen>b__1", NULL,
	  "Microsoft.AspNetCore.Builder.UseWhenExtensions.UseWhen [lambda]" },
	{ "Microsoft.AspNetCore.Http.RequestDelegateFactory+<>c__DisplayClass81_0.<Create>b__1", NULL,
	  "Microsoft.AspNetCore.Http.RequestDelegateFactory.Create [lambda]" },
	{ "Program+<>c__DisplayClass2_0.<Main>b__7", NULL, "Program.Main [lambda]" },
	{ "Program+<>c__DisplayClass2_0`1.<Run>b__0", NULL, "Program.Run [lambda]" },
	{ "Program.<Main>b__0_0", NULL, "Program.Main [lambda]" },
	/* async lambdas: a state machine of the lambda */
	{ "Program+<>c+<<Main>b__0_0>d.MoveNext", "System.Runtime.CompilerServices.AsyncMethodBuilderCore.Start",
	  "Program.Main [async lambda]" },
	{ "Program+<>c+<<<Main>$>b__0_2>d.MoveNext", NULL, "Program.<Main>$ [async lambda]" },
	{ "Program+<>c+<<Main>b__2_2>d.MoveNext", "Program.Sum", "Program.Main [async lambda]" },
	/* local functions: Method.Local */
	{ "Program.<Main>g__Local|0_0", NULL, "Program.Main.Local [local function]" },
	{ "Lines.Program.<Run>g__Check|3_1", NULL, "Lines.Program.Run.Check [local function]" },
	{ "Program.<<Main>$>g__Fail|0_3", NULL, "Program.<Main>$.Fail [local function]" },
	{ "Program+<<Main>g__FetchAsync|0_0>d.MoveNext", "Program.<Main>g__FetchAsync|0_0",
	  "Program.Main.FetchAsync [async local function]" },
	/* not the compiler's: left alone */
	{ "Program+<>f__AnonymousType0`2.get_Name", NULL, "Program+<>f__AnonymousType0`2.get_Name" },
	{ "Program.<Weird", NULL, "Program.<Weird" },
	{ "Program.<>", NULL, "Program.<>" },
	{ "Program.<X>", NULL, "Program.<X>" },
	{ "Program.<X>z__1", NULL, "Program.<X>z__1" },
	{ "Program.<X>dx", NULL, "Program.<X>dx" },
	{ "Program.", NULL, "Program." },
	{ "+.<", NULL, "+.<" },
};

int main(void)
{
	struct strbuf b = { 0 };

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *got = dotnet_display(cases[i].raw, cases[i].caller, &b);

		CHECK(strcmp(got, cases[i].want) == 0, "%s (caller %s) -> %s (want %s)", cases[i].raw,
		      cases[i].caller ?: "unknown", got, cases[i].want);
	}
	/* a plain name has no marks and comes out byte for byte */
	strbuf_reset(&b);
	CHECK(dotnet_name("Sample.Program.ReadConfig", NULL, &b) == 0 && strcmp(b.s, "Sample.Program.ReadConfig") == 0,
	      "a plain method has no marks");
	strbuf_reset(&b);
	CHECK(dotnet_name("Program+<>c.<Go>b__1_0", NULL, &b) == DN_LAMBDA, "a lambda is marked lambda only");
	/* a name from a bad trace that nests without end: said, not recursed */
	{
		enum { DEEP = 200000 };
		struct strbuf raw = { 0 };

		for (int i = 0; i < DEEP; i++)
			strbuf_puts(&raw, "<");
		strbuf_puts(&raw, "X");
		for (int i = 0; i < DEEP; i++)
			strbuf_puts(&raw, ">b__0");
		strbuf_reset(&b);
		dotnet_name(raw.s, NULL, &b);
		CHECK(!raw.oom && !b.oom && b.len > 0, "a name nested %d deep comes out (%zu bytes)", DEEP, b.len);
		strbuf_free(&raw);
	}
	strbuf_free(&b);
	return failures ? 1 : 0;
}
