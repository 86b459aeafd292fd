// ErrorsWeb: an ASP.NET Core minimal API on EF Core and SQLite, for
// tests/errors-real.sh: errors that libraries no one here wrote throw,
// catch, wrap and answer.
//   POST /items {"name":..,"price":..}  201 "created ID", or 409 "duplicate
//       NAME": a unique index, so SaveChangesAsync throws DbUpdateException
//       (wrapping SQLite's SqliteException), which the handler catches
//   GET /items/ID        200 "NAME PRICE", or 404 "no item ID"
//   GET /price?value=X   200 "price N", or 400 "bad price X": int.Parse's
//       FormatException, caught here
//   POST /items with a body that is not JSON: 400 from the framework (its
//       JSON binding catches the JsonException)
//   GET /crash           throws and nobody catches: Kestrel answers 500
//   POST /worker/start   lets the BackgroundService go on, and it throws:
//       the host logs "fail: ... BackgroundService failed" and, with
//       BackgroundServiceExceptionBehavior.Ignore, keeps the service running
//   GET /worker          "worker STATE" (waiting, failed)
//   GET /errors          what the program itself saw of EF Core's and SQLite's
//       exceptions (AppDomain.FirstChanceException): "TYPE: N first-chance
//       notifications, M objects" for each, the truth a trace is held to
// Arguments: --urls URL (the host's own option) and --db FILE (the SQLite
// database, created afresh; default a new file in the temp directory).
using Microsoft.Data.Sqlite;
using Microsoft.EntityFrameworkCore;

var builder = WebApplication.CreateBuilder(args);
string db = builder.Configuration["db"];
if (string.IsNullOrEmpty(db))
    db = Path.Combine(Path.GetTempPath(), $"errorsweb-{Environment.ProcessId}.db");
builder.Services.AddDbContext<Shop>(o => o.UseSqlite(new SqliteConnectionStringBuilder { DataSource = db, Pooling = false }.ToString()));
builder.Services.AddSingleton<Worker>();
builder.Services.AddHostedService(s => s.GetRequiredService<Worker>());
// a failed BackgroundService is logged, and the host goes on serving
builder.Services.Configure<HostOptions>(o => o.BackgroundServiceExceptionBehavior = BackgroundServiceExceptionBehavior.Ignore);
var app = builder.Build();
AppDomain.CurrentDomain.FirstChanceException += (_, e) => Seen.Note(e.Exception);

using (var scope = app.Services.CreateScope())
{
    var shop = scope.ServiceProvider.GetRequiredService<Shop>();
    shop.Database.EnsureDeleted();
    shop.Database.EnsureCreated();
}

app.MapGet("/", () => "hello");
app.MapPost("/items", async (Item item, Shop shop) =>
{
    shop.Items.Add(item);
    try
    {
        await shop.SaveChangesAsync();
    }
    catch (DbUpdateException e) when (e.InnerException is SqliteException { SqliteErrorCode: 19 })
    {
        return Results.Text($"duplicate {item.Name}", statusCode: 409);
    }
    return Results.Text($"created {item.Id}", statusCode: 201);
});
app.MapGet("/items/{id:int}", async (int id, Shop shop) =>
    await shop.Items.FindAsync(id) is Item item
        ? Results.Text($"{item.Name} {item.Price}")
        : Results.Text($"no item {id}", statusCode: 404));
app.MapGet("/price", (string value) =>
{
    try { return Results.Text($"price {Prices.Parse(value)}"); }
    catch (FormatException) { return Results.Text($"bad price {value}", statusCode: 400); }
});
app.MapGet("/crash", () => Prices.Crash());
app.MapPost("/worker/start", (Worker w) => { w.Go.TrySetResult(); return "started"; });
app.MapGet("/worker", (Worker w) => $"worker {(w.ExecuteTask is { IsFaulted: true } ? "failed" : "waiting")}");
app.MapGet("/errors", () => Seen.Report());
app.Run();

public class Item
{
    public int Id { get; set; }
    public string Name { get; set; }
    public int Price { get; set; }
}

public class Shop : DbContext
{
    public Shop(DbContextOptions<Shop> o) : base(o) { }
    public DbSet<Item> Items => Set<Item>();
    protected override void OnModelCreating(ModelBuilder b) => b.Entity<Item>().HasIndex(i => i.Name).IsUnique();
}

public static class Prices
{
    public static int Parse(string s) => int.Parse(s);
    public static string Crash() => throw new InvalidOperationException("crash: nobody catches this");
}

// waits for POST /worker/start, then fails
public class Worker : BackgroundService
{
    public readonly TaskCompletionSource Go = new(TaskCreationOptions.RunContinuationsAsynchronously);
    protected override async Task ExecuteAsync(CancellationToken stop)
    {
        await Go.Task.WaitAsync(stop);
        throw new ApplicationException("worker: the background job failed");
    }
}

// the exceptions of EF Core and SQLite, as the program sees them
public static class Seen
{
    static readonly string[] Types = { "DbUpdateException", "SqliteException" };
    static readonly Dictionary<string, int> Notes = new();
    static readonly Dictionary<string, HashSet<object>> Objects = new();

    public static void Note(Exception e)
    {
        string t = e.GetType().Name;
        if (Array.IndexOf(Types, t) < 0)
            return;
        lock (Notes)
        {
            Notes[t] = Notes.GetValueOrDefault(t) + 1;
            if (!Objects.TryGetValue(t, out var set))
                Objects[t] = set = new HashSet<object>(ReferenceEqualityComparer.Instance);
            set.Add(e);
        }
    }

    public static string Report()
    {
        lock (Notes)
            return string.Join("; ", Types.Select(t =>
                $"{t}: {Notes.GetValueOrDefault(t)} first-chance notifications, {(Objects.TryGetValue(t, out var s) ? s.Count : 0)} objects"));
    }
}
