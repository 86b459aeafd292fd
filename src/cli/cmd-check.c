/* SPDX-License-Identifier: MIT */
/*
 * clrtrace check: every line against the record schema, seq gaps not
 * explained by trace.dropped, span nesting per thread (span, parent and
 * depth as DESIGN.md defines them; a load's end on another thread closes
 * the span on the one begin_tid names), and the exception stories against their
 * own records (check-stories.c).  One line per problem; exit 1 if there was
 * any.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/args.h"
#include "cli/check-stories.h"
#include "cli/cli.h"
#include "cli/escape.h"
#include "cli/jschema.h"
#include "cli/reader.h"
#include "common/util.h"

#define MAX_NESTING (1u << 16)

struct open_span {
	int64_t span;
	char *event;
};

struct stack {
	struct open_span *v;
	size_t n, cap;
	size_t gaps_seen; /* its process's gap count when it last had a record */
};

struct gap {
	uint64_t line;
	int64_t from, to;
};

struct proc {
	int64_t last_seq;
	uint64_t explained; /* sum of trace.dropped counts */
	struct gap *gaps;
	size_t n_gaps;
	size_t breaks; /* gaps, and starts mid-trace (a rotated file): nesting resyncs */
};

/* The runs of one pid: a reused pid (a container's pid 1, restarted) puts
 * several processes' records in one file under one pid.  Each runtime.init
 * starts a run; a record belongs to the latest run that started before it
 * (a reused pid's processes do not overlap in time). */
struct runs {
	int64_t *init_ts; /* run k started at init_ts[k] */
	size_t n;
	bool first_open;  /* run 0 has records but no runtime.init yet */
	bool tangled;     /* runs overlap: not checked further */
};

/* A record may be stamped a little before its run's runtime.init (another
 * thread's callback); a reused pid's next process starts much later. */
#define RUN_SLACK_NS 10000000

struct checker {
	struct rd *rd; /* names the file of a line */
	struct jschema *schema;
	struct u64map threads; /* run, pid, tid -> struct stack */
	struct u64map procs;   /* run<<32|pid -> struct proc */
	struct u64map pids;    /* pid -> struct runs */
	size_t run;            /* the current record's run of its pid */
	uint64_t problems, records, max_problems;
	bool warned_version;
	const struct rec *cur;
	struct stories *stories;
};

/* One problem line: "NAME:LINE: (seq S EVENT PHASE) what". */
__attribute__((format(printf, 3, 4))) static void problem(struct checker *c, uint64_t line, const char *fmt, ...)
{
	_cleanup_free_ char *msg = NULL;
	const char *name;
	va_list ap;

	if (c->problems++ >= c->max_problems)
		return;
	rd_where(c->rd, line, &name, &line);
	printf("%s:%" PRIu64 ": ", name, line);
	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	esc_fputs(msg ? msg : "(out of memory)", stdout); /* quotes record text */
	putchar('\n');
}

/* A lie of an exception story (check-stories.c). */
static void on_story_problem(void *ud, uint64_t line, const char *msg)
{
	problem(ud, line, "%s", msg);
}

/* Schema violation callback. */
static void on_violation(void *ud, const char *path, const char *msg)
{
	struct checker *c = ud;

	problem(c, c->cur->line, "seq %" PRId64 " %s: schema: %s: %s", c->cur->seq, c->cur->event, path, msg);
}

/* Free a thread's stack. */
static void stack_free(void *p)
{
	struct stack *s = p;

	for (size_t i = 0; s && i < s->n; i++)
		free(s->v[i].event);
	if (s)
		free(s->v);
	free(s);
}

/* Free a process's seq state. */
static void proc_free(void *p)
{
	struct proc *pr = p;

	if (pr)
		free(pr->gaps);
	free(pr);
}

/* Free a pid's runs. */
static void runs_free(void *p)
{
	struct runs *r = p;

	if (r)
		free(r->init_ts);
	free(r);
}

/* Key of a process run. */
static uint64_t proc_key(const struct rec *r, size_t run)
{
	return ((uint64_t)run << 32) | (uint32_t)r->pid;
}

/* Key of thread TID of R's process run (pids and tids are below 2^22). */
static uint64_t run_thread_key(const struct rec *r, size_t run, int64_t tid)
{
	return ((uint64_t)run << 44) ^ ((uint64_t)(uint32_t)r->pid << 22) ^ (uint32_t)tid;
}

/* Get-or-create the value of KEY in M (SIZE bytes, zeroed). */
static void *map_obtain(struct u64map *m, uint64_t key, size_t size)
{
	void **slot = u64map_slot(m, key);

	if (slot && !*slot)
		*slot = calloc(1, size);
	return slot ? *slot : NULL;
}

/* Push an open span; false on ENOMEM or when too deep. */
static bool stack_push(struct stack *s, int64_t span, const char *event)
{
	if (s->n >= MAX_NESTING)
		return false;
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 16;
		struct open_span *v = realloc(s->v, cap * sizeof(*v));

		if (!v)
			return false;
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n].event = strdup(event);
	if (!s->v[s->n].event)
		return false;
	s->v[s->n++].span = span;
	return true;
}

/* After a problem, believe the record: make the stack DEPTH deep with
 * PARENT on top, so one broken record gives one problem, not a cascade. */
static void stack_resync(struct stack *s, int64_t depth, int64_t parent)
{
	if (depth > MAX_NESTING)
		depth = MAX_NESTING;
	while (s->n > (size_t)depth)
		free(s->v[--s->n].event);
	while (s->n < (size_t)depth && stack_push(s, -2, "?"))
		;
	if (s->n && parent > 0)
		s->v[s->n - 1].span = parent;
}

/* An end written on another thread than its begin (begin_tid: a load the
 * runtime finished there): close the span on the thread that began it. */
static void end_elsewhere(struct checker *c, const struct rec *r, const struct proc *p)
{
	int64_t tid = r->begin_tid;
	struct stack *s = map_obtain(&c->threads, run_thread_key(r, c->run, tid), sizeof(*s));
	size_t i = s ? s->n : 0;

	while (i > 0 && s->v[i - 1].span != r->span)
		i--;
	if (i == 0 && p && p->breaks)
		return; /* its begin may be among the records lost */
	if (i == 0) {
		problem(c, r->line, "seq %" PRId64 " %s end: nesting: end of span %" PRId64 " that is not open on thread %" PRId64
			" (begin_tid)", r->seq, r->event, r->span, tid);
		return;
	}
	if (strcmp(s->v[i - 1].event, r->event) != 0 && strcmp(s->v[i - 1].event, "?") != 0)
		problem(c, r->line, "seq %" PRId64 " %s end: nesting: ends span %" PRId64 " opened as %s", r->seq, r->event,
			r->span, s->v[i - 1].event);
	while (s->n >= i)
		free(s->v[--s->n].event);
}

/* Nesting: replay one record on its thread's stack of open spans. */
static void check_nesting(struct checker *c, const struct rec *r)
{
	struct proc *p;
	struct stack *s;
	int64_t top;
	const char *what = r->event;
	/* an end on another thread than its begin: an instant here */
	bool elsewhere = r->begin_tid > 0;

	if (r->ph < 0 || r->tid < 0 || r->pid < 0 || r->depth < 0)
		return; /* the schema check has said what is wrong */
	s = map_obtain(&c->threads, run_thread_key(r, c->run, r->tid), sizeof(*s));
	if (!s)
		return;
	/* records lost since this thread's last one: believe this record */
	p = u64map_get(&c->procs, proc_key(r, c->run));
	if (p && p->breaks != s->gaps_seen) {
		s->gaps_seen = p->breaks;
		if (r->ph == PH_END && !elsewhere)
			stack_resync(s, r->depth + 1, r->span);
		else
			stack_resync(s, r->depth, r->parent);
	}
	top = s->n ? s->v[s->n - 1].span : -1;
	if (elsewhere)
		end_elsewhere(c, r, p);
	else if (r->ph == PH_END) {
		size_t i = s->n;

		while (i > 0 && s->v[i - 1].span != r->span)
			i--;
		if (i == 0) {
			problem(c, r->line, "seq %" PRId64 " %s end: nesting: end of span %" PRId64 " that is not open on thread %" PRId64,
				r->seq, what, r->span, r->tid);
			stack_resync(s, r->depth, r->parent);
			return;
		}
		i--;
		if (strcmp(s->v[i].event, r->event) != 0 && strcmp(s->v[i].event, "?") != 0)
			problem(c, r->line, "seq %" PRId64 " %s end: nesting: ends span %" PRId64 " opened as %s", r->seq, what,
				r->span, s->v[i].event);
		else if ((size_t)r->depth != i)
			problem(c, r->line, "seq %" PRId64 " %s end: nesting: depth %" PRId64 ", expected %zu", r->seq, what,
				r->depth, i);
		while (s->n > i)
			free(s->v[--s->n].event);
		/* a span whose begin was lost (stack_resync's "?"): the
		 * record names it as its parent */
		if (s->n && s->v[s->n - 1].span == -2 && r->parent > 0)
			s->v[s->n - 1].span = r->parent;
		return;
	}
	if ((size_t)r->depth != s->n) {
		problem(c, r->line, "seq %" PRId64 " %s %s: nesting: depth %" PRId64 ", expected %zu", r->seq, what,
			ct_phase_to_string(r->ph), r->depth, s->n);
		stack_resync(s, r->depth, r->parent);
	} else if (top == -2 && r->parent > 0) {
		s->v[s->n - 1].span = r->parent; /* as above */
	} else if (r->parent != top && top != -2) {
		problem(c, r->line, "seq %" PRId64 " %s %s: nesting: parent %" PRId64 ", expected %" PRId64, r->seq, what,
			ct_phase_to_string(r->ph), r->parent, top);
		stack_resync(s, r->depth, r->parent);
	}
	if (r->ph == PH_BEGIN && r->span > 0 && !stack_push(s, r->span, r->event))
		problem(c, r->line, "seq %" PRId64 " %s begin: nesting: more than %u spans open", r->seq, what, MAX_NESTING);
}

/* Seq: per process 1, 2, 3 ...; remember gaps for trace.dropped to explain.
 * False when the record's pid turned out not to be checkable. */
static bool check_seq(struct checker *c, const struct rec *r)
{
	struct proc *p;
	int64_t upto;

	if (r->seq < 1 || r->pid < 0)
		return true;
	p = map_obtain(&c->procs, proc_key(r, c->run), sizeof(*p));
	if (!p)
		return true;
	if (r->ev == EV_TRACE_ROTATED && (p->last_seq == 0 || r->seq == p->last_seq)) {
		/* a file that starts a rotated trace: its seq is that of the last
		 * record before it, in the files before; the records of the files
		 * the keep limit removed are retention, not a gap to explain */
		json_t *rm = json_object_get(r->j, "removed"), *e;
		size_t i;

		json_array_foreach(rm, i, e)
			if (jint(e, "last_seq") >= jint(e, "first_seq") && jint(e, "first_seq") > 0)
				p->explained += (uint64_t)(jint(e, "last_seq") - jint(e, "first_seq") + 1);
		if (p->last_seq == 0)
			p->breaks++; /* its spans began in the file before */
		p->last_seq = r->seq;
		return true;
	}
	if (r->seq <= p->last_seq) {
		struct runs *rs = u64map_get(&c->pids, (uint64_t)r->pid);

		if (rs && rs->n > 1) {
			/* two processes with this pid at once (separate PID
			 * namespaces sharing the file): not told apart */
			const char *name;
			uint64_t line;

			rd_where(c->rd, r->line, &name, &line);
			rs->tangled = true;
			fprintf(stderr, "clrtrace: %s:%" PRIu64 ": records of %zu processes with pid %" PRId64
				" interleave in time and cannot be told apart; seq and nesting of pid %" PRId64
				" are not checked\n", name, line, rs->n, r->pid, r->pid);
			return false;
		}
		problem(c, r->line, "seq %" PRId64 " %s: seq does not increase (previous %" PRId64 ")", r->seq, r->event,
			p->last_seq);
		return true;
	}
	/* a trace.rotated after a gap (a file of the set missing): its seq,
	 * that of the last record before it, is missing too */
	upto = r->ev == EV_TRACE_ROTATED ? r->seq : r->seq - 1;
	if (upto > p->last_seq) {
		struct gap *g = realloc(p->gaps, (p->n_gaps + 1) * sizeof(*g));

		if (g) {
			p->gaps = g;
			g[p->n_gaps++] = (struct gap){ r->line, p->last_seq + 1, upto };
		}
		p->breaks++;
	}
	p->last_seq = r->seq;
	if (r->ev == EV_TRACE_DROPPED && jint(r->j, "count") > 0) /* <= INT64_MAX each: saturate, never wrap */
		p->explained = (uint64_t)jint(r->j, "count") > UINT64_MAX - p->explained ?
				       UINT64_MAX : p->explained + (uint64_t)jint(r->j, "count");
	return true;
}

/* At the end: report the gaps the drop counts do not cover. */
static void report_gaps(struct checker *c)
{
	u64map_foreach(&c->procs, k) {
		struct proc *p = c->procs.vals[k];
		struct runs *rs = u64map_get(&c->pids, c->procs.keys[k] & UINT32_MAX);
		uint64_t budget = p->explained;

		if (rs && rs->tangled)
			continue; /* said already */

		for (size_t i = 0; i < p->n_gaps; i++) {
			struct gap *g = &p->gaps[i];
			uint64_t missing = (uint64_t)(g->to - g->from + 1);

			if (budget >= missing) {
				budget -= missing;
				continue;
			}
			problem(c, g->line, "seq gap: %" PRId64 "..%" PRId64 " missing (%" PRIu64 " records) in pid %" PRIu64
				", %" PRIu64 " not explained by trace.dropped", g->from, g->to, missing,
				c->procs.keys[k] & UINT32_MAX, missing - budget);
			budget = 0;
		}
	}
}

/* Which run of its pid R belongs to (see struct runs); false when that pid
 * cannot be checked. */
static bool find_run(struct checker *c, const struct rec *r)
{
	struct runs *rs;

	c->run = 0;
	if (r->pid < 0 || !(rs = map_obtain(&c->pids, (uint64_t)r->pid, sizeof(*rs))))
		return true;
	if (rs->tangled)
		return false;
	if (r->ev == EV_RUNTIME_INIT) {
		/* the first init of a pid starts run 0 (whose records may come
		 * first, when another thread's callback got seq 1); every later
		 * one a new run */
		if (rs->n == 0 || rs->first_open) {
			if (rs->n == 0) {
				rs->init_ts = malloc(sizeof(*rs->init_ts));
				if (!rs->init_ts)
					return true;
				rs->n = 1;
			}
			rs->init_ts[0] = r->ts;
			rs->first_open = false;
			return true;
		}
		int64_t *v = realloc(rs->init_ts, (rs->n + 1) * sizeof(*v));
		if (!v)
			return true;
		rs->init_ts = v;
		rs->init_ts[rs->n] = r->ts;
		c->run = rs->n++;
		return true;
	}
	if (rs->n == 0) { /* records before any init: run 0 waits for its own */
		rs->init_ts = malloc(sizeof(*rs->init_ts));
		if (!rs->init_ts)
			return true;
		rs->init_ts[0] = INT64_MIN;
		rs->n = 1;
		rs->first_open = true;
	}
	/* the run that started last before it (runs appear in the file in
	 * any order: a dead run's records are merged after the next one's) */
	for (size_t i = 1; i < rs->n; i++)
		if (r->ts >= rs->init_ts[i] - RUN_SLACK_NS && (c->run == 0 || rs->init_ts[i] > rs->init_ts[c->run]))
			c->run = i;
	if (c->run && !rs->first_open && rs->init_ts[0] > rs->init_ts[c->run] && r->ts >= rs->init_ts[0] - RUN_SLACK_NS)
		c->run = 0;
	return true;
}

/* Check one line. */
static void check_line(struct checker *c, const char *line, size_t len, uint64_t lineno, bool partial)
{
	struct rec r;
	char *err = NULL;

	if (rec_parse(&r, line, len, lineno, &err) < 0) {
		problem(c, lineno, "%s%s", partial ? "truncated last line (no newline): " : "", err ? err : "unreadable");
		free(err);
		return;
	}
	if (err) { /* a number out of range, read as absent */
		problem(c, lineno, "%s", err);
		free(err);
	}
	if (partial)
		problem(c, lineno, "last line has no newline (the writer stopped before finishing it)");
	c->records++;
	if (r.v > 1) {
		const char *name;
		uint64_t fl;

		rd_where(c->rd, lineno, &name, &fl);
		if (!c->warned_version)
			fprintf(stderr, "clrtrace: %s:%" PRIu64 ": schema version %" PRId64
				" is newer than this clrtrace knows (1); such records are checked for seq and nesting only\n",
				name, fl, r.v);
		c->warned_version = true;
	} else {
		c->cur = &r; /* for on_violation, while R lives */
		(void)jschema_validate(c->schema, r.j, on_violation, c);
		c->cur = NULL;
	}
	if (find_run(c, &r)) {
		/* trace.rotated is the file sink's note, written by whichever
		 * thread does the writer's round: outside any thread's nesting */
		if (check_seq(c, &r) && r.ev != EV_TRACE_ROTATED)
			check_nesting(c, &r);
		stories_feed(c->stories, &r, proc_key(&r, c->run));
	}
	rec_done(&r);
}

/* Load the schema: --schema FILE or the one compiled in. */
static int load_schema(struct checker *c, const char *path)
{
	char *text = NULL, *err = NULL;
	size_t len = 0;
	int r;

	if (path) {
		FILE *f = fopen(path, "re");

		if (!f) {
			r = -errno;
			cli_error("check: %s: %s", path, strerror(-r));
			return r;
		}
		r = getdelim(&text, &len, '\0', f) < 0 ? -EIO : 0; /* the whole file: JSON holds no NUL */
		len = text ? strlen(text) : 0;
		fclose(f);
		if (r < 0) {
			cli_error("check: %s: cannot read", path);
			free(text);
			return r;
		}
	}
	r = jschema_load(&c->schema, path ? text : ct_record_schema, path ? len : ct_record_schema_len, &err);
	if (r < 0)
		cli_error("check: schema %s: %s", path ? path : "(built in)", err ? err : strerror(-r));
	free(text);
	free(err);
	return r;
}

static const char check_help[] =
	"Usage: clrtrace check [OPTIONS] TRACE...\n\n"
	"Validate a trace: every record against the schema, seq gaps not explained\n"
	"by trace.dropped, span nesting per thread (a load ended on another thread\n"
	"must close a span open on the one its begin_tid names), and exception\n"
	"stories that contradict their own records.  Prints one line per problem\n"
	"(FILE:LINE: what) and exits 1 if there was any.  Across a rotated set, seq\n"
	"runs on from file to file; the ranges a trace.rotated says were removed\n"
	"(keep) are retention, not loss.\n\n"
	TRACE_HELP "\n"
	"  -s, --schema FILE     validate against FILE instead of the built-in schema\n"
	"  -m, --max-problems N  print at most N problems (default: all)\n"
	"  -q, --quiet           no summary line\n"
	"  -h, --help            this text\n";

/* Parse check's options into C, *SCHEMA and *QUIET.  Returns 1 to go on, 0 after --help,
 * EXIT_USAGE negated on a bad argument. */
static int parse_check_args(int argc, char **argv, struct checker *c, const char **schema, bool *quiet)
{
	static const struct option opts[] = {
		{ "schema", required_argument, NULL, 's' },
		{ "max-problems", required_argument, NULL, 'm' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	int opt;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":s:m:qh", opts, NULL)) != -1) {
		switch (opt) {
		case 's':
			*schema = optarg;
			break;
		case 'm':
			if (args_uint("check", "--max-problems", optarg, UINT64_MAX - 1, &c->max_problems) < 0)
				return -EXIT_USAGE;
			break;
		case 'q':
			*quiet = true;
			break;
		case 'h':
			fputs(check_help, stdout);
			return 0;
		default:
			args_getopt_error("check", opt, argv);
			return -EXIT_USAGE;
		}
	}
	if (args_files("check", argc, argv, optind) < 0)
		return -EXIT_USAGE;
	return 1;
}

/* Check every line of RD, then what only the whole trace shows (gaps, emptiness). */
static void check_all(struct checker *c, struct rd *rd)
{
	int r;

	for (;;) {
		const char *line;
		size_t len;
		bool partial;

		r = rd_line(rd, &line, &len, &partial);
		if (r <= 0)
			break;
		if (len == 0 && !partial)
			continue;
		check_line(c, line, len, rd_lineno(rd), partial);
	}
	if (r < 0)
		problem(c, rd_lineno(rd) + 1, "read error: %s", rd_strerror(rd, r));
	if (c->records == 0 && c->problems == 0)
		problem(c, 0, "no records (empty trace)");
	report_gaps(c);
}

int cmd_check(int argc, char **argv)
{
	struct checker c = { .max_problems = UINT64_MAX };
	const char *schema = NULL;
	struct rd *rd = NULL;
	bool quiet = false;
	int r, status = EXIT_USAGE;

	r = parse_check_args(argc, argv, &c, &schema, &quiet);
	if (r <= 0)
		return -r;
	if (load_schema(&c, schema) < 0)
		goto out;
	c.stories = stories_new(on_story_problem, &c);
	if (!c.stories) {
		cli_error("check: out of memory");
		status = 1;
		goto out;
	}
	r = rd_open(&rd, "check", argv + optind, (size_t)(argc - optind), false);
	if (r < 0) {
		status = 1;
		goto out;
	}
	c.rd = rd;
	check_all(&c, rd);
	if (c.problems > c.max_problems)
		printf("%s: %" PRIu64 " more problems not shown\n", rd_label(rd), c.problems - c.max_problems);
	if (!quiet)
		fprintf(stderr, "%s: %" PRIu64 " records, %" PRIu64 " lines, %" PRIu64 " problems\n", rd_label(rd),
			c.records, rd_lineno(rd), c.problems);
	status = c.problems ? 1 : 0;
out:
	rd_free(rd);
	u64map_done(&c.threads, stack_free);
	u64map_done(&c.procs, proc_free);
	u64map_done(&c.pids, runs_free);
	jschema_free(c.schema);
	stories_free(c.stories);
	return status;
}
