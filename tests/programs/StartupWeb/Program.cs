// StartupWeb: an ASP.NET Core service whose start-up clrtrace startup
// audits.  When IHostApplicationLifetime.ApplicationStarted fires it prints
// "started NS" (the wall clock, ns since the epoch: the clock of the
// trace's records); the test compares the report's ready phase with it.
// A second argument:
//   exit           stop there (bench/startup.sh -w);
//   request-first  the server (Kestrel, wrapped) serves a request of the
//                  program's own before its start returns, so before
//                  Hosting's ServerReady: it prints "requesting NS" just
//                  before sending it.
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Hosting.Server;
using Microsoft.AspNetCore.Hosting.Server.Features;
using Microsoft.AspNetCore.Http.Features;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;

static long Now() => (DateTime.UtcNow - DateTime.UnixEpoch).Ticks * 100;

string mode = args.Length > 1 ? args[1] : "";
var builder = WebApplication.CreateBuilder(args);
builder.Logging.ClearProviders();
if (mode == "request-first")
    builder.WebHost.ConfigureServices(services =>
    {
        var kestrel = services.Last(d => d.ServiceType == typeof(IServer));
        services.Remove(kestrel);
        services.AddSingleton(kestrel.ImplementationType!);
        services.AddSingleton<IServer>(sp => new RequestFirst((IServer)sp.GetRequiredService(kestrel.ImplementationType!)));
    });
var app = builder.Build();
app.MapGet("/", () => "hello");
app.Lifetime.ApplicationStarted.Register(() =>
{
    Console.WriteLine($"started {Now()}");
    if (mode == "exit")
        app.Lifetime.StopApplication();
});
app.Run(args.Length > 0 ? args[0] : "http://127.0.0.1:0");

// Kestrel, which answers one request of the program's own once it listens.
sealed class RequestFirst(IServer inner) : IServer
{
    public IFeatureCollection Features => inner.Features;

    public async Task StartAsync<TContext>(IHttpApplication<TContext> application, CancellationToken cancellationToken)
        where TContext : notnull
    {
        await inner.StartAsync(application, cancellationToken);
        string url = inner.Features.Get<IServerAddressesFeature>()!.Addresses.First();
        using var http = new HttpClient();
        long ns = (DateTime.UtcNow - DateTime.UnixEpoch).Ticks * 100;
        Console.WriteLine($"requesting {ns}");
        Console.WriteLine($"answered {await http.GetStringAsync(url + "/", cancellationToken)}");
    }

    public Task StopAsync(CancellationToken cancellationToken) => inner.StopAsync(cancellationToken);

    public void Dispose() => inner.Dispose();
}
