/* SPDX-License-Identifier: MIT */
/* Records in words: one describer per event, from a table. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/describe.h"
#include "common/record-names.h"

/* The last path component. */
const char *base_name(const char *path)
{
	const char *s = path ? strrchr(path, '/') : NULL;

	return s ? s + 1 : path;
}

/* "name" of an {id,name} object, or its id. */
static void named(struct strbuf *b, json_t *o)
{
	const char *n = jstr(o, "name"), *id = jstr(o, "id");

	strbuf_printf(b, "%s", n ? n : id ? id : "?");
}

static void d_runtime_init(struct strbuf *b, const struct rec *r)
{
	json_t *ev = json_object_get(json_object_get(r->j, "config"), "events"), *e;
	size_t i;

	strbuf_printf(b, "%s, .NET %s, clrtrace %s, events", jstr(r->j, "program") ?: "?",
		  jstr2(r->j, "runtime", "version") ?: "?", jstr(r->j, "clrtrace") ?: "?");
	json_array_foreach(ev, i, e)
		strbuf_printf(b, "%s%s", i ? "," : " ", json_string_value(e) ?: "?");
}

static void d_runtime_shutdown(struct strbuf *b, const struct rec *r)
{
	strbuf_printf(b, "%" PRId64 " records, %" PRId64 " dropped", jint2(r->j, "totals", "records"),
		  jint2(r->j, "totals", "dropped"));
}

static void d_runtime_attach(struct strbuf *b, const struct rec *r)
{
	strbuf_printf(b, "%zu assemblies, %zu modules loaded before",
		      json_array_size(json_object_get(r->j, "assemblies")),
		      json_array_size(json_object_get(r->j, "modules")));
}

static void d_appdomain(struct strbuf *b, const struct rec *r) { named(b, json_object_get(r->j, "appdomain")); }
static void d_assembly(struct strbuf *b, const struct rec *r) { named(b, json_object_get(r->j, "assembly")); }
static void d_class(struct strbuf *b, const struct rec *r) { named(b, json_object_get(r->j, "class")); }

static void d_module(struct strbuf *b, const struct rec *r)
{
	const char *p = jstr2(r->j, "module", "path");

	strbuf_printf(b, "%s", p ? p : jstr2(r->j, "module", "id") ?: "?");
}

static void d_startup_config(struct strbuf *b, const struct rec *r)
{
	const char *p = jstr2(r->j, "runtimeconfig", "path");

	strbuf_printf(b, "%zu runtime variables, %s", json_object_size(json_object_get(r->j, "environment")),
		      p ? p : "no runtimeconfig.json");
}

static void d_startup_ready(struct strbuf *b, const struct rec *r)
{
	strbuf_printf(b, "ready at %" PRId64 " (%s)", jint(r->j, "ready_ns"), jstr(r->j, "how") ?: "?");
}

static void d_startup_cost(struct strbuf *b, const struct rec *r)
{
	strbuf_printf(b, "%" PRId64 " ns in its handlers, %" PRId64 " compiles, %" PRId64 " modules", jint(r->j, "own_ns"),
		      jint(r->j, "jit_records"), jint(r->j, "module_records"));
}

static void d_module_attach(struct strbuf *b, const struct rec *r)
{
	d_module(b, r);
	strbuf_printf(b, " to ");
	named(b, json_object_get(r->j, "assembly"));
}

static void d_target(struct strbuf *b, const struct rec *r)
{
	json_t *t = json_object_get(r->j, "target");
	const char *name = jstr(t, "name");

	strbuf_printf(b, "%s", jstr(t, "id") ?: "?");
	if (jint(t, "os_tid") > 0)
		strbuf_printf(b, " (tid %" PRId64 ")", jint(t, "os_tid"));
	if (name)
		strbuf_printf(b, " \"%s\"", name);
}

static void d_suspend(struct strbuf *b, const struct rec *r)
{
	const char *reason = jstr(r->j, "reason");

	if (reason)
		strbuf_printf(b, "%s", reason);
	if (json_is_true(json_object_get(r->j, "aborted")))
		strbuf_printf(b, "aborted");
}

static void d_transition(struct strbuf *b, const struct rec *r)
{
	strbuf_printf(b, "%s %s ", jstr(r->j, "direction") ?: "?", jstr(r->j, "reason") ?: "?");
	dotnet_record_say(r->j, jstr(r->j, "function") ?: "?", b);
}

static void d_gc(struct strbuf *b, const struct rec *r)
{
	json_t *g = json_object_get(r->j, "generations"), *e;
	size_t i;

	if (!g)
		return;
	strbuf_printf(b, "gen");
	json_array_foreach(g, i, e)
		strbuf_printf(b, "%s%" JSON_INTEGER_FORMAT, i ? "," : " ", json_integer_value(e));
	strbuf_printf(b, " %s", jstr(r->j, "reason") ?: "");
}

static void d_function(struct strbuf *b, const struct rec *r)
{
	const char *f = jstr(r->j, "function");

	if (f)
		dotnet_record_say(r->j, f, b);
}

/* "Type: message" of an exception object. */
void exception_text(struct strbuf *b, json_t *e)
{
	const char *msg = jstr(e, "message");

	strbuf_printf(b, "#%" PRId64 " %s", jint(e, "id"), jstr(e, "type") ?: "?");
	if (msg)
		strbuf_printf(b, ": %s", msg);
}

static void d_throw(struct strbuf *b, const struct rec *r)
{
	json_t *n = json_object_get(r->j, "nested_in");

	exception_text(b, json_object_get(r->j, "exception"));
	if (json_is_true(json_object_get(r->j, "rethrow"))) {
		strbuf_printf(b, " (rethrow of #%" PRId64, jint(r->j, "rethrow_of"));
		if (jint(r->j, "origin") > 0 && jint(r->j, "origin") != jint(r->j, "rethrow_of"))
			strbuf_printf(b, ", first thrown as #%" PRId64, jint(r->j, "origin"));
		strbuf_printf(b, ")");
	}
	if (json_is_object(n))
		strbuf_printf(b, " (inside the %s of #%" PRId64 ")", jstr(n, "context") ?: "?", jint(n, "id"));
}

/* The function, and its tier where the record has one (category tiers). */
static void d_startup_jit(struct strbuf *b, const struct rec *r)
{
	const char *tier = jstr(r->j, "tier");

	d_function(b, r);
	if (tier)
		strbuf_printf(b, " [%s]", tier);
}

static void d_pass(struct strbuf *b, const struct rec *r)
{
	strbuf_printf(b, "#%" PRId64, jint2(r->j, "exception", "id"));
}

static void d_filter(struct strbuf *b, const struct rec *r)
{
	const char *res = jstr(r->j, "result");

	d_function(b, r);
	if (res)
		strbuf_printf(b, " -> %s", res);
}

static void d_unhandled(struct strbuf *b, const struct rec *r)
{
	exception_text(b, json_object_get(r->j, "exception"));
	if (jstr(r->j, "thrown_in")) {
		strbuf_puts(b, " thrown in ");
		dotnet_record_say(r->j, jstr(r->j, "thrown_in"), b);
	}
}

/* Length of an array field. */
static size_t alen(const struct rec *r, const char *key)
{
	return json_array_size(json_object_get(r->j, key));
}

/* Is filter F (a summary's filters entry, or a filter record) the
 * runtime's own rather than the program's? */
static bool runtime_filter(json_t *f)
{
	return json_is_true(json_object_get(f, "runtime"));
}

/* " N filters (true,false)": a summary's filters, the program's
 * (RUNTIME false) or the runtime's own (true). */
static void filter_results(struct strbuf *b, json_t *filters, bool runtime)
{
	json_t *f;
	size_t i, n = 0;

	json_array_foreach(filters, i, f)
		n += runtime_filter(f) == runtime;
	if (runtime && !n)
		return;
	strbuf_printf(b, runtime ? ", %zu of the runtime's" : " %zu filters", n);
	n = 0;
	json_array_foreach(filters, i, f)
		if (runtime_filter(f) == runtime)
			strbuf_printf(b, "%s%s", n++ ? "," : " (", jstr(f, "result") ?: "?");
	if (n)
		strbuf_printf(b, ")");
}

static void d_summary(struct strbuf *b, const struct rec *r)
{
	json_t *e = json_object_get(r->j, "exception");

	strbuf_printf(b, "#%" PRId64 " %s %s", jint(e, "id"), jstr(e, "type") ?: "?", jstr(r->j, "outcome") ?: "?");
	if (jstr(r->j, "thrown_in")) {
		strbuf_puts(b, ", thrown in ");
		dotnet_record_say(r->j, jstr(r->j, "thrown_in"), b);
	}
	if (jstr(r->j, "caught_in")) {
		strbuf_puts(b, ", caught in ");
		dotnet_record_say(r->j, jstr(r->j, "caught_in"), b);
	}
	strbuf_printf(b, "; %zu frames searched,", alen(r, "searched"));
	/* the results: a filter's own record may have ended "unknown" before
	 * the catch that ran decided it; the runtime's own filters apart */
	filter_results(b, json_object_get(r->j, "filters"), false);
	filter_results(b, json_object_get(r->j, "filters"), true);
	strbuf_printf(b, ", %zu finally, %zu unwound", alen(r, "finally"), alen(r, "unwound"));
	if (jint(r->j, "superseded_by") > 0)
		strbuf_printf(b, "; %s #%" PRId64,
			  strcmp(jstr(r->j, "outcome") ?: "", "rethrown") == 0 ? "thrown again as"
			  : json_is_true(json_object_get(r->j, "wrapped")) ? "wrapped by" : "replaced by",
			  jint(r->j, "superseded_by"));
	if (jint(r->j, "origin") > 0)
		strbuf_printf(b, "; rethrow chain began with #%" PRId64, jint(r->j, "origin"));
	if (json_is_true(json_object_get(r->j, "boundary")))
		strbuf_printf(b, "; crossed a native boundary");
	if (json_is_true(json_object_get(r->j, "reported_unhandled")))
		strbuf_printf(b, "; the runtime reported it unhandled, then a finally replaced it (no crash of its own)");
	if (jstr(r->j, "interrupted"))
		strbuf_printf(b, "; cut short by %s", strcmp(jstr(r->j, "interrupted"), "exit") == 0 ? "the process exit" : "the thread's end");
}

static void d_dropped(struct strbuf *b, const struct rec *r)
{
	strbuf_printf(b, "%" PRId64 " records lost by %s %s: %s", jint(r->j, "count"), jstr(r->j, "sink") ?: "?",
		  jstr(r->j, "where") ?: "", jstr(r->j, "reason") ?: "?");
}

static void d_rotated(struct strbuf *b, const struct rec *r)
{
	json_t *prev = json_object_get(r->j, "previous");
	int64_t removed = jint(r->j, "removed_files");

	strbuf_printf(b, "rotated; previous file %s", jstr(prev, "file") ?: "?");
	if (removed > 0)
		strbuf_printf(b, "; %" PRId64 " older file%s removed by the keep limit (retention)", removed,
			      removed == 1 ? "" : "s");
}

/* A trace.left_out reason in words (see describe.h). */
const char *left_out_reason(const char *reason)
{
	if (!reason)
		return "?";
	if (strcmp(reason, "budget") == 0)
		return "rate limit (budget)";
	if (strcmp(reason, "type_limit") == 0)
		return "-x Type:N limit";
	return reason;
}

/* "... and 1,234 more T at F, not written: rate limit (budget)" */
static void d_left_out(struct strbuf *b, const struct rec *r)
{
	char n[32], g[48];
	size_t len, k = 0;

	snprintf(n, sizeof(n), "%" PRId64, jint(r->j, "count"));
	len = strlen(n);
	for (size_t i = 0; i < len; i++) {
		if (i && (len - i) % 3 == 0 && n[0] != '-')
			g[k++] = ',';
		g[k++] = n[i];
	}
	g[k] = 0;
	strbuf_printf(b, "\u2026 and %s more %s at ", g, jstr(r->j, "type") ?: "?");
	if (jstr(r->j, "site"))
		dotnet_record_say(r->j, jstr(r->j, "site"), b);
	else
		strbuf_puts(b, "?");
	strbuf_printf(b, ", not written: %s", left_out_reason(jstr(r->j, "reason")));
}

static void d_error(struct strbuf *b, const struct rec *r)
{
	strbuf_printf(b, "%s", jstr(r->j, "message") ?: "?");
}

/* Is R an exception.error record (see describe.h)? */
bool rec_is_error(const struct rec *r)
{
	return strcmp(r->event, "exception.error") == 0;
}

/* SPEC-FATES.md's table; to be the vocabulary's once the profiler writes them. */
const char *const error_fates[] = {
	"unhandled", "handled_by_framework", "handled", "handled_by_runtime", "stored", "swallowed",
	"superseded", "wrapped", "open", NULL,
};

/* Its hops in words (see describe.h). */
void error_hops(struct strbuf *b, json_t *err)
{
	static const struct {
		const char *key, *words;
	} hops[] = {
		{ "rethrow", "rethrown" }, { "await", "awaited" }, { "boundary", "raised again past a native boundary" },
	};
	json_t *h = json_object_get(err, "hops");
	size_t k, any = 0;

	for (k = 0; k < sizeof(hops) / sizeof(hops[0]); k++) {
		int64_t n = jint(h, hops[k].key);

		if (n > 0)
			strbuf_printf(b, "%s%s %" PRId64 " time%s", any++ ? ", " : "", hops[k].words, n, n == 1 ? "" : "s");
	}
}

/* Who decided it (see describe.h). */
void error_handler(struct strbuf *b, json_t *err)
{
	json_t *h = json_object_get(err, "handler");

	if (jstr(h, "label"))
		strbuf_puts(b, jstr(h, "label"));
	else if (jstr(h, "function"))
		dotnet_record_say(err, jstr(h, "function"), b);
}

/* Its fate in words (see describe.h). */
void error_fate(struct strbuf *b, json_t *err)
{
	const char *fate = jstr(err, "fate") ?: "?", *fn = jstr2(err, "handler", "function"),
		   *label = jstr2(err, "handler", "label");

	if (strcmp(fate, "handled") == 0 || strcmp(fate, "handled_by_framework") == 0 ||
	    strcmp(fate, "handled_by_runtime") == 0) {
		strbuf_puts(b, "handled");
		if (label)
			strbuf_printf(b, " by %s", label);
		else if (strcmp(fate, "handled_by_runtime") == 0)
			strbuf_puts(b, " by the runtime");
		else if (strcmp(fate, "handled_by_framework") == 0)
			strbuf_puts(b, " by a framework");
	} else if (strcmp(fate, "stored") == 0)
		strbuf_puts(b, "stored in a Task, never thrown again");
	else if (strcmp(fate, "swallowed") == 0)
		strbuf_puts(b, "swallowed: it escaped a filter");
	else if (strcmp(fate, "superseded") == 0 || strcmp(fate, "wrapped") == 0)
		strbuf_printf(b, "%s by #%" PRId64, fate, jint(err, strcmp(fate, "wrapped") == 0 ? "wrapped_by" : "superseded_by"));
	else if (strcmp(fate, "open") == 0)
		strbuf_puts(b, "open: still in flight when the trace ended");
	else
		strbuf_puts(b, fate);
	if (fn && strcmp(fate, "unhandled") != 0) {
		strbuf_puts(b, strcmp(fate, "stored") == 0 ? " (by " : " in ");
		dotnet_record_say(err, fn, b);
		strbuf_puts(b, strcmp(fate, "stored") == 0 ? ")" : "");
	}
}

/* exception.error on one line: the object, where it began, its fate. */
static void d_exception_error(struct strbuf *b, const struct rec *r)
{
	exception_text(b, json_object_get(r->j, "exception"));
	if (jstr2(r->j, "origin", "function")) {
		strbuf_puts(b, " from ");
		dotnet_record_say(r->j, jstr2(r->j, "origin", "function"), b);
	}
	strbuf_printf(b, ", %" PRId64 " throw%s", jint(r->j, "throws"), jint(r->j, "throws") == 1 ? "" : "s");
	strbuf_puts(b, ": ");
	error_fate(b, r->j);
}

static const char *const common_fields[] = {
	"v", "seq", "ts", "pid", "tid", "thread", "event", "phase", "span", "parent", "depth", "dur_ns", "begin_tid",
};

/* Events this clrtrace does not know: the fields it cannot name. */
static void d_unknown(struct strbuf *b, const struct rec *r)
{
	json_t *o = json_deep_copy(r->j);
	char *s;

	for (size_t i = 0; o && i < sizeof(common_fields) / sizeof(common_fields[0]); i++)
		json_object_del(o, common_fields[i]);
	s = o && json_object_size(o) ? json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
	if (s)
		strbuf_printf(b, "%.200s%s", s, strlen(s) > 200 ? "..." : "");
	free(s);
	json_decref(o);
}

typedef void (*describe_fn)(struct strbuf *b, const struct rec *r);

static const describe_fn describers[_EV_MAX] = {
#define EV(id, name, cat, kind, prio, msgid, desc, message, color, describe, stats, subject, body) [EV_##id] = describe,
#include "common/vocabulary.def"
#undef EV
};

/* Append the payload of R in words. */
void describe(struct strbuf *b, const struct rec *r)
{
	const char *hr = jstr(r->j, "hr");

	if (r->ev >= 0 && describers[r->ev])
		describers[r->ev](b, r);
	else if (rec_is_error(r))
		d_exception_error(b, r);
	else
		d_unknown(b, r);
	if (hr && strcmp(hr, "0x00000000") != 0)
		strbuf_printf(b, " [hr %s]", hr);
	if (json_is_true(json_object_get(r->j, "abandoned")))
		strbuf_printf(b, " [abandoned]");
	if (r->ev == EV_EXCEPTION_FILTER && runtime_filter(r->j))
		strbuf_printf(b, " [runtime's]");
}
