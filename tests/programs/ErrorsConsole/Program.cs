// ErrorsConsole: errors in libraries no one here wrote, for
// tests/errors-real.sh.  Each argument names a scenario, run in order:
//   parse    Newtonsoft.Json and System.Text.Json read bad JSON; each
//            error is caught and printed
//   retry    a Polly retry whose operation fails twice (IOException), then
//            succeeds; Serilog logs each retry
//   giveup   a Polly retry that gives up after 2 retries: its last
//            IOException comes out of the pipeline and is caught here
//   crash    an awaited call throws InvalidDataException in Helper.Explode
//            and nobody catches it: async Main ends in it, the process
//            dies (SIGABRT, 134 on Linux)
// The Serilog console sink writes with neither time nor colours, so the
// output is the same from run to run.
using System;
using System.Collections.Generic;
using System.IO;
using System.Runtime.CompilerServices;
using System.Threading.Tasks;
using Polly;
using Polly.Retry;
using Serilog;
using Serilog.Sinks.SystemConsole.Themes;

public static class Program
{
    public static async Task<int> Main(string[] args)
    {
        Log.Logger = new LoggerConfiguration()
            .WriteTo.Console(outputTemplate: "[{Level:u3}] {Message:lj}{NewLine}", theme: ConsoleTheme.None)
            .CreateLogger();
        foreach (string s in args)
        {
            Console.WriteLine($"== {s}");
            switch (s)
            {
                case "parse": Parse(); break;
                case "retry": await Retry(); break;
                case "giveup": await GiveUp(); break;
                case "crash": await Helper.Run(); break;
                default: Console.WriteLine($"unknown scenario {s}"); return 2;
            }
        }
        Log.CloseAndFlush();
        return 0;
    }

    public class Order
    {
        public int Id { get; set; }
        public decimal Total { get; set; }
    }

    static void Parse()
    {
        // not JSON at all
        try { Newtonsoft.Json.JsonConvert.DeserializeObject<Order>("{\"Id\": 1, \"Total\": }"); }
        catch (Newtonsoft.Json.JsonReaderException e) { Log.Warning(e, "Newtonsoft: {Type}: {Message}", e.GetType().Name, e.Message); }
        // JSON, of the wrong type
        try { Newtonsoft.Json.JsonConvert.DeserializeObject<Order>("{\"Id\": \"one\", \"Total\": 2}"); }
        catch (Newtonsoft.Json.JsonException e) { Log.Warning(e, "Newtonsoft: {Type}: {Message}", e.GetType().Name, e.Message); }
        // a list where an object was wanted
        try { Newtonsoft.Json.JsonConvert.DeserializeObject<Order>("[1, 2]"); }
        catch (Newtonsoft.Json.JsonSerializationException e) { Log.Warning(e, "Newtonsoft: {Type}: {Message}", e.GetType().Name, e.Message); }
        // the same with System.Text.Json
        try { System.Text.Json.JsonSerializer.Deserialize<Order>("{\"Id\": 1, \"Total\": }"); }
        catch (System.Text.Json.JsonException e) { Log.Warning(e, "System.Text.Json: {Type}: {Message}", e.GetType().Name, e.Message); }
        try { System.Text.Json.JsonSerializer.Deserialize<Order>("{\"Id\": \"one\", \"Total\": 2}"); }
        catch (System.Text.Json.JsonException e) { Log.Warning(e, "System.Text.Json: {Type}: {Message}", e.GetType().Name, e.Message); }
        // and one that parses
        Order o = Newtonsoft.Json.JsonConvert.DeserializeObject<Order>("{\"Id\": 7, \"Total\": 12.5}");
        Console.WriteLine($"parsed order {o.Id} total {o.Total}");
    }

    static ResiliencePipeline Pipeline(int retries) => new ResiliencePipelineBuilder()
        .AddRetry(new RetryStrategyOptions
        {
            ShouldHandle = new PredicateBuilder().Handle<IOException>(),
            MaxRetryAttempts = retries,
            Delay = TimeSpan.Zero,
            BackoffType = DelayBackoffType.Constant,
            UseJitter = false,
            OnRetry = a =>
            {
                Log.Warning(a.Outcome.Exception, "retry {Attempt} after {Type}: {Message}",
                    a.AttemptNumber + 1, a.Outcome.Exception?.GetType().Name, a.Outcome.Exception?.Message);
                return default;
            },
        })
        .Build();

    static async Task Retry()
    {
        int calls = 0;
        string got = await Pipeline(3).ExecuteAsync(async _ =>
        {
            calls++;
            await Task.Yield();
            if (calls <= 2) throw new IOException($"flaky call {calls}");
            return $"ok on call {calls}";
        });
        Log.Information("retry succeeded: {Result}", got);
    }

    static async Task GiveUp()
    {
        int calls = 0;
        try
        {
            await Pipeline(2).ExecuteAsync(async _ =>
            {
                calls++;
                await Task.Yield();
                throw new IOException($"down, call {calls}");
            });
        }
        catch (IOException e)
        {
            Log.Error(e, "gave up after {Calls} calls: {Message}", calls, e.Message);
        }
    }
}

public static class Helper
{
    public static async Task Run()
    {
        await Task.Yield();
        int n = await Load("orders.dat");
        Console.WriteLine($"loaded {n}");
    }

    static async Task<int> Load(string name)
    {
        await Task.Yield();
        Explode(name);
        return 1;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void Explode(string name) => throw new InvalidDataException($"{name}: bad header");
}
