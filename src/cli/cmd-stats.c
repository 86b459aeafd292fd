/* SPDX-License-Identifier: MIT */
/*
 * clrtrace stats: one streaming pass that sums a trace up: exceptions by
 * type and outcome with throw and catch sites, the load sequence, threads,
 * runtime suspensions, drops and tracer errors.  The summary is built as
 * JSON (--json prints it as is) and rendered as text from that, but for
 * its two lists that grow with the trace, every thread and every load:
 * those are compact structs (struct sthread, struct sload), made into
 * JSON one item at a time as they are written (issue 27).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/args.h"
#include "cli/cli.h"
#include "cli/escape.h"
#include "cli/describe.h"
#include "cli/journal-source.h"
#include "cli/reader.h"
#include "cli/sites.h"
#include "cli/strpool.h"
#include "common/dotnet-names.h"
#include "common/util.h"

/* A thread of the list, in a few dozen bytes where a JSON object took
 * 1.8 KB (issue 27): its fields, and the order they were first set in,
 * which is the order --json gives them in (a thread named before it was
 * created lists its name first).
 *
 * Compact structs in memory rather than spilled to a temporary file as
 * view's lines are: an item changes until the input ends (a thread is
 * named or destroyed, a load ends, at any later record), so a spill would
 * need rewrites in place or a second pass, which stdin and the journal do
 * not allow; and an item is bounded (ids and numbers, strings interned
 * once), where view's thread holds lines without end.  With the maps
 * that find them, a thread and a load take 261 bytes together at a
 * million threads (bench/readers-memory.sh), less than view's and
 * check's per-thread state. */
enum { TF_OS_TID = 1, TF_CREATED, TF_DESTROYED, TF_MANAGED_TID, TF_NAME };
static const char *const thread_fields[] = {
	[TF_OS_TID] = "os_tid", [TF_CREATED] = "created_ns", [TF_DESTROYED] = "destroyed_ns",
	[TF_MANAGED_TID] = "managed_tid", [TF_NAME] = "name",
};
struct sthread {
	const char *id;   /* interned */
	const char *name; /* interned value (value_intern) */
	int64_t num[TF_NAME - 1]; /* the numbers, by TF_ code - 1 */
	uint16_t order;   /* the TF_ codes set, 3 bits each, the first lowest */
};

/* The kinds of load, the event that begins each and its payload's field. */
static const struct {
	enum ct_event ev;
	const char *kind, *field;
} load_kinds[] = {
	{ EV_APPDOMAIN_CREATE, "appdomain", "appdomain" },
	{ EV_ASSEMBLY_LOAD, "assembly", "assembly" },
	{ EV_MODULE_LOAD, "module", "module" },
};

/* A load of the list: interned values, NULL when absent. */
struct sload {
	const char *id, *name, *path, *hr;
	int64_t at_ns, dur_ns;
	uint8_t kind;  /* in load_kinds */
	bool ended;    /* dur_ns is known */
};

struct stats {
	int64_t t0, t_last;
	uint64_t records;
	json_t *events;      /* name -> count */
	json_t *types;       /* type -> {count, outcomes{}} */
	json_t *outcomes;    /* outcome -> count */
	json_t *throw_sites; /* function -> count */
	uint64_t throws, objects; /* exception.throw records; those that are no rethrow */
	json_t *catch_sites; /* function -> count */
	struct sload *loads; /* in begin order */
	size_t n_loads, cap_loads;
	struct u64map load_spans; /* span -> index+1 in loads */
	struct sthread *threads; /* in the order they were first seen */
	size_t n_threads, cap_threads;
	struct u64map thread_ids; /* interned managed id (its address) -> index+1 in threads */
	struct strpool *pool; /* thread ids, names, load ids, paths... */
	struct strbuf sb;     /* value_intern's scratch */
	json_t *out, *threads_o, *loads_ph, *list_ph; /* the summary's skeleton: see stats_json */
	bool oom;            /* an item of a list could not be written */
	uint64_t created, destroyed, named;
	struct u64map suspend_spans; /* span -> reason (malloc'd) */
	json_t *suspends;    /* reason -> {count, total_ns, max_ns, aborted} */
	struct u64map in_flight; /* pid<<32|exception id -> type (malloc'd): thrown, no summary yet */
	json_t *drops;       /* "sink where: reason" -> {sink, where, reason, count} */
	int64_t dropped;     /* 0 to INT64_MAX */
	/* rotation's retention (trace.rotated): files removed, last seq */
	int64_t files_removed, removed_through;
	json_t *lefts;       /* "type\tsite\treason" -> {type, site, reason, count} (trace.left_out) */
	int64_t left_out;    /* their sum, 0 to INT64_MAX */
	json_t *errors;      /* message -> count */
	json_t *by_site;     /* "type at where" -> {count, outcomes{}} (category stacks) */
	struct sites *sites; /* made at the first summary with a stack */
	struct rd *rd;       /* for warnings */
	/* errors (exception.error, issue 28): one per exception object */
	uint64_t n_errors, error_throws;
	json_t *err_types;   /* type -> {count, throws, fates{}, handlers{}, origins{}, durs[]} */
	json_t *err_fates;   /* fate -> count */
	json_t *err_matrix;  /* "origin type handler" -> {origin, type, fate, handler, count} */
	json_t *err_requests; /* "method path type fate" -> {method, path, type, fate, count} (category requests) */
	json_t *err_durs;    /* every error's dur_ns */
	struct u64map err_lines; /* pid<<32|error -> its origin's source line "File.cs:N" (malloc'd) */
};

/* counter[key] += n (N >= 0), saturating: false when the sum would pass
 * INT64_MAX (it stays there). */
static bool bump(json_t *counter, const char *key, int64_t n)
{
	json_t *v = json_object_get(counter, key ? key : "?");
	json_int_t sum;
	bool ok = true;

	if (!v)
		return json_object_set_new(counter, key ? key : "?", json_integer(n)), true;
	if (__builtin_add_overflow(json_integer_value(v), n, &sum)) {
		sum = INT64_MAX;
		ok = false;
	}
	json_integer_set(v, sum);
	return ok;
}

/* The object at counter[key], created empty. */
static json_t *entry(json_t *map, const char *key)
{
	json_t *o = json_object_get(map, key ? key : "?");

	if (!o) {
		o = json_object();
		json_object_set_new(map, key ? key : "?", o);
	}
	return o;
}

/* One exception with its outcome. */
static void count_exception(struct stats *s, const char *type, const char *outcome)
{
	json_t *t = entry(s->types, type);

	bump(t, "count", 1);
	bump(entry(t, "outcomes"), outcome, 1);
	bump(s->outcomes, outcome, 1);
}

/* The throw site of summary R (with a stack): type and file:line. */
static void count_site(struct stats *s, const struct rec *r, const char *outcome)
{
	_cleanup_free_ char *key = NULL;
	json_t *e;

	if (!json_object_get(r->j, "stack") || (!s->sites && !(s->sites = sites_new())))
		return;
	key = sites_key(s->sites, r->j);
	if (!key)
		return;
	e = entry(s->by_site, key);
	bump(e, "count", 1);
	bump(entry(e, "outcomes"), outcome ? outcome : "?", 1);
}

/* Exceptions: summaries give outcome and sites; throws without one stay "unknown". */
static void on_exception(struct stats *s, const struct rec *r)
{
	int64_t id = jint2(r->j, "exception", "id");
	uint64_t key = ((uint64_t)(uint32_t)r->pid << 32) | (uint32_t)id;
	const char *type = jstr2(r->j, "exception", "type");

	if (r->ev == EV_EXCEPTION_THROW && id >= 0) {
		void **slot = u64map_slot(&s->in_flight, key);

		s->throws++;
		if (!json_is_true(json_object_get(r->j, "rethrow")))
			s->objects++;
		if (jint(r->j, "error") == id && json_object_get(r->j, "stack") && (s->sites || (s->sites = sites_new()))) {
			char *line = sites_line(s->sites, r->j);
			void **at = line ? u64map_slot(&s->err_lines, key) : NULL;

			if (at) {
				free(*at);
				*at = line;
			} else
				free(line);
		}
		if (slot) {
			free(*slot);
			*slot = strdup(type ? type : "?");
		}
	} else if (r->ev == EV_EXCEPTION_SUMMARY) {
		const char *outcome = jstr(r->j, "outcome");

		free(u64map_del(&s->in_flight, key));
		count_exception(s, type, outcome);
		count_site(s, r, outcome);
		bump(s->throw_sites, jstr(r->j, "thrown_in") ?: "(unknown)", 1);
		if (jstr(r->j, "caught_in"))
			bump(s->catch_sites, jstr(r->j, "caught_in"), 1);
	}
}

/* An entry's handler: its LABEL and FUNCTION, when known. */
static void set_handler(json_t *o, const char *label, const char *function)
{
	if (label)
		json_object_set_new(o, "label", json_string(label));
	if (function)
		json_object_set_new(o, "handler", json_string(function));
}

/* The request error R belongs to (category requests), by method and path
 * (not the request id: one line per endpoint), type and FATE. */
static void on_error_request(struct stats *s, const struct rec *r, const char *fate)
{
	const char *method = jstr2(r->j, "request", "method"), *path = jstr2(r->j, "request", "path");
	const char *type = jstr2(r->j, "exception", "type") ?: "?";
	struct strbuf k = { 0 };
	json_t *o;

	if (!path)
		return;
	strbuf_printf(&k, "%s\037%s\037%s\037%s", method ?: "", path, type, fate);
	o = entry(s->err_requests, k.s);
	if (method)
		json_object_set_new(o, "method", json_string(method));
	json_object_set_new(o, "path", json_string(path));
	json_object_set_new(o, "type", json_string(type));
	json_object_set_new(o, "fate", json_string(fate));
	bump(o, "count", 1);
	strbuf_free(&k);
}

/* An error (exception.error): by type, fate, handler, origin; the
 * throw site x handler matrix; the time from origin to fate. */
static void on_error(struct stats *s, const struct rec *r)
{
	int64_t id = jint(r->j, "error"), throws = jint(r->j, "throws");
	_cleanup_free_ char *line = id >= 0 ? u64map_del(&s->err_lines, ((uint64_t)(uint32_t)r->pid << 32) | (uint32_t)id) : NULL;
	const char *fate = jstr(r->j, "fate") ?: "?", *origin = jstr2(r->j, "origin", "function") ?: "(unknown)";
	json_t *t = entry(s->err_types, jstr2(r->j, "exception", "type")), *o;
	struct strbuf h = { 0 }, k = { 0 };
	const char *hl, *hf;

	s->n_errors++;
	s->error_throws += throws > 0 ? (uint64_t)throws : 0;
	bump(s->err_fates, fate, 1);
	bump(t, "count", 1);
	bump(t, "throws", throws > 0 ? throws : 0);
	bump(entry(t, "fates"), fate, 1);
	/* who decided it: the handler's label ("Kestrel (500)") and function, as they are */
	hl = jstr2(r->j, "handler", "label");
	hf = jstr2(r->j, "handler", "function");
	strbuf_printf(&h, "%s\037%s", hl ?: "", hf ?: "");
	strbuf_printf(&k, "%s\037%s", fate, h.s);
	o = entry(entry(t, "handlers"), k.s);
	json_object_set_new(o, "fate", json_string(fate));
	set_handler(o, hl, hf);
	bump(o, "count", 1);
	strbuf_reset(&k);
	strbuf_printf(&k, "%s\037%s", origin, line ?: "");
	o = entry(entry(t, "origins"), k.s);
	json_object_set_new(o, "function", json_string(origin));
	if (line)
		json_object_set_new(o, "line", json_string(line));
	bump(o, "count", 1);
	strbuf_reset(&k);
	strbuf_printf(&k, "%s\037%s\037%s\037%s", origin, jstr2(r->j, "exception", "type") ?: "?", fate, h.s);
	o = entry(s->err_matrix, k.s);
	json_object_set_new(o, "origin", json_string(origin));
	json_object_set_new(o, "type", json_string(jstr2(r->j, "exception", "type") ?: "?"));
	json_object_set_new(o, "fate", json_string(fate));
	set_handler(o, hl, hf);
	bump(o, "count", 1);
	on_error_request(s, r, fate);
	if (r->dur_ns >= 0) {
		json_t *d = json_object_get(t, "durs");

		if (!d)
			json_object_set_new(t, "durs", d = json_array());
		json_array_append_new(d, json_integer(r->dur_ns));
		json_array_append_new(s->err_durs, json_integer(r->dur_ns));
	}
	strbuf_free(&h);
	strbuf_free(&k);
}

/* Room for one more item of N in *V (of CAP, SIZE bytes each): its
 * address, or NULL on ENOMEM.  Doubling: realloc moves large vectors
 * with mremap, without a copy. */
static void *push(void *v, size_t *n, size_t *cap, size_t size)
{
	void **vec = v;

	if (*n == *cap) {
		size_t c = *cap ? *cap * 2 : 64;
		void *w = reallocarray(*vec, c, size);

		if (!w)
			return NULL;
		*vec = w;
		*cap = c;
	}
	return (char *)*vec + (*n)++ * size;
}

/* V (a record's JSON, not NULL) interned: "s" and the string when it is a
 * string without NULs, else "j" and its JSON text; NULL on ENOMEM. */
static const char *value_intern(struct stats *s, json_t *v)
{
	const char *str = json_string_value(v);
	const char *p;
	char *text;

	strbuf_reset(&s->sb);
	if (str && strlen(str) == json_string_length(v)) {
		strbuf_add(&s->sb, "s", 1);
		strbuf_add(&s->sb, str, json_string_length(v));
	} else if ((text = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT))) {
		strbuf_add(&s->sb, "j", 1);
		strbuf_puts(&s->sb, text);
		free(text);
	} else
		return NULL;
	if (s->sb.oom || !(p = strpool_intern(s->pool, s->sb.s, s->sb.len)))
		return NULL;
	return p;
}

/* A new JSON value of an interned one (NULL: none). */
static json_t *value_json(const char *p)
{
	if (!p)
		return NULL;
	if (p[0] == 's')
		return json_string(p + 1);
	return json_loadb(p + 1, strpool_len(p) - 1, JSON_DECODE_ANY | JSON_ALLOW_NUL, NULL);
}

/* Loader: appdomains, assemblies, modules in the order they began. */
static void on_load(struct stats *s, const struct rec *r)
{
	size_t k = 0, i;
	struct sload *l;
	json_t *obj;
	void **slot;

	while (k < sizeof(load_kinds) / sizeof(load_kinds[0]) && load_kinds[k].ev != r->ev)
		k++;
	if (k == sizeof(load_kinds) / sizeof(load_kinds[0]) || r->span < 0)
		return;
	obj = json_object_get(r->j, load_kinds[k].field);
	if (r->ph == PH_BEGIN) {
		json_t *id = json_object_get(obj, "id");
		const char *idv = id ? value_intern(s, id) : NULL;

		if ((id && !idv) || !(l = push(&s->loads, &s->n_loads, &s->cap_loads, sizeof(*l))))
			return;
		*l = (struct sload){ .kind = (uint8_t)k, .id = idv, .at_ns = r->ts - s->t0 };
		slot = u64map_slot(&s->load_spans, (uint64_t)r->span);
		if (slot)
			*slot = (void *)(uintptr_t)s->n_loads;
		return;
	}
	i = (size_t)(uintptr_t)u64map_del(&s->load_spans, (uint64_t)r->span);
	if (!i)
		return;
	l = &s->loads[i - 1];
	if (jstr(obj, "name"))
		l->name = value_intern(s, json_object_get(obj, "name"));
	if (jstr(obj, "path"))
		l->path = value_intern(s, json_object_get(obj, "path"));
	l->dur_ns = r->dur_ns;
	l->ended = true;
	if (jstr(r->j, "hr"))
		l->hr = value_intern(s, json_object_get(r->j, "hr"));
}

/* Mark field F of T set (its place in the order is where it was first set). */
static void thread_set(struct sthread *t, unsigned f)
{
	unsigned shift = 0;

	for (unsigned o = t->order; o; o >>= 3, shift += 3)
		if ((o & 7) == f)
			return;
	t->order |= (uint16_t)(f << shift);
}

/* Does T have field F? */
static bool thread_has(const struct sthread *t, unsigned f)
{
	for (unsigned o = t->order; o; o >>= 3)
		if ((o & 7) == f)
			return true;
	return false;
}

/* The thread of managed id ID, created if new; NULL on ENOMEM. */
static struct sthread *thread_get(struct stats *s, const char *id)
{
	const char *p = strpool_intern(s->pool, id, strlen(id));
	void **slot = p ? u64map_slot(&s->thread_ids, (uintptr_t)p) : NULL;
	struct sthread *t;

	if (!slot)
		return NULL;
	if (*slot)
		return &s->threads[(uintptr_t)*slot - 1];
	if (!(t = push(&s->threads, &s->n_threads, &s->cap_threads, sizeof(*t))))
		return NULL;
	*t = (struct sthread){ .id = p };
	*slot = (void *)(uintptr_t)s->n_threads;
	return t;
}

/* Threads: created, destroyed, named, with their OS tids. */
static void on_thread(struct stats *s, const struct rec *r)
{
	json_t *target = json_object_get(r->j, "target"), *name;
	const char *id = jstr(target, "id");
	struct sthread *t;

	if (!id || !(t = thread_get(s, id)))
		return;
	if (jint(target, "os_tid") > 0) {
		t->num[TF_OS_TID - 1] = jint(target, "os_tid");
		thread_set(t, TF_OS_TID);
	}
	switch (r->ev) {
	case EV_THREAD_CREATE:
		s->created++;
		t->num[TF_CREATED - 1] = r->ts - s->t0;
		thread_set(t, TF_CREATED);
		break;
	case EV_THREAD_DESTROY:
		s->destroyed++;
		t->num[TF_DESTROYED - 1] = r->ts - s->t0;
		thread_set(t, TF_DESTROYED);
		break;
	case EV_THREAD_NAME:
		s->named++;
		if ((name = json_object_get(target, "name")) && (t->name = value_intern(s, name)))
			thread_set(t, TF_NAME);
		break;
	default:
		break;
	}
}

/* A thread's managed thread id, from the common fields of its records. */
static void learn_managed_tid(struct stats *s, const struct rec *r)
{
	const char *p = strpool_find(s->pool, r->thread, strlen(r->thread));
	uintptr_t i = p ? (uintptr_t)u64map_get(&s->thread_ids, (uintptr_t)p) : 0;

	if (i && !thread_has(&s->threads[i - 1], TF_MANAGED_TID)) {
		s->threads[i - 1].num[TF_MANAGED_TID - 1] = r->managed_tid;
		thread_set(&s->threads[i - 1], TF_MANAGED_TID);
	}
}

/* Suspensions: reason from the begin, duration from the end. */
static void on_suspend(struct stats *s, const struct rec *r)
{
	char *reason;
	json_t *e, *max;

	if (r->span < 0)
		return;
	if (r->ph == PH_BEGIN) {
		void **slot = u64map_slot(&s->suspend_spans, (uint64_t)r->span);

		if (slot) {
			free(*slot);
			*slot = strdup(jstr(r->j, "reason") ?: "?");
		}
		return;
	}
	reason = u64map_del(&s->suspend_spans, (uint64_t)r->span);
	e = entry(s->suspends, reason ? reason : "?");
	free(reason);
	bump(e, "count", 1);
	if (!bump(e, "total_ns", r->dur_ns > 0 ? r->dur_ns : 0))
	{
		rd_warn(s->rd, r->line, "suspension time passes %" PRId64 " ns in all; the total is capped there", INT64_MAX);
		rd_mark_bad(s->rd);
	}
	max = json_object_get(e, "max_ns");
	if (!max || json_integer_value(max) < r->dur_ns)
		json_object_set_new(e, "max_ns", json_integer(r->dur_ns));
	bump(e, "aborted", json_is_true(json_object_get(r->j, "aborted")));
}

/* R's "count" (a trace.dropped or trace.left_out) into E's count and
 * *TOTAL; each count <= INT64_MAX (jansson): the sums saturate there. */
static void count_into(struct stats *s, const struct rec *r, json_t *e, int64_t *total)
{
	int64_t n = jint(r->j, "count") > 0 ? jint(r->j, "count") : 0;
	bool capped = !bump(e, "count", n);

	if (n > INT64_MAX - *total) {
		*total = INT64_MAX;
		capped = true;
	} else
		*total += n;
	if (capped) {
		rd_warn(s->rd, r->line, "%s count %" PRId64 " makes the total overflow; it is capped at %" PRId64,
			r->event, n, INT64_MAX);
		rd_mark_bad(s->rd);
	}
}

/* Drops and tracer errors. */
static void on_trace(struct stats *s, const struct rec *r)
{
	if (r->ev == EV_TRACE_ERROR) {
		bump(s->errors, jstr(r->j, "message"), 1);
		return;
	}
	/* a rotation: what the keep limit removed is retention, not loss.
	 * removed_files counts the files removed at this rotation (the
	 * records that named older ones may have gone with them: the sum is
	 * of those seen); removed_through only grows */
	if (r->ev == EV_TRACE_ROTATED) {
		int64_t n = jint(r->j, "removed_files");

		if (n > 0 && n <= INT64_MAX - s->files_removed)
			s->files_removed += n;
		if (jint(r->j, "removed_through") > s->removed_through)
			s->removed_through = jint(r->j, "removed_through");
		return;
	}
	{
		const char *sink = jstr(r->j, "sink") ?: "?", *where = jstr(r->j, "where") ?: "",
			   *reason = jstr(r->j, "reason") ?: "?";
		char *key = NULL;
		json_t *e;

		if (asprintf(&key, "%s %s: %s", sink, where, reason) < 0)
			return;
		e = entry(s->drops, key);
		free(key);
		json_object_set_new(e, "sink", json_string(sink));
		json_object_set_new(e, "where", json_string(where));
		json_object_set_new(e, "reason", json_string(reason));
		count_into(s, r, e, &s->dropped);
	}
}

/* trace.left_out: errors sampled out or over a Type:N limit, by type,
 * site and reason; each record counts those since the previous one. */
static void on_left_out(struct stats *s, const struct rec *r)
{
	const char *type = jstr(r->j, "type") ?: "?", *site = jstr(r->j, "site") ?: "?",
		   *reason = jstr(r->j, "reason") ?: "?";
	char *key = NULL;
	json_t *e;

	if (asprintf(&key, "%s\t%s\t%s", type, site, reason) < 0)
		return;
	e = entry(s->lefts, key);
	free(key);
	if (!json_object_get(e, "type")) {
		json_object_set_new(e, "type", json_string(type));
		json_object_set_new(e, "site", json_string(site));
		json_object_set_new(e, "reason", json_string(reason));
	}
	count_into(s, r, e, &s->left_out);
}

typedef void (*stat_fn)(struct stats *s, const struct rec *r);

static const stat_fn handlers[_EV_MAX] = {
#define EV(id, name, cat, kind, prio, msgid, desc, message, color, describe, stats, subject, body) [EV_##id] = stats,
#include "common/vocabulary.def"
#undef EV
};

/* Feed one record. */
static void stats_add(struct stats *s, const struct rec *r)
{
	if (s->t0 < 0 && r->ts >= 0)
		s->t0 = r->ts;
	if (r->ev == EV_RUNTIME_INIT && r->ts >= 0 && s->records == 0)
		s->t0 = r->ts;
	if (r->ts > s->t_last)
		s->t_last = r->ts;
	s->records++;
	bump(s->events, r->event, 1);
	if (r->ev >= 0 && handlers[r->ev])
		handlers[r->ev](s, r);
	else if (rec_is_error(r))
		on_error(s, r);
	if (r->thread && r->managed_tid >= 0)
		learn_managed_tid(s, r);
}

/* qsort: by "count" descending, then by name. */
static int by_count(const void *a, const void *b)
{
	json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;
	json_int_t cx = json_integer_value(json_object_get(x, "count")), cy = json_integer_value(json_object_get(y, "count"));

	if (cx != cy)
		return cx < cy ? 1 : -1;
	return strcmp(jstr(x, "name") ?: "", jstr(y, "name") ?: "");
}

/* {key: count | {count,...}} -> [{name: key, count, ...}] sorted by count; at most LIMIT (0: all). */
static json_t *ranked(json_t *map, const char *name_field, size_t limit)
{
	size_t n = json_object_size(map), i = 0;
	json_t **v = calloc(n + 1, sizeof(*v)), *arr = json_array(), *val;
	const char *key;

	if (!v || !arr) {
		free(v);
		return arr;
	}
	json_object_foreach(map, key, val) {
		json_t *o = json_is_object(val) ? json_deep_copy(val) : json_pack("{s:O}", "count", val);

		json_object_set_new(o, "name", json_string(key));
		v[i++] = o;
	}
	qsort(v, i, sizeof(*v), by_count);
	for (size_t k = 0; k < i; k++) {
		json_t *o = v[k];

		if (strcmp(name_field, "name") != 0) {
			json_object_set(o, name_field, json_object_get(o, "name"));
			json_object_del(o, "name");
		}
		if (!limit || k < limit)
			json_array_append_new(arr, o);
		else
			json_decref(o);
	}
	free(v);
	return arr;
}

/* qsort: int64 ascending. */
static int by_value(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/* {median, p99, max} (nearest rank) of the integers of DURS, or NULL. */
static json_t *dur_stats(json_t *durs)
{
	size_t n = json_array_size(durs), i;
	int64_t *v = n ? calloc(n, sizeof(*v)) : NULL;
	json_t *d, *out;

	if (!v)
		return NULL;
	json_array_foreach(durs, i, d)
		v[i] = json_integer_value(d);
	qsort(v, n, sizeof(*v), by_value);
	out = json_pack("{s:I,s:I,s:I}", "median", (json_int_t)v[(n + 1) / 2 - 1], "p99",
			(json_int_t)v[(n * 99 + 99) / 100 - 1], "max", (json_int_t)v[n - 1]);
	free(v);
	return out;
}

/* A map of {count,...} entries as a ranked array without their keys. */
static json_t *ranked_values(json_t *map, size_t limit)
{
	json_t *arr = ranked(map, "key", limit), *o;
	size_t i;

	json_array_foreach(arr, i, o)
		json_object_del(o, "key");
	return arr;
}

/* The errors as JSON, or NULL when the trace has none. */
static json_t *errors_json(struct stats *s, size_t top)
{
	json_t *fates = json_object(), *types, *o, *out;
	size_t i;

	if (!s->n_errors)
		return NULL;
	for (size_t k = 0; error_fates[k]; k++)
		if (json_object_get(s->err_fates, error_fates[k]))
			json_object_set(fates, error_fates[k], json_object_get(s->err_fates, error_fates[k]));
	json_object_update_missing(fates, s->err_fates);
	types = ranked(s->err_types, "type", 0);
	json_array_foreach(types, i, o) {
		json_t *d = dur_stats(json_object_get(o, "durs"));

		json_object_set_new(o, "handlers", ranked_values(json_object_get(o, "handlers"), 0));
		json_object_set_new(o, "origins", ranked_values(json_object_get(o, "origins"), top));
		json_object_del(o, "durs");
		if (d)
			json_object_set_new(o, "dur_ns", d);
	}
	out = json_pack("{s:I,s:I,s:o,s:o,s:o}", "total", (json_int_t)s->n_errors, "throws", (json_int_t)s->error_throws,
			"by_fate", fates, "by_type", types, "matrix", ranked_values(s->err_matrix, top));
	if (out && json_array_size(s->err_durs))
		json_object_set_new(out, "dur_ns", dur_stats(s->err_durs));
	if (out && json_object_size(s->err_requests))
		json_object_set_new(out, "by_request", ranked_values(s->err_requests, top));
	return out;
}

/* Thread T as JSON: its fields in the order they were first set, then its id. */
static json_t *thread_json(const struct sthread *t)
{
	json_t *o = json_object();

	for (unsigned f = t->order; o && f; f >>= 3)
		json_object_set_new(o, thread_fields[f & 7],
				    (f & 7) == TF_NAME ? value_json(t->name) : json_integer(t->num[(f & 7) - 1]));
	if (o && json_object_set_new(o, "id", json_string(t->id)) < 0) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* Load L as JSON: {kind, id, at_ns, name, path, dur_ns, hr}, what is known. */
static json_t *load_json(const struct sload *l)
{
	json_t *o = json_pack("{s:s,s:o?,s:I}", "kind", load_kinds[l->kind].kind, "id", value_json(l->id), "at_ns",
			      (json_int_t)l->at_ns);

	if (!o)
		return NULL;
	if (l->name)
		json_object_set_new(o, "name", value_json(l->name));
	if (l->path)
		json_object_set_new(o, "path", value_json(l->path));
	if (l->ended)
		json_object_set_new(o, "dur_ns", json_integer(l->dur_ns));
	if (l->hr)
		json_object_set_new(o, "hr", value_json(l->hr));
	return o;
}

/* Item I of the loads (LOADS) or of the threads as JSON; NULL on ENOMEM. */
static json_t *item_json(const struct stats *s, bool loads, size_t i)
{
	return loads ? load_json(&s->loads[i]) : thread_json(&s->threads[i]);
}

/* The whole summary as JSON, but for the two lists that grow with the
 * trace: "loads" and "threads"."list" are empty arrays there (s->loads_ph,
 * s->list_ph), and stats_print writes them from the structs, item by item. */
static json_t *stats_json(struct stats *s, uint64_t bad_lines, size_t top)
{
	json_t *t, *out;
	json_int_t total = 0;
	const char *key;

	/* throws that never got a summary: the process died or the trace ended */
	u64map_foreach(&s->in_flight, i)
		count_exception(s, s->in_flight.vals[i], "unknown");
	json_object_foreach(s->outcomes, key, t)
		total += json_integer_value(t);
	s->loads_ph = json_array();
	s->list_ph = json_array();
	out = json_pack("{s:I,s:I,s:I,s:o,s:{s:I,s:I,s:I,s:O,s:o,s:o,s:o},s:O,s:{s:I,s:I,s:I,s:O},s:o,s:{s:I,s:o},s:o}",
			 "records", (json_int_t)s->records, "bad_lines", (json_int_t)bad_lines, "duration_ns",
			 (json_int_t)(s->t0 >= 0 ? s->t_last - s->t0 : 0), "events", ranked(s->events, "event", 0),
			 "exceptions", "total", total, "throws", (json_int_t)s->throws, "objects", (json_int_t)s->objects,
			 "by_outcome", s->outcomes, "by_type", ranked(s->types, "type", 0),
			 "throw_sites", ranked(s->throw_sites, "function", top), "catch_sites",
			 ranked(s->catch_sites, "function", top), "loads", s->loads_ph, "threads", "created",
			 (json_int_t)s->created, "destroyed", (json_int_t)s->destroyed, "named", (json_int_t)s->named, "list",
			 s->list_ph, "suspensions", ranked(s->suspends, "reason", 0), "dropped", "records",
			 (json_int_t)s->dropped, "by_sink", ranked(s->drops, "key", 0), "errors",
			 ranked(s->errors, "message", 0));
	/* with the stacks category: exceptions by throw site and line */
	if (out && json_object_size(s->by_site))
		json_object_set_new(json_object_get(out, "exceptions"), "by_site", ranked(s->by_site, "site", top));
	/* with trace.left_out records: what sampling and Type:N limits left out */
	if (out && json_object_size(s->lefts)) {
		json_t *by = ranked(s->lefts, "key", 0), *o;
		size_t i;

		json_array_foreach(by, i, o)
			json_object_del(o, "key");
		json_object_set_new(json_object_get(out, "exceptions"), "left_out",
				    json_pack("{s:I,s:o}", "errors", (json_int_t)s->left_out, "by", by));
	}
	/* with exception.error records: the errors (the top-level "errors"
	 * are the tracer's own) */
	if (out && s->n_errors)
		json_object_set_new(json_object_get(out, "exceptions"), "errors", errors_json(s, top));
	/* a rotated trace whose keep limit removed files */
	if (out && (s->files_removed || s->removed_through > 0))
		json_object_set_new(out, "retention",
				    json_pack("{s:I,s:I}", "files_removed", (json_int_t)s->files_removed,
					      "removed_through", (json_int_t)s->removed_through));
	s->out = out;
	s->threads_o = json_object_get(out, "threads");
	/* the summary holds the placeholders; these references go */
	json_decref(s->loads_ph);
	json_decref(s->list_ph);
	if (!out)
		s->loads_ph = s->list_ph = NULL;
	return out;
}

/* Milliseconds with 3 decimals. */
static double ms(json_t *o, const char *key)
{
	return (double)json_integer_value(json_object_get(o, key)) / 1e6;
}

/* " (N caught, M unhandled)" of an entry's outcomes, and the newline. */
static void print_outcomes(json_t *o)
{
	printf(" (");
	for (size_t k = 0, first = 1; k < _OUTCOME_MAX; k++) {
		json_int_t n = json_integer_value(json_object_get(json_object_get(o, "outcomes"), ct_outcome_table[k]));

		if (n) {
			printf("%s%" JSON_INTEGER_FORMAT " %s", first ? "" : ", ", n, ct_outcome_table[k]);
			first = 0;
		}
	}
	printf(")\n");
}

/* " median X, p99 Y, max Z" of a dur_ns object. */
static void print_durs(json_t *d)
{
	char a[32], b[32], c[32];

	if (d)
		printf(", origin to fate: median %s, p99 %s, max %s",
		       fmt_dur(a, sizeof(a), json_integer_value(json_object_get(d, "median"))),
		       fmt_dur(b, sizeof(b), json_integer_value(json_object_get(d, "p99"))),
		       fmt_dur(c, sizeof(c), json_integer_value(json_object_get(d, "max"))));
}

/* An entry's handler after SEP: its label and function ("Kestrel (500) in
 * F"); SHORT: the label alone when it has one. */
static void print_handler(json_t *o, const char *sep, bool short_, struct strbuf *name)
{
	if (!jstr(o, "label") && !jstr(o, "handler"))
		return;
	if (short_ && jstr(o, "label")) {
		printf("%s%s", sep, jstr(o, "label"));
		return;
	}
	printf("%s%s%s", sep, jstr(o, "label") ?: "", jstr(o, "label") && jstr(o, "handler") ? " in " : "");
	strbuf_reset(name);
	if (jstr(o, "handler"))
		printf("%s", dotnet_display(jstr(o, "handler"), NULL, name));
}

/* Render the errors (when the trace has exception.error): totals by fate,
 * each type with its origins and fates, who throws what and who handles it. */
static void print_errors(json_t *e, json_t *left)
{
	struct strbuf name = { 0 };
	const char *key;
	json_t *o, *v;
	size_t i, k;

	if (!e)
		return;
	printf("\n\nErrors: %" JSON_INTEGER_FORMAT " (%" JSON_INTEGER_FORMAT " throws)",
	       json_integer_value(json_object_get(e, "total")), json_integer_value(json_object_get(e, "throws")));
	json_object_foreach(json_object_get(e, "by_fate"), key, v)
		printf(", %" JSON_INTEGER_FORMAT " %s", json_integer_value(v), key);
	print_durs(json_object_get(e, "dur_ns"));
	if (left)
		printf("; %" JSON_INTEGER_FORMAT " more left out, not written (below)",
		       json_integer_value(json_object_get(left, "errors")));
	printf("\n");
	json_array_foreach(json_object_get(e, "by_type"), i, o) {
		json_int_t throws = json_integer_value(json_object_get(o, "throws"));

		printf("  %6" JSON_INTEGER_FORMAT "  %s, %" JSON_INTEGER_FORMAT " throw%s", json_integer_value(json_object_get(o, "count")),
		       jstr(o, "type"), throws, throws == 1 ? "" : "s");
		print_durs(json_object_get(o, "dur_ns"));
		printf("\n");
		json_array_foreach(json_object_get(o, "origins"), k, v) {
			strbuf_reset(&name);
			printf("          %6" JSON_INTEGER_FORMAT "  from %s", json_integer_value(json_object_get(v, "count")),
			       dotnet_display(jstr(v, "function") ?: "?", NULL, &name));
			printf(jstr(v, "line") ? " (%s)\n" : "\n", jstr(v, "line"));
		}
		json_array_foreach(json_object_get(o, "handlers"), k, v) {
			printf("          %6" JSON_INTEGER_FORMAT "  %s", json_integer_value(json_object_get(v, "count")), jstr(v, "fate"));
			print_handler(v, ": ", false, &name);
			printf("\n");
		}
	}
	printf("Who throws what, who handles it:\n");
	json_array_foreach(json_object_get(e, "matrix"), i, o) {
		strbuf_reset(&name);
		printf("  %6" JSON_INTEGER_FORMAT "  %s: %s -> %s", json_integer_value(json_object_get(o, "count")),
		       dotnet_display(jstr(o, "origin") ?: "?", NULL, &name), jstr(o, "type"), jstr(o, "fate"));
		print_handler(o, " by ", true, &name);
		printf("\n");
	}
	if (json_array_size(json_object_get(e, "by_request")))
		printf("Errors by request:\n");
	json_array_foreach(json_object_get(e, "by_request"), i, o)
		printf("  %6" JSON_INTEGER_FORMAT "  %s%s%s: %s -> %s\n", json_integer_value(json_object_get(o, "count")),
		       jstr(o, "method") ?: "", jstr(o, "method") ? " " : "", jstr(o, "path"), jstr(o, "type"), jstr(o, "fate"));
	strbuf_free(&name);
}

/* Render what was left out of the trace on purpose (trace.left_out). */
static void print_left_out(json_t *l)
{
	struct strbuf name = { 0 };
	json_t *o;
	size_t i;

	if (!l)
		return;
	printf("Left out, not written (errors with all their throws): %" JSON_INTEGER_FORMAT "\n",
	       json_integer_value(json_object_get(l, "errors")));
	json_array_foreach(json_object_get(l, "by"), i, o) {
		strbuf_reset(&name);
		printf("  %6" JSON_INTEGER_FORMAT "  %s at %s: %s\n", json_integer_value(json_object_get(o, "count")),
		       jstr(o, "type"), dotnet_display(jstr(o, "site") ?: "?", NULL, &name),
		       left_out_reason(jstr(o, "reason")));
	}
	strbuf_free(&name);
}

/* Render the exceptions: totals by outcome, each type, the top throw and catch sites. */
static void print_exceptions(json_t *e)
{
	json_t *o, *v;
	const char *key;
	size_t i;

	printf("\n\nExceptions: %" JSON_INTEGER_FORMAT, json_integer_value(json_object_get(e, "total")));
	printf(" (%" JSON_INTEGER_FORMAT " throws of %" JSON_INTEGER_FORMAT " objects)",
	       json_integer_value(json_object_get(e, "throws")), json_integer_value(json_object_get(e, "objects")));
	json_object_foreach(json_object_get(e, "by_outcome"), key, v)
		printf(", %" JSON_INTEGER_FORMAT " %s", json_integer_value(v), key);
	printf("\n");
	json_array_foreach(json_object_get(e, "by_type"), i, o) {
		printf("  %6" JSON_INTEGER_FORMAT "  %s", json_integer_value(json_object_get(o, "count")), jstr(o, "type"));
		print_outcomes(o);
	}
	static const struct {
		const char *field, *title;
	} sites[] = { { "throw_sites", "Top throw sites" }, { "catch_sites", "Top catch sites" } };
	for (size_t k = 0; k < sizeof(sites) / sizeof(sites[0]); k++) {
		json_t *arr = json_object_get(e, sites[k].field);
		struct strbuf name = { 0 }; /* the method as a .NET developer reads it */

		if (!json_array_size(arr))
			continue;
		printf("%s:\n", sites[k].title);
		json_array_foreach(arr, i, o)
			printf("  %6" JSON_INTEGER_FORMAT "  %s\n", json_integer_value(json_object_get(o, "count")),
			       dotnet_display(jstr(o, "function") ?: "?", NULL, &name));
		strbuf_free(&name);
	}
	if (json_array_size(json_object_get(e, "by_site")))
		printf("Throw sites, by type and line:\n");
	json_array_foreach(json_object_get(e, "by_site"), i, o) {
		printf("  %6" JSON_INTEGER_FORMAT "  %s", json_integer_value(json_object_get(o, "count")), jstr(o, "site"));
		print_outcomes(o);
	}
	print_left_out(json_object_get(e, "left_out"));
}

/* Item I of the loads (LOADS) or of the threads as JSON, its strings
 * escaped for the terminal; NULL (and s->oom) on ENOMEM. */
static json_t *item_text(struct stats *s, bool loads, size_t i)
{
	json_t *o = item_json(s, loads, i), *e = o ? esc_json(o) : NULL;

	json_decref(o);
	if (!e)
		s->oom = true;
	return e;
}

/* Render the loads, in order, with when they began and how long they took. */
static void print_loads(struct stats *s)
{
	json_t *o;
	char dur[32];

	printf("\nLoads (%zu, in order; time since start, duration):\n", s->n_loads);
	for (size_t i = 0; i < s->n_loads; json_decref(o), i++) {
		if (!(o = item_text(s, true, i)))
			continue;
		const char *kind = jstr(o, "kind"), *name = jstr(o, "name"), *path = jstr(o, "path");

		printf("  %10.3fms %10s  %-9s %s", ms(o, "at_ns"),
		       json_object_get(o, "dur_ns") ? fmt_dur(dur, sizeof(dur), json_integer_value(json_object_get(o, "dur_ns"))) : "open",
		       kind, strcmp(kind, "module") == 0 && path ? base_name(path) : name ? name : jstr(o, "id") ?: "?");
		if (jstr(o, "hr") && strcmp(jstr(o, "hr"), "0x00000000") != 0)
			printf(" [hr %s]", jstr(o, "hr"));
		printf("\n");
	}
}

/* Render the threads: counts (of O), then one line each. */
static void print_threads(struct stats *s, json_t *o)
{
	json_t *v;

	printf("\nThreads: %" JSON_INTEGER_FORMAT " created, %" JSON_INTEGER_FORMAT " destroyed, %" JSON_INTEGER_FORMAT
	       " named\n", json_integer_value(json_object_get(o, "created")),
	       json_integer_value(json_object_get(o, "destroyed")), json_integer_value(json_object_get(o, "named")));
	for (size_t i = 0; i < s->n_threads; json_decref(v), i++) {
		if (!(v = item_text(s, false, i)))
			continue;
		printf("  %-16s tid %-8" JSON_INTEGER_FORMAT, jstr(v, "id"), json_integer_value(json_object_get(v, "os_tid")));
		if (json_object_get(v, "managed_tid"))
			printf(" managed %-4" JSON_INTEGER_FORMAT, json_integer_value(json_object_get(v, "managed_tid")));
		if (json_object_get(v, "created_ns"))
			printf(" created %.3fms", ms(v, "created_ns"));
		if (json_object_get(v, "destroyed_ns"))
			printf(" destroyed %.3fms", ms(v, "destroyed_ns"));
		if (jstr(v, "name"))
			printf(" \"%s\"", jstr(v, "name"));
		printf("\n");
	}
}

/* Render the runtime suspensions by reason. */
static void print_suspensions(json_t *suspensions)
{
	json_t *o;
	size_t i;

	printf("\nRuntime suspensions:%s\n", json_array_size(suspensions) ? "" : " none");
	json_array_foreach(suspensions, i, o) {
		char tot[32], max[32];

		printf("  %-18s %6" JSON_INTEGER_FORMAT " times, total %s, max %s", jstr(o, "reason"),
		       json_integer_value(json_object_get(o, "count")),
		       fmt_dur(tot, sizeof(tot), json_integer_value(json_object_get(o, "total_ns"))),
		       fmt_dur(max, sizeof(max), json_integer_value(json_object_get(o, "max_ns"))));
		if (json_integer_value(json_object_get(o, "aborted")))
			printf(", %" JSON_INTEGER_FORMAT " aborted", json_integer_value(json_object_get(o, "aborted")));
		printf("\n");
	}
}

/* Render the losses: dropped records by sink, then the tracer's errors. */
static void print_losses(json_t *j)
{
	json_t *o = json_object_get(j, "dropped"), *v;
	size_t i;

	printf("\nDropped records: %" JSON_INTEGER_FORMAT "\n", json_integer_value(json_object_get(o, "records")));
	json_array_foreach(json_object_get(o, "by_sink"), i, v)
		printf("  %6" JSON_INTEGER_FORMAT "  %s %s: %s\n", json_integer_value(json_object_get(v, "count")),
		       jstr(v, "sink"), jstr(v, "where"), jstr(v, "reason"));
	if ((o = json_object_get(j, "retention")))
		printf("Retention: %" JSON_INTEGER_FORMAT " rotated file%s removed by the keep limit (records through seq %"
		       JSON_INTEGER_FORMAT "): not loss\n",
		       json_integer_value(json_object_get(o, "files_removed")),
		       json_integer_value(json_object_get(o, "files_removed")) == 1 ? "" : "s",
		       json_integer_value(json_object_get(o, "removed_through")));
	printf("Tracer errors: %zu\n", json_array_size(json_object_get(j, "errors")));
	json_array_foreach(json_object_get(j, "errors"), i, v)
		printf("  %6" JSON_INTEGER_FORMAT "  %s\n", json_integer_value(json_object_get(v, "count")), jstr(v, "message"));
}

/* Render the summary (J, escaped, and the lists of S) as text. */
static void print_text(struct stats *s, json_t *j)
{
	char dur[32];

	printf("Trace: %" JSON_INTEGER_FORMAT " records over %s", json_integer_value(json_object_get(j, "records")),
	       fmt_dur(dur, sizeof(dur), json_integer_value(json_object_get(j, "duration_ns"))));
	if (json_integer_value(json_object_get(j, "bad_lines")))
		printf(", %" JSON_INTEGER_FORMAT " unreadable lines", json_integer_value(json_object_get(j, "bad_lines")));
	print_errors(json_object_get(json_object_get(j, "exceptions"), "errors"),
		     json_object_get(json_object_get(j, "exceptions"), "left_out"));
	print_exceptions(json_object_get(j, "exceptions"));
	print_loads(s);
	print_threads(s, json_object_get(j, "threads"));
	print_suspensions(json_object_get(j, "suspensions"));
	print_losses(j);
}

static const char stats_help[] =
	"Usage: clrtrace stats [OPTIONS] TRACE...\n"
	"       clrtrace stats [OPTIONS] --journal|--journal-dir DIR [FIELD=VALUE...]\n\n"
	"Sum a trace up: exceptions by type and outcome, throw and catch sites,\n"
	"loads in order, threads, runtime suspensions, drops and tracer errors.\n\n"
	TRACE_HELP "\n"
	"  -j, --json      print the summary as one JSON object\n"
	"  -n, --top N     throw and catch sites to list (default 10, 0: all)\n"
	"  -h, --help      this text\n" JOURNAL_HELP;

/* Parse stats' options into *AS_JSON, *TOP and JO.  Returns 1 to go on, 0 after --help,
 * EXIT_USAGE negated on a bad argument. */
static int parse_stats_args(int argc, char **argv, bool *as_json, size_t *top, struct journal_opts *jo)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "top", required_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		JOURNAL_LONG_OPTIONS,
		{ 0 },
	};
	int opt;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":jn:hu:", opts, NULL)) != -1) {
		uint64_t n;

		switch (opt) {
		case 'j':
			*as_json = true;
			break;
		case 'n':
			if (args_uint("stats", "--top", optarg, 1000000, &n) < 0)
				return -EXIT_USAGE;
			*top = (size_t)n;
			break;
		case 'h':
			fputs(stats_help, stdout);
			return 0;
		default:
			if (journal_opt(jo, opt, optarg))
				break;
			args_getopt_error("stats", opt, argv);
			return -EXIT_USAGE;
		}
	}
	if (!jo->journal && args_files("stats", argc, argv, optind) < 0)
		return -EXIT_USAGE;
	return 1;
}

/* Start the tallies empty. */
static void stats_init(struct stats *s)
{
	s->events = json_object();
	s->types = json_object();
	s->outcomes = json_object();
	s->throw_sites = json_object();
	s->by_site = json_object();
	s->catch_sites = json_object();
	s->pool = strpool_new();
	s->suspends = json_object();
	s->drops = json_object();
	s->lefts = json_object();
	s->errors = json_object();
	s->err_types = json_object();
	s->err_fates = json_object();
	s->err_matrix = json_object();
	s->err_requests = json_object();
	s->err_durs = json_array();
}

/* Free the tallies. */
static void stats_done(struct stats *s)
{
	json_decref(s->events);
	json_decref(s->types);
	json_decref(s->outcomes);
	json_decref(s->throw_sites);
	json_decref(s->by_site);
	sites_free(s->sites);
	json_decref(s->catch_sites);
	free(s->loads);
	free(s->threads);
	u64map_done(&s->thread_ids, NULL);
	strpool_done(s->pool);
	strbuf_free(&s->sb);
	json_decref(s->suspends);
	json_decref(s->drops);
	json_decref(s->lefts);
	json_decref(s->errors);
	u64map_done(&s->load_spans, NULL);
	u64map_done(&s->suspend_spans, free);
	u64map_done(&s->in_flight, free);
	json_decref(s->err_types);
	json_decref(s->err_fates);
	json_decref(s->err_matrix);
	json_decref(s->err_requests);
	json_decref(s->err_durs);
	u64map_done(&s->err_lines, free);
}

/* json_dump_callback's sink: stdout, every newline followed by the
 * indentation of the depth (*DATA) the value is nested at.  Every newline
 * jansson writes is one of its indentation's (strings escape theirs). */
static int put_nested(const char *buf, size_t n, void *data)
{
	int depth = *(const int *)data;
	const char *nl;

	while (n && (nl = memchr(buf, '\n', n))) {
		fwrite(buf, 1, (size_t)(nl + 1 - buf), stdout);
		printf("%*s", 2 * depth, "");
		n -= (size_t)(nl + 1 - buf);
		buf = nl + 1;
	}
	fwrite(buf, 1, n, stdout);
	return 0;
}

/* Write V, DEPTH deep, byte for byte as json_dumpf(JSON_INDENT(2)) of the
 * whole summary would; the placeholders of the lists (stats_json) become
 * their items, each made, written and freed in turn. */
static void dump_json(struct stats *s, json_t *v, int depth)
{
	const char *key;
	json_t *c;
	size_t i = 0, n;

	if (v && (v == s->loads_ph || v == s->list_ph)) {
		bool loads = v == s->loads_ph;

		n = loads ? s->n_loads : s->n_threads;
		fputs(n ? "[" : "[]", stdout);
		for (i = 0; i < n; i++) {
			json_t *o = item_json(s, loads, i);

			printf("\n%*s", 2 * (depth + 1), "");
			dump_json(s, o ? o : (s->oom = true, c = json_object()), depth + 1);
			json_decref(o ? o : c);
			fputs(i + 1 < n ? "," : "", stdout);
		}
		if (n)
			printf("\n%*s]", 2 * depth, "");
	} else if (v && (v == s->out || v == s->threads_o)) {
		/* the objects that hold the placeholders; their keys are ours,
		 * plain ASCII, nothing to escape */
		n = json_object_size(v);
		fputs(n ? "{" : "{}", stdout);
		json_object_foreach(v, key, c) {
			printf("\n%*s\"%s\": ", 2 * (depth + 1), "", key);
			dump_json(s, c, depth + 1);
			fputs(++i < n ? "," : "", stdout);
		}
		if (n)
			printf("\n%*s}", 2 * depth, "");
	} else if (v)
		json_dump_callback(v, put_nested, &depth, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_ENCODE_ANY);
}

/* Print the summary OUT as JSON or, record text escaped for the terminal,
 * as text.  The escaped copy is of the summary without its lists: a
 * copy of every thread and load doubled the memory they take. */
static void stats_print(struct stats *s, json_t *out, bool as_json)
{
	if (as_json) {
		dump_json(s, out, 0);
		putchar('\n');
	} else if (out) {
		json_t *safe = esc_json(out);

		if (safe)
			print_text(s, safe);
		else
			s->oom = true;
		json_decref(safe);
	}
	if (s->oom)
		cli_error("stats: out of memory");
}

int cmd_stats(int argc, char **argv)
{
	struct stats s = { .t0 = -1, .t_last = -1 };
	struct journal_opts jo = { 0 };
	struct rd *rd = NULL;
	bool as_json = false;
	size_t top = 10;
	int r, status = EXIT_USAGE;
	struct rec rec;
	json_t *out = NULL;

	r = parse_stats_args(argc, argv, &as_json, &top, &jo);
	if (r <= 0)
		return -r;
	stats_init(&s);
	if (jo.journal)
		r = journal_open(&rd, &jo, argv + optind, argc - optind, false, "stats");
	else
		r = rd_open(&rd, "stats", argv + optind, (size_t)(argc - optind), false);
	if (r < 0) {
		status = jo.journal && r == -EINVAL ? EXIT_USAGE : 1;
		goto out;
	}
	s.rd = rd;
	while ((r = rd_record(rd, &rec)) > 0) {
		stats_add(&s, &rec);
		rec_done(&rec);
	}
	if (r < 0)
		cli_error("stats: %s: %s", rd_name(rd), rd_strerror(rd, r));
	rd_warn_summary(rd);
	out = stats_json(&s, rd_bad(rd), top);
	stats_print(&s, out, as_json);
	status = r < 0 || rd_bad(rd) || s.oom ? 1 : 0;
out:
	rd_free(rd);
	json_decref(out);
	stats_done(&s);
	return status;
}
