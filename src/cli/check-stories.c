/* SPDX-License-Identifier: MIT */
/*
 * clrtrace check: lies an exception story can be seen to tell, from the
 * records before it.  A nested_in that points at a story already ended (or
 * on another thread); a summary whose outcome contradicts the story's own
 * records (caught after exception.unhandled, unhandled after its catch
 * ran, caught in another function than its catch block, swallowed but not
 * nested, superseded by nothing, filter results that disagree with the
 * filter records, a second summary); and an exception.unhandled in a
 * process that then ran on: a later throw on that thread outside the dying
 * exception, or a normal runtime.shutdown, while nothing later says the
 * exception survived.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/check-stories.h"

struct story {
	int64_t tid;
	uint64_t thrown_line, summary_line, unhandled_line, catch_line;
	char *catch_fn;         /* function of its last catch block */
	json_t *filter_results; /* results of its exception.filter end records */
	char outcome[16];       /* once its summary is read */
	bool ran_on_said;
};

/* Ended stories remembered per process: later ones push the oldest out
 * (a nested_in to a forgotten story is then not checked, never misjudged). */
#define ENDED_KEPT 65536

struct sproc {
	struct u64map stories; /* exception id -> struct story */
	uint64_t *unhandled;   /* ids reported unhandled */
	size_t n_unhandled;
	uint64_t *ended;       /* ring of ended ids, ENDED_KEPT long */
	size_t n_ended;        /* ever pushed */
};

struct stories {
	struct u64map procs; /* pid -> struct sproc */
	stories_problem_fn problem;
	void *ud;
};

__attribute__((format(printf, 3, 4))) static void say(struct stories *s, uint64_t line, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	s->problem(s->ud, line, buf);
}

static void story_free(void *p)
{
	struct story *st = p;

	if (st) {
		free(st->catch_fn);
		json_decref(st->filter_results);
	}
	free(st);
}

static void sproc_free(void *p)
{
	struct sproc *pr = p;

	if (pr) {
		u64map_done(&pr->stories, story_free);
		free(pr->unhandled);
		free(pr->ended);
	}
	free(pr);
}

struct stories *stories_new(stories_problem_fn problem, void *ud)
{
	struct stories *s = calloc(1, sizeof(*s));

	if (s) {
		s->problem = problem;
		s->ud = ud;
	}
	return s;
}

void stories_free(struct stories *s)
{
	if (s)
		u64map_done(&s->procs, sproc_free);
	free(s);
}

/* Get-or-create the value of KEY in M (SIZE bytes, zeroed). */
static void *obtain(struct u64map *m, uint64_t key, size_t size)
{
	void **slot = u64map_slot(m, key);

	if (slot && !*slot)
		*slot = calloc(1, size);
	return slot ? *slot : NULL;
}

/* Is U's "unhandled" still the last word of its story? */
static bool still_unhandled(const struct story *u)
{
	return u->unhandled_line && (!u->summary_line || strcmp(u->outcome, "unhandled") == 0);
}

/* The process ran on (what: how we know) after its exceptions reported
 * unhandled: on thread TID only, or anywhere when TID < 0. */
static void ran_on(struct stories *s, struct sproc *p, const struct rec *r, int64_t tid, const char *what)
{
	for (size_t i = 0; i < p->n_unhandled; i++) {
		struct story *u = u64map_get(&p->stories, p->unhandled[i]);

		if (!u || u->ran_on_said || !still_unhandled(u) || (tid >= 0 && u->tid != tid))
			continue;
		u->ran_on_said = true;
		say(s, r->line,
		    "seq %" PRId64 " %s: stories: %s after exception #%" PRIu64 " was reported unhandled (line %" PRIu64
		    "): the process ran on, and nothing says the exception survived",
		    r->seq, r->event, what, p->unhandled[i], u->unhandled_line);
	}
}

static void on_throw(struct stories *s, struct sproc *p, const struct rec *r, int64_t id)
{
	json_t *nested = json_object_get(r->j, "nested_in");
	int64_t parent = jint(nested, "id");
	const char *ctx = jstr(nested, "context");
	struct story *st = obtain(&p->stories, (uint64_t)id, sizeof(*st)), *ps;

	if (!st)
		return;
	st->tid = r->tid;
	st->thrown_line = r->line;
	if (parent <= 0) {
		char what[64];

		/* a throw outside every live exception of its thread: the
		 * thread is no longer dying */
		snprintf(what, sizeof(what), "exception #%" PRId64 " thrown on the same thread", id);
		ran_on(s, p, r, r->tid, what);
		return;
	}
	ps = u64map_get(&p->stories, (uint64_t)parent);
	if (!ps)
		return; /* its throw is not in the trace (lost, or filtered out) */
	if (ps->tid != r->tid)
		say(s, r->line, "seq %" PRId64 " %s: stories: exception #%" PRId64 " nested_in #%" PRId64
			", a story of thread %" PRId64 ", not of its own thread %" PRId64, r->seq, r->event, id, parent,
		    ps->tid, r->tid);
	else if (ps->summary_line && strcmp(ps->outcome, "unhandled") != 0)
		say(s, r->line, "seq %" PRId64 " %s: stories: exception #%" PRId64 " nested_in #%" PRId64
			", whose story already ended (%s, line %" PRIu64 ")", r->seq, r->event, id, parent, ps->outcome,
		    ps->summary_line);
	else if (ps->summary_line && ctx && strcmp(ctx, "finally") != 0 && strcmp(ctx, "search") != 0)
		/* an unhandled exception's story is told at its verdict; after
		 * it only its finally blocks run (and, on .NET 8, the
		 * UnhandledException handlers, during its search) */
		say(s, r->line, "seq %" PRId64 " %s: stories: exception #%" PRId64 " nested_in #%" PRId64
			" (%s) after that story ended unhandled (line %" PRIu64 "): the thread ran on",
		    r->seq, r->event, id, parent, ctx, ps->summary_line);
}

/* The summary's filters against the exception.filter records before it. */
static void check_filters(struct stories *s, const struct rec *r, int64_t id, const struct story *st)
{
	json_t *list = json_object_get(r->j, "filters"), *f;
	size_t i;

	/* no filter records: nothing to compare; a summary without filters
	 * lists none (the default, []) */
	if (!st->filter_results || (list && !json_is_array(list)))
		return;
	if (json_array_size(list) != json_array_size(st->filter_results)) {
		say(s, r->line, "seq %" PRId64 " %s: stories: exception #%" PRId64 " lists %zu filters, its records show %zu",
		    r->seq, r->event, id, json_array_size(list), json_array_size(st->filter_results));
		return;
	}
	json_array_foreach(list, i, f) {
		const char *got = jstr(f, "result"), *span = json_string_value(json_array_get(st->filter_results, i));

		/* "unknown" at the filter's end may be decided by the catch */
		if (got && span && strcmp(got, span) != 0 && strcmp(span, "unknown") != 0)
			say(s, r->line, "seq %" PRId64 " %s: stories: exception #%" PRId64 " filter %zu: %s, its record said %s",
			    r->seq, r->event, id, i + 1, got, span);
	}
}

/* Remember that ID ended; forget the oldest ended story beyond ENDED_KEPT
 * (unless it was reported unhandled: the run-on check needs those). */
static void forget_oldest(struct sproc *p, uint64_t id)
{
	size_t at = p->n_ended % ENDED_KEPT;

	if (!p->ended && !(p->ended = calloc(ENDED_KEPT, sizeof(*p->ended))))
		return;
	if (p->n_ended >= ENDED_KEPT) {
		struct story *old = u64map_get(&p->stories, p->ended[at]);

		if (old && !old->unhandled_line)
			story_free(u64map_del(&p->stories, p->ended[at]));
	}
	p->ended[at] = id;
	p->n_ended++;
}

static void on_summary(struct stories *s, struct sproc *p, const struct rec *r, int64_t id)
{
	struct story *st = obtain(&p->stories, (uint64_t)id, sizeof(*st));
	const char *o = jstr(r->j, "outcome"), *caught_in = jstr(r->j, "caught_in");

	if (!st || !o)
		return; /* the schema check says what is wrong */
	if (st->summary_line) {
		say(s, r->line, "seq %" PRId64 " %s: stories: exception #%" PRId64 " ended twice (first at line %" PRIu64 ")",
		    r->seq, r->event, id, st->summary_line);
		return;
	}
	if (!st->thrown_line)
		st->tid = r->tid;
	st->summary_line = r->line;
	snprintf(st->outcome, sizeof(st->outcome), "%s", o);
	if (strcmp(o, "caught") == 0 && st->unhandled_line)
		say(s, r->line, "seq %" PRId64 " %s: stories: exception #%" PRId64 " caught, but reported unhandled at line %" PRIu64,
		    r->seq, r->event, id, st->unhandled_line);
	if (strcmp(o, "unhandled") == 0 && st->catch_line)
		say(s, r->line, "seq %" PRId64 " %s: stories: exception #%" PRId64 " unhandled, but its catch block ran (line %" PRIu64 ")",
		    r->seq, r->event, id, st->catch_line);
	if (strcmp(o, "caught") == 0 && st->catch_fn && caught_in && strcmp(st->catch_fn, caught_in) != 0)
		say(s, r->line, "seq %" PRId64 " %s: stories: exception #%" PRId64 " caught in %s, but its catch block ran in %s (line %" PRIu64 ")",
		    r->seq, r->event, id, caught_in, st->catch_fn, st->catch_line);
	if (strcmp(o, "swallowed") == 0 && !json_is_object(json_object_get(r->j, "nested_in")))
		say(s, r->line, "seq %" PRId64 " %s: stories: exception #%" PRId64 " swallowed (escaped a filter), but nested in nothing",
		    r->seq, r->event, id);
	if (strcmp(o, "superseded") == 0 && jint(r->j, "superseded_by") <= 0)
		say(s, r->line, "seq %" PRId64 " %s: stories: exception #%" PRId64 " superseded, but by nothing (superseded_by)",
		    r->seq, r->event, id);
	check_filters(s, r, id, st);
	free(st->catch_fn);
	st->catch_fn = NULL;
	json_decref(st->filter_results);
	st->filter_results = NULL;
	forget_oldest(p, (uint64_t)id);
}

/* Follow one record (see check-stories.h). */
void stories_feed(struct stories *s, const struct rec *r, uint64_t proc)
{
	struct sproc *p;
	struct story *st;
	int64_t id;

	if (!s || r->pid < 0 || r->v > 1)
		return;
	if (r->ev == EV_RUNTIME_SHUTDOWN) {
		p = u64map_get(&s->procs, proc);
		if (p)
			ran_on(s, p, r, -1, "the runtime shut down normally");
		return;
	}
	id = rec_exception_id(r);
	if (id <= 0)
		return;
	p = obtain(&s->procs, proc, sizeof(*p));
	if (!p)
		return;
	switch (r->ev) {
	case EV_EXCEPTION_THROW:
		on_throw(s, p, r, id);
		return;
	case EV_EXCEPTION_SUMMARY:
		on_summary(s, p, r, id);
		return;
	default:
		break;
	}
	st = obtain(&p->stories, (uint64_t)id, sizeof(*st));
	if (!st)
		return;
	if (r->ev == EV_EXCEPTION_CATCH && r->ph == PH_BEGIN) {
		st->catch_line = r->line;
		free(st->catch_fn);
		st->catch_fn = jstr(r->j, "function") ? strdup(jstr(r->j, "function")) : NULL;
	} else if (r->ev == EV_EXCEPTION_FILTER && r->ph == PH_END && !st->summary_line) {
		if (!st->filter_results)
			st->filter_results = json_array();
		if (st->filter_results)
			json_array_append_new(st->filter_results, json_string(jstr(r->j, "result") ?: "?"));
	} else if (r->ev == EV_EXCEPTION_UNHANDLED && !st->unhandled_line) {
		uint64_t *v = realloc(p->unhandled, (p->n_unhandled + 1) * sizeof(*v));

		st->unhandled_line = r->line;
		if (!st->thrown_line)
			st->tid = r->tid;
		if (v) {
			p->unhandled = v;
			p->unhandled[p->n_unhandled++] = (uint64_t)id;
		}
	}
}
