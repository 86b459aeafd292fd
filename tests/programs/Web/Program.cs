// Web: a small ASP.NET Core service, for a test under real load: many
// threads, async, the thread pool, and exceptions the framework handles,
// some of them across the runtime's native boundaries (reflection, the
// dependency injection container's activation, a type initializer).
using System.Reflection;
using System.Runtime.CompilerServices;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Http;
using Microsoft.Extensions.DependencyInjection;

var builder = WebApplication.CreateBuilder(args);
builder.Services.AddTransient<Broken>();
var app = builder.Build();

// only /handled goes through the framework's exception handler (500 and a body)
app.UseWhen(c => c.Request.Path.StartsWithSegments("/handled"),
    a => a.UseExceptionHandler(e => e.Run(c => c.Response.WriteAsync("handled"))));

app.MapGet("/", () => "hello");
app.MapGet("/boom", () =>
{
    try { throw new InvalidOperationException("boom"); }
    catch (InvalidOperationException e) { return e.Message; }
});
app.MapGet("/fail", (HttpContext c) => { throw new ArgumentException("bad request"); });
app.MapGet("/slow", async () => { await Task.Delay(10); return "slow"; });
// a reflection call, as MVC-style dispatch does: the handler catches the wrapper
app.MapGet("/invoke", () =>
{
    MethodInfo m = typeof(Work).GetMethod(nameof(Work.Fail))!;
    try { m.Invoke(null, new object[] { "invoke" }); return "not thrown"; }
    catch (TargetInvocationException e) { return "wrapped " + e.InnerException!.Message; }
});
// the container activates a service whose constructor throws: the framework answers 500
app.MapGet("/di", (Broken b) => "not thrown");
// ActivatorUtilities, the framework's other activation path: 500 as well
app.MapGet("/activate", (HttpContext c) =>
    ActivatorUtilities.CreateInstance<Broken>(c.RequestServices).ToString());
// a static constructor that throws: caught here, the first time and every later time
app.MapGet("/typeinit", () =>
{
    try { return "value " + Doomed.Value; }
    catch (TypeInitializationException e) { return "typeinit " + e.InnerException!.Message; }
});
// thrown, and answered by the exception handler above
app.MapGet("/handled", (HttpContext c) => { throw new WebException("handled"); });
// /req/N: an async request that goes through the thread pool, where an
// async method throws an error naming N; caught here, at the await: "req N"
app.MapGet("/req/{n:int}", async (int n) =>
{
    await Task.Delay(20);
    try { await Requests.Fail(n); return "not thrown"; }
    catch (WebException e) { return e.Message; }
});
// /unowned/N: queues, without its execution context, work that throws and
// catches BackgroundException("unowned N") on this thread pool thread,
// while the request waits: that work belongs to no request
app.MapGet("/unowned/{n:int}", async (int n) =>
{
    await Task.Yield();
    ThreadPool.UnsafeQueueUserWorkItem(Requests.Unowned, n, preferLocal: true);
    await Task.Delay(50);
    return "unowned " + n;
});
// WEB_BACKGROUND=1: a loop outside any request, on the thread pool, that
// throws and catches BackgroundException every 2 ms while requests run
if (Environment.GetEnvironmentVariable("WEB_BACKGROUND") == "1")
    _ = Task.Run(Requests.Background);
app.Run(args.Length > 0 ? args[0] : "http://127.0.0.1:5077");

public class BackgroundException : Exception { public BackgroundException(string m) : base(m) { } }

public static class Requests
{
    public static async Task Fail(int n)
    {
        await Task.Yield();
        throw new WebException($"req {n}");
    }

    public static void Unowned(int n)
    {
        try { throw new BackgroundException($"unowned {n}"); }
        catch (BackgroundException) { }
    }

    public static async Task Background()
    {
        for (long i = 0; ; i++)
        {
            await Task.Delay(2);
            try { throw new BackgroundException($"background {i}"); }
            catch (BackgroundException) { }
        }
    }
}

public class WebException : Exception { public WebException(string m) : base(m) { } }

public static class Work
{
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void Fail(string m) { throw new WebException(m); }
}

public class Broken
{
    public Broken() { Work.Fail("constructor"); }
}

static class Doomed
{
    public static readonly int Value = Init();
    [MethodImpl(MethodImplOptions.NoInlining)]
    static int Init() { throw new WebException("cctor"); }
}
