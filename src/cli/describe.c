/* SPDX-License-Identifier: MIT */
/* Records in words: one describer per event, from a table. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/describe.h"

/* Append printf-style to a growing string. */
void sb_printf(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(b->s ? b->s + b->len : NULL, b->s ? b->cap - b->len : 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (!b->s || b->len + (size_t)n >= b->cap) {
		size_t cap = (b->len + (size_t)n + 1) * 2;
		char *s = realloc(b->s, cap);

		if (!s)
			return;
		b->s = s;
		b->cap = cap;
		va_start(ap, fmt);
		n = vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
		va_end(ap);
		if (n < 0)
			return;
	}
	b->len += (size_t)n;
}

/* Empty the string, keeping its memory. */
void sb_reset(struct sbuf *b)
{
	b->len = 0;
	if (b->s)
		b->s[0] = '\0';
}

/* Free the string. */
void sb_done(struct sbuf *b)
{
	free(b->s);
	*b = (struct sbuf){ 0 };
}

/* The last path component. */
const char *base_name(const char *path)
{
	const char *s = path ? strrchr(path, '/') : NULL;

	return s ? s + 1 : path;
}

/* "name" of an {id,name} object, or its id. */
static void named(struct sbuf *b, json_t *o)
{
	const char *n = jstr(o, "name"), *id = jstr(o, "id");

	sb_printf(b, "%s", n ? n : id ? id : "?");
}

static void d_runtime_init(struct sbuf *b, const struct rec *r)
{
	json_t *ev = json_object_get(json_object_get(r->j, "config"), "events"), *e;
	size_t i;

	sb_printf(b, "%s, .NET %s, clrtrace %s, events", jstr(r->j, "program") ?: "?",
		  jstr2(r->j, "runtime", "version") ?: "?", jstr(r->j, "clrtrace") ?: "?");
	json_array_foreach(ev, i, e)
		sb_printf(b, "%s%s", i ? "," : " ", json_string_value(e) ?: "?");
}

static void d_runtime_shutdown(struct sbuf *b, const struct rec *r)
{
	sb_printf(b, "%" PRId64 " records, %" PRId64 " dropped", jint2(r->j, "totals", "records"),
		  jint2(r->j, "totals", "dropped"));
}

static void d_appdomain(struct sbuf *b, const struct rec *r) { named(b, json_object_get(r->j, "appdomain")); }
static void d_assembly(struct sbuf *b, const struct rec *r) { named(b, json_object_get(r->j, "assembly")); }
static void d_class(struct sbuf *b, const struct rec *r) { named(b, json_object_get(r->j, "class")); }

static void d_module(struct sbuf *b, const struct rec *r)
{
	const char *p = jstr2(r->j, "module", "path");

	sb_printf(b, "%s", p ? p : jstr2(r->j, "module", "id") ?: "?");
}

static void d_module_attach(struct sbuf *b, const struct rec *r)
{
	d_module(b, r);
	sb_printf(b, " to ");
	named(b, json_object_get(r->j, "assembly"));
}

static void d_target(struct sbuf *b, const struct rec *r)
{
	json_t *t = json_object_get(r->j, "target");
	const char *name = jstr(t, "name");

	sb_printf(b, "%s", jstr(t, "id") ?: "?");
	if (jint(t, "os_tid") > 0)
		sb_printf(b, " (tid %" PRId64 ")", jint(t, "os_tid"));
	if (name)
		sb_printf(b, " \"%s\"", name);
}

static void d_suspend(struct sbuf *b, const struct rec *r)
{
	const char *reason = jstr(r->j, "reason");

	if (reason)
		sb_printf(b, "%s", reason);
	if (json_is_true(json_object_get(r->j, "aborted")))
		sb_printf(b, "aborted");
}

static void d_transition(struct sbuf *b, const struct rec *r)
{
	sb_printf(b, "%s %s %s", jstr(r->j, "direction") ?: "?", jstr(r->j, "reason") ?: "?",
		  jstr(r->j, "function") ?: "?");
}

static void d_gc(struct sbuf *b, const struct rec *r)
{
	json_t *g = json_object_get(r->j, "generations"), *e;
	size_t i;

	if (!g)
		return;
	sb_printf(b, "gen");
	json_array_foreach(g, i, e)
		sb_printf(b, "%s%" JSON_INTEGER_FORMAT, i ? "," : " ", json_integer_value(e));
	sb_printf(b, " %s", jstr(r->j, "reason") ?: "");
}

static void d_function(struct sbuf *b, const struct rec *r)
{
	const char *f = jstr(r->j, "function");

	if (f)
		sb_printf(b, "%s", f);
}

/* "Type: message" of an exception object. */
static void exception_text(struct sbuf *b, json_t *e)
{
	const char *msg = jstr(e, "message");

	sb_printf(b, "#%" PRId64 " %s", jint(e, "id"), jstr(e, "type") ?: "?");
	if (msg)
		sb_printf(b, ": %s", msg);
}

static void d_throw(struct sbuf *b, const struct rec *r)
{
	json_t *n = json_object_get(r->j, "nested_in");

	exception_text(b, json_object_get(r->j, "exception"));
	if (json_is_true(json_object_get(r->j, "rethrow"))) {
		sb_printf(b, " (rethrow of #%" PRId64, jint(r->j, "rethrow_of"));
		if (jint(r->j, "origin") > 0 && jint(r->j, "origin") != jint(r->j, "rethrow_of"))
			sb_printf(b, ", first thrown as #%" PRId64, jint(r->j, "origin"));
		sb_printf(b, ")");
	}
	if (json_is_object(n))
		sb_printf(b, " (inside the %s of #%" PRId64 ")", jstr(n, "context") ?: "?", jint(n, "id"));
}

static void d_pass(struct sbuf *b, const struct rec *r)
{
	sb_printf(b, "#%" PRId64, jint2(r->j, "exception", "id"));
}

static void d_filter(struct sbuf *b, const struct rec *r)
{
	const char *res = jstr(r->j, "result");

	d_function(b, r);
	if (res)
		sb_printf(b, " -> %s", res);
}

static void d_unhandled(struct sbuf *b, const struct rec *r)
{
	exception_text(b, json_object_get(r->j, "exception"));
	if (jstr(r->j, "thrown_in"))
		sb_printf(b, " thrown in %s", jstr(r->j, "thrown_in"));
}

/* Length of an array field. */
static size_t alen(const struct rec *r, const char *key)
{
	return json_array_size(json_object_get(r->j, key));
}

/* " (true,false)": the results of a summary's filters, if it has any. */
static void filter_results(struct sbuf *b, json_t *filters)
{
	json_t *f;
	size_t i;

	json_array_foreach(filters, i, f)
		sb_printf(b, "%s%s", i ? "," : " (", jstr(f, "result") ?: "?");
	if (json_array_size(filters))
		sb_printf(b, ")");
}

static void d_summary(struct sbuf *b, const struct rec *r)
{
	json_t *e = json_object_get(r->j, "exception");

	sb_printf(b, "#%" PRId64 " %s %s", jint(e, "id"), jstr(e, "type") ?: "?", jstr(r->j, "outcome") ?: "?");
	if (jstr(r->j, "thrown_in"))
		sb_printf(b, ", thrown in %s", jstr(r->j, "thrown_in"));
	if (jstr(r->j, "caught_in"))
		sb_printf(b, ", caught in %s", jstr(r->j, "caught_in"));
	sb_printf(b, "; %zu frames searched, %zu filters", alen(r, "searched"), alen(r, "filters"));
	/* the results: a filter's own record may have ended "unknown" before
	 * the catch that ran decided it */
	filter_results(b, json_object_get(r->j, "filters"));
	sb_printf(b, ", %zu finally, %zu unwound", alen(r, "finally"), alen(r, "unwound"));
	if (jint(r->j, "superseded_by") > 0)
		sb_printf(b, "; %s #%" PRId64,
			  strcmp(jstr(r->j, "outcome") ?: "", "rethrown") == 0 ? "thrown again as"
			  : json_is_true(json_object_get(r->j, "wrapped")) ? "wrapped by" : "replaced by",
			  jint(r->j, "superseded_by"));
	if (jint(r->j, "origin") > 0)
		sb_printf(b, "; rethrow chain began with #%" PRId64, jint(r->j, "origin"));
	if (json_is_true(json_object_get(r->j, "boundary")))
		sb_printf(b, "; crossed a native boundary");
	if (json_is_true(json_object_get(r->j, "reported_unhandled")))
		sb_printf(b, "; the runtime reported it unhandled, then a finally replaced it (no crash of its own)");
	if (jstr(r->j, "interrupted"))
		sb_printf(b, "; cut short by %s", strcmp(jstr(r->j, "interrupted"), "exit") == 0 ? "the process exit" : "the thread's end");
}

static void d_dropped(struct sbuf *b, const struct rec *r)
{
	sb_printf(b, "%" PRId64 " records lost by %s %s: %s", jint(r->j, "count"), jstr(r->j, "sink") ?: "?",
		  jstr(r->j, "where") ?: "", jstr(r->j, "reason") ?: "?");
}

static void d_error(struct sbuf *b, const struct rec *r)
{
	sb_printf(b, "%s", jstr(r->j, "message") ?: "?");
}

static const char *const common_fields[] = {
	"v", "seq", "ts", "pid", "tid", "thread", "event", "phase", "span", "parent", "depth", "dur_ns",
};

/* Events this clrtrace does not know: the fields it cannot name. */
static void d_unknown(struct sbuf *b, const struct rec *r)
{
	json_t *o = json_deep_copy(r->j);
	char *s;

	for (size_t i = 0; o && i < sizeof(common_fields) / sizeof(common_fields[0]); i++)
		json_object_del(o, common_fields[i]);
	s = o && json_object_size(o) ? json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
	if (s)
		sb_printf(b, "%.200s%s", s, strlen(s) > 200 ? "..." : "");
	free(s);
	json_decref(o);
}

typedef void (*describe_fn)(struct sbuf *b, const struct rec *r);

static const describe_fn describers[_EV_MAX] = {
#define EV(id, name, cat, kind, prio, msgid, desc, message, color, describe, stats, subject, body) [EV_##id] = describe,
#include "common/vocabulary.def"
#undef EV
};

/* Append the payload of R in words. */
void describe(struct sbuf *b, const struct rec *r)
{
	const char *hr = jstr(r->j, "hr");

	if (r->ev >= 0 && describers[r->ev])
		describers[r->ev](b, r);
	else
		d_unknown(b, r);
	if (hr && strcmp(hr, "0x00000000") != 0)
		sb_printf(b, " [hr %s]", hr);
	if (json_is_true(json_object_get(r->j, "abandoned")))
		sb_printf(b, " [abandoned]");
}
