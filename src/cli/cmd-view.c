/* SPDX-License-Identifier: MIT */
/*
 * clrtrace view: the trace as a per-thread tree.  Streaming: records are
 * printed in file order, each indented by its depth on its own thread and
 * tagged with the thread; a header line marks every switch of thread, so
 * runs of one thread read as a block.  A begin whose end is the thread's
 * very next (shown) record is printed as one line with its duration, so a
 * begin is held back until the thread's next record (one record per thread
 * at most).  Exception filters (--exception, --outcome) hold one thread's
 * exception story until its summary decides it (bounded, see STORY_MAX).
 */
#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/args.h"
#include "cli/cli.h"
#include "cli/describe.h"
#include "cli/journal-source.h"
#include "cli/escape.h"
#include "cli/reader.h"
#include "common/util.h"

#define STORY_MAX 10000

/* Escape codes of the vocabulary's colours; COLOR_NONE's is the reset. */
static const char *const colors[_COLOR_MAX] = {
	[COLOR_NONE] = "\033[0m", [COLOR_DIM] = "\033[2m", [COLOR_RED] = "\033[31m",
	[COLOR_BRIGHT_RED] = "\033[1;41;37m", [COLOR_GREEN] = "\033[32m", [COLOR_YELLOW] = "\033[33m",
	[COLOR_CYAN] = "\033[36m", [COLOR_BOLD] = "\033[1m", [COLOR_MAGENTA] = "\033[35m",
};

struct story {
	struct rec *recs;
	size_t n, cap;
	int64_t *open; /* exception ids still in flight */
	size_t n_open;
	bool matched;
};

struct vthread {
	bool has_pending;
	struct rec pending; /* a begin waiting for its thread's next record */
	struct story story;
	char *name;
};

struct viewer {
	/* filters */
	char **events;
	size_t n_events;
	int64_t *tids;
	size_t n_tids;
	const char *exception_glob;
	bool type_matched; /* an exception of the trace had a type -x matches */
	char **outcomes;
	size_t n_outcomes;
	double since, until; /* seconds from the first record; <0: none */
	bool color;
	bool raw; /* record text as it is, control characters and all */
	/* state */
	int64_t t0;
	uint64_t last_thread;
	bool any_printed;
	struct u64map threads; /* pid<<32|tid -> struct vthread */
	struct u64map names;   /* managed ThreadID -> name (malloc'd) */
	struct strbuf line;
};

/* Split a comma list into a malloc'd array of strdup'd items. */
static int split_list(const char *s, char ***ret, size_t *n)
{
	char *dup = strdup(s), *save = NULL;

	if (!dup)
		return -ENOMEM;
	for (char *t = strtok_r(dup, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		char **v = realloc(*ret, (*n + 1) * sizeof(*v));

		if (!v || !(v[*n] = strdup(t))) {
			if (v)
				*ret = v;
			free(dup);
			return -ENOMEM;
		}
		*ret = v;
		(*n)++;
	}
	free(dup);
	return 0;
}

/* Does R's event or category match one of the -e items? */
static bool event_selected(const struct viewer *v, const struct rec *r)
{
	if (!v->n_events)
		return true;
	for (size_t i = 0; i < v->n_events; i++) {
		if (fnmatch(v->events[i], r->event, 0) == 0)
			return true;
		if (r->cat >= 0 && strcmp(v->events[i], ct_categories[r->cat].name) == 0)
			return true;
	}
	return false;
}

/* The filters that look at one record alone. */
static bool record_selected(const struct viewer *v, const struct rec *r)
{
	double t = r->ts >= 0 && v->t0 >= 0 ? (double)(r->ts - v->t0) / 1e9 : 0;
	bool tid_ok = !v->n_tids;

	for (size_t i = 0; i < v->n_tids; i++)
		tid_ok = tid_ok || v->tids[i] == r->tid;
	if (!tid_ok || (v->since >= 0 && t < v->since) || (v->until >= 0 && t > v->until))
		return false;
	if ((v->exception_glob || v->n_outcomes) && r->cat != CAT_EXCEPTIONS && r->cat != CAT_FRAMES)
		return false;
	return event_selected(v, r);
}

/* The thread's name, if it has been named. */
static const char *thread_name(const struct viewer *v, const struct rec *r)
{
	uint64_t id = r->thread ? strtoull(r->thread, NULL, 16) : 0;

	return id ? u64map_get(&v->names, id) : NULL;
}

/* Print record text: escaped, unless --raw. */
static void v_puts(const struct viewer *v, const char *s)
{
	if (v->raw)
		fputs(s ? s : "", stdout);
	else
		esc_fputs(s, stdout);
}

/* Print one line for R (MERGED: its begin, printed as one span). */
static void print_line(struct viewer *v, const struct rec *r, const struct rec *end)
{
	uint64_t key = thread_key(r);
	const struct rec *last = end ? end : r;
	enum ct_color color = r->ev >= 0 && r->ev < _EV_MAX ? ct_events[r->ev].color : COLOR_NONE;
	const char *marker = end ? "- " : r->ph == PH_BEGIN ? "> " : r->ph == PH_END ? "< " : "* ";
	char dur[32];

	if (!v->any_printed || key != v->last_thread) {
		const char *name = thread_name(v, r);

		printf("%s--- pid %" PRId64 " tid %" PRId64 "%s", v->color ? colors[COLOR_DIM] : "", r->pid, r->tid,
		       name ? " \"" : "");
		v_puts(v, name);
		printf("%s ---%s\n", name ? "\"" : "", v->color ? colors[COLOR_NONE] : "");
		v->last_thread = key;
		v->any_printed = true;
	}
	strbuf_reset(&v->line);
	describe(&v->line, end && end->ev == r->ev && r->ev != EV_EXCEPTION_FILTER ? end : r);
	if (end && end->ev == EV_EXCEPTION_FILTER && jstr(end->j, "result"))
		strbuf_printf(&v->line, " -> %s", jstr(end->j, "result"));
	printf("%12.6f %7" PRId64 " %*s%s%s", r->ts >= 0 && v->t0 >= 0 ? (double)(r->ts - v->t0) / 1e9 : 0.0,
	       r->tid, (int)(2 * (r->depth > 0 && r->depth < 200 ? r->depth : 0)), "", marker,
	       v->color && color ? colors[color] : "");
	v_puts(v, r->event);
	fputs(v->line.len ? " " : "", stdout);
	v_puts(v, v->line.s);
	if (last->dur_ns >= 0)
		printf(" (%s)", fmt_dur(dur, sizeof(dur), last->dur_ns));
	if (r->v > 1)
		printf(" [schema v%" PRId64 "]", r->v);
	printf("%s\n", v->color && color ? colors[COLOR_NONE] : "");
}

/* Get-or-create a thread's view state. */
static struct vthread *vthread_get(struct viewer *v, const struct rec *r)
{
	void **slot = u64map_slot(&v->threads, thread_key(r));

	if (slot && !*slot)
		*slot = calloc(1, sizeof(struct vthread));
	return slot ? *slot : NULL;
}

/* Print a held-back begin as it is. */
static void flush_pending(struct viewer *v, struct vthread *t)
{
	if (!t || !t->has_pending)
		return;
	print_line(v, &t->pending, NULL);
	rec_done(&t->pending);
	t->has_pending = false;
}

/* Show one selected record (steals R's JSON). */
static void show(struct viewer *v, struct rec *r)
{
	struct vthread *t = vthread_get(v, r);

	if (t && t->has_pending) {
		if (r->ph == PH_END && r->span == t->pending.span && r->span >= 0) {
			print_line(v, &t->pending, r);
			rec_done(&t->pending);
			t->has_pending = false;
			rec_done(r);
			return;
		}
		flush_pending(v, t);
	}
	if (t && r->ph == PH_BEGIN) {
		t->pending = *r;
		t->has_pending = true;
		return;
	}
	print_line(v, r, NULL);
	rec_done(r);
}

/* Flush every held-back begin (end of input, or the writer is idle). */
static void flush_all(void *ud)
{
	struct viewer *v = ud;

	u64map_foreach(&v->threads, i)
		flush_pending(v, v->threads.vals[i]);
	fflush(stdout);
}

/* Does an exception (type, outcome) pass --exception and --outcome? */
static bool exception_matches(struct viewer *v, const char *type, const char *outcome)
{
	bool ok = !v->n_outcomes;

	if (v->exception_glob && (!type || !args_type_match(v->exception_glob, type)))
		return false;
	v->type_matched = true;
	for (size_t i = 0; i < v->n_outcomes; i++)
		ok = ok || (outcome && strcmp(v->outcomes[i], outcome) == 0);
	return ok;
}

/* Release (show or drop) a thread's buffered exception story. */
static void story_release(struct viewer *v, struct story *s, bool show_it)
{
	for (size_t i = 0; i < s->n; i++) {
		if (show_it)
			show(v, &s->recs[i]);
		else
			rec_done(&s->recs[i]);
	}
	s->n = 0;
	s->n_open = 0;
	s->matched = false;
}

/* Exception filters: buffer a thread's story until its summaries decide. */
static void story_add(struct viewer *v, struct rec *r)
{
	struct vthread *t = vthread_get(v, r);
	struct story *s = t ? &t->story : NULL;
	int64_t id = jint2(r->j, "exception", "id");

	if (!s) {
		rec_done(r);
		return;
	}
	if (r->ev == EV_EXCEPTION_THROW) {
		int64_t *o = realloc(s->open, (s->n_open + 1) * sizeof(*o));

		if (o) {
			s->open = o;
			s->open[s->n_open++] = id;
		}
	} else if (!s->n_open) {
		rec_done(r); /* a story that began before what we were shown */
		return;
	}
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64;
		struct rec *n = realloc(s->recs, cap * sizeof(*n));

		if (!n) {
			rec_done(r);
			return;
		}
		s->recs = n;
		s->cap = cap;
	}
	s->recs[s->n++] = *r;
	if (r->ev == EV_EXCEPTION_SUMMARY) {
		s->matched = s->matched || exception_matches(v, jstr2(r->j, "exception", "type"), jstr(r->j, "outcome"));
		for (size_t i = 0; i < s->n_open; i++)
			if (s->open[i] == id) {
				s->open[i] = s->open[--s->n_open];
				break;
			}
		if (!s->n_open)
			story_release(v, s, s->matched);
	} else if (s->n >= STORY_MAX) {
		story_release(v, s, true);
	}
}

/* At the end: stories without a summary (the process died): outcome unknown. */
static void stories_finish(struct viewer *v)
{
	u64map_foreach(&v->threads, i) {
		struct vthread *t = v->threads.vals[i];
		bool match = false;

		for (size_t k = 0; k < t->story.n; k++)
			if (t->story.recs[k].ev == EV_EXCEPTION_THROW)
				match = match || exception_matches(v, jstr2(t->story.recs[k].j, "exception", "type"), "unknown");
		story_release(v, &t->story, match);
	}
}

/* Learn thread names as they go by. */
static void learn(struct viewer *v, const struct rec *r)
{
	const char *id = jstr2(r->j, "target", "id"), *name = jstr2(r->j, "target", "name");
	void **slot;

	if (v->t0 < 0 && r->ts >= 0)
		v->t0 = r->ts;
	if (r->ev != EV_THREAD_NAME || !id || !name)
		return;
	slot = u64map_slot(&v->names, strtoull(id, NULL, 16));
	if (slot) {
		free(*slot);
		*slot = strdup(name);
	}
}

/* Free a thread's view state. */
static void vthread_free(void *p)
{
	struct vthread *t = p;

	if (!t)
		return;
	rec_done(&t->pending);
	story_release(NULL, &t->story, false);
	free(t->story.recs);
	free(t->story.open);
	free(t);
}

static const char view_help[] =
	"Usage: clrtrace view [OPTIONS] FILE|-\n"
	"       clrtrace view [OPTIONS] --journal|--journal-dir DIR [FIELD=VALUE...]\n\n"
	"Show a trace as a per-thread tree, indented by span nesting.\n\n"
	"  -e, --events LIST       only these events or categories (comma list; globs: exception.*)\n"
	"  -t, --tid LIST          only these OS thread ids\n"
	"  -x, --exception GLOB    only exception stories whose type matches (System.IO.*)\n"
	"  -o, --outcome LIST      only exception stories with these outcomes\n"
	"                          (caught,unhandled,swallowed,superseded,rethrown,unknown)\n"
	"  -S, --since SECONDS     skip records earlier than SECONDS after the first\n"
	"  -U, --until SECONDS     skip records later than SECONDS after the first\n"
	"  -f, --follow            keep reading as the file grows (like tail -f)\n"
	"      --raw               record text as it is (default: control characters and\n"
	"                          invalid UTF-8 escaped as \\n, \\e, \\x9b)\n"
	"      --color=WHEN        auto (default: on a terminal, unless NO_COLOR is set), always, never\n"
	"  -h, --help              this text\n" JOURNAL_HELP;

int cmd_view(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "events", required_argument, NULL, 'e' },
		{ "tid", required_argument, NULL, 't' },
		{ "exception", required_argument, NULL, 'x' },
		{ "outcome", required_argument, NULL, 'o' },
		{ "since", required_argument, NULL, 'S' },
		{ "until", required_argument, NULL, 'U' },
		{ "follow", no_argument, NULL, 'f' },
		{ "color", required_argument, NULL, 'C' },
		{ "colour", required_argument, NULL, 'C' },
		{ "raw", no_argument, NULL, 'R' },
		{ "help", no_argument, NULL, 'h' },
		JOURNAL_LONG_OPTIONS,
		{ 0 },
	};
	struct viewer v = { .since = -1, .until = -1, .t0 = -1 };
	struct journal_opts jo = { 0 };
	const char *color = NULL;
	struct rd *rd = NULL;
	char **tids = NULL;
	size_t n_tids = 0;
	bool follow = false;
	int opt, r, status = EXIT_USAGE;
	struct rec rec;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":e:t:x:o:S:U:fhu:", opts, NULL)) != -1) {
		switch (opt) {
		case 'e':
			if (args_events("view", "--events", optarg) < 0 || split_list(optarg, &v.events, &v.n_events) < 0)
				goto out;
			break;
		case 't':
			if (args_numbers("view", "--tid", optarg) < 0 || split_list(optarg, &tids, &n_tids) < 0)
				goto out;
			break;
		case 'x':
			if (args_glob("view", "--exception", optarg) < 0)
				goto out;
			v.exception_glob = optarg;
			break;
		case 'o':
			if (args_words("view", "--outcome", optarg, ct_outcome_table) < 0 ||
			    split_list(optarg, &v.outcomes, &v.n_outcomes) < 0)
				goto out;
			break;
		case 'S':
		case 'U':
			if (args_seconds("view", opt == 'S' ? "--since" : "--until", optarg,
					 opt == 'S' ? &v.since : &v.until) < 0)
				goto out;
			break;
		case 'f':
			follow = true;
			break;
		case 'C':
			color = optarg;
			break;
		case 'R':
			v.raw = true;
			break;
		case 'h':
			fputs(view_help, stdout);
			status = 0;
			goto out;
		default:
			if (journal_opt(&jo, opt, optarg))
				break;
			args_getopt_error("view", opt, argv);
			goto out;
		}
	}
	if (!jo.journal && args_one_file("view", argc, argv, optind) < 0)
		goto out;
	if (color_choice(color, STDOUT_FILENO, &v.color) < 0) {
		cli_error("view: --color wants auto, always or never, not '%s'", color);
		goto out;
	}
	v.tids = calloc(n_tids + 1, sizeof(*v.tids));
	for (size_t i = 0; v.tids && i < n_tids; i++) {
		char *end = NULL;

		v.tids[v.n_tids++] = strtoll(tids[i], &end, 10);
		if (!end || *end) {
			cli_error("view: --tid wants thread ids, not '%s'", tids[i]);
			goto out;
		}
	}
	if (jo.journal)
		r = journal_open(&rd, &jo, argv + optind, argc - optind, follow, "view");
	else if ((r = rd_open(&rd, argv[optind], follow)) < 0)
		cli_error("view: %s: %s", argv[optind], strerror(-r));
	if (r < 0) {
		status = jo.journal && r == -EINVAL ? EXIT_USAGE : 1;
		goto out;
	}
	rd_set_idle(rd, flush_all, &v);
	while ((r = rd_record(rd, &rec)) > 0) {
		learn(&v, &rec);
		if (!record_selected(&v, &rec))
			rec_done(&rec);
		else if (v.exception_glob || v.n_outcomes)
			story_add(&v, &rec);
		else
			show(&v, &rec);
	}
	if (r < 0)
		cli_error("view: %s: %s", rd_name(rd), strerror(-r));
	stories_finish(&v);
	flush_all(&v);
	rd_warn_summary(rd);
	if (v.exception_glob && !v.type_matched) {
		_cleanup_free_ char *q = esc_strdup(v.exception_glob);

		cli_error("view: --exception '%s' matches no exception type in %s", q ? q : "?", rd_name(rd));
	}
	status = r < 0 || rd_bad(rd) ? 1 : 0;
out:
	rd_free(rd);
	for (size_t i = 0; i < n_tids; i++)
		free(tids[i]);
	free(tids);
	for (size_t i = 0; i < v.n_events; i++)
		free(v.events[i]);
	free(v.events);
	for (size_t i = 0; i < v.n_outcomes; i++)
		free(v.outcomes[i]);
	free(v.outcomes);
	free(v.tids);
	u64map_done(&v.threads, vthread_free);
	u64map_done(&v.names, free);
	strbuf_free(&v.line);
	return status;
}
