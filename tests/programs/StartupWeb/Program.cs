// StartupWeb: an ASP.NET Core service whose start-up clrtrace startup
// audits.  When IHostApplicationLifetime.ApplicationStarted fires it prints
// "started NS" (the wall clock, ns since the epoch: the clock of the
// trace's records); the test compares the report's ready phase with it.
// With a second argument "exit" it stops there (bench/startup.sh -w).
using Microsoft.AspNetCore.Builder;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;

var builder = WebApplication.CreateBuilder(args);
builder.Logging.ClearProviders();
var app = builder.Build();
app.MapGet("/", () => "hello");
app.Lifetime.ApplicationStarted.Register(() =>
{
    long ns = (DateTime.UtcNow - DateTime.UnixEpoch).Ticks * 100;
    Console.WriteLine($"started {ns}");
    if (args.Length > 1 && args[1] == "exit")
        app.Lifetime.StopApplication();
});
app.Run(args.Length > 0 ? args[0] : "http://127.0.0.1:0");
