// Web: a small ASP.NET Core service, for a test under real load: many
// threads, async, the thread pool, and exceptions the framework handles.
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Http;

var app = WebApplication.Create(args);
app.MapGet("/", () => "hello");
app.MapGet("/boom", () =>
{
    try { throw new InvalidOperationException("boom"); }
    catch (InvalidOperationException e) { return e.Message; }
});
app.MapGet("/fail", (HttpContext c) => { throw new ArgumentException("bad request"); });
app.MapGet("/slow", async () => { await Task.Delay(10); return "slow"; });
app.Run(args.Length > 0 ? args[0] : "http://127.0.0.1:5077");
