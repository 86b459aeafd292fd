/* SPDX-License-Identifier: MIT */
/*
 * clrtrace export --format chrome: Chrome trace event JSON (the
 * {"traceEvents": [...]} form) for Perfetto and chrome://tracing.  Spans
 * become complete "X" events, written when they end (so nesting is exact
 * even where the trace leaves a span open); spans that never end are
 * closed at the end of what they enclose or of the trace, marked
 * args.unfinished; a load another thread finished (begin_tid) closes on
 * the thread that began it, args.end_tid.  Instants are "i" (thread scope).  An event's name is
 * its record's event (a closed vocabulary, so viewers can group and colour
 * by it); what view would print after it is args.detail, beside the
 * record's payload.  A rethrow gets a flow ("s" at its original's throw,
 * "f" at its own) named exception.rethrow, an exception thrown while
 * another was being handled one named exception.nested; an error's hops
 * (exception.error) are one flow named exception.error ("s" at its first
 * throw, "t" at each throw again, "f" at its exception.error record).  Every thread gets
 * thread_name metadata ("Thread.Name managed M tid T", as far as the trace
 * knows them) and every process process_name.  pid/tid are the
 * OS ids; ts is microseconds since the first record, whose absolute time
 * is otherData.start_time.  A stack (category stacks) gets its source
 * lines as view's (src/cli/sites.c): file and line per frame, args.site.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/args.h"
#include "cli/cli.h"
#include "cli/describe.h"
#include "cli/journal-source.h"
#include "cli/reader.h"
#include "cli/sites.h"
#include "cli/strpool.h"

struct xspan {
	int64_t span, ts;
	int cat;
	char *name;   /* the event */
	char *detail; /* view's text for the begin */
	json_t *args;
};

/* A thread's state: a few dozen bytes, and its open spans, freed when
 * none is open (issue 27: a held vector of 16 spans took 0.8 KB a thread
 * in a trace of a million threads). */
struct xthread {
	int64_t pid, tid;
	const char *managed; /* managed ThreadID, for the name (interned) */
	int64_t managed_tid; /* Thread.ManagedThreadId (-1: not seen) */
	char *name;    /* Thread.Name as the thread's records last said */
	struct xspan *v;
	size_t n, cap;
};

/* Where an exception was thrown, for the flows that end at its rethrows. */
struct xthrow {
	int64_t ts, tid;
};

struct exporter {
	FILE *out;
	int64_t t0, t_last;
	uint64_t events;
	struct u64map threads; /* pid<<32|tid -> xthread */
	struct u64map throws;  /* pid<<32|exception id -> its first xthrow */
	struct strpool *pool;  /* managed ids and thread names */
	struct u64map names;   /* managed id (interned, its address) -> name (interned) */
	struct xprogram {
		int64_t pid;
		const char *name; /* interned */
	} *programs;           /* in the order the processes said theirs */
	size_t n_programs, cap_programs;
	struct u64map program_pids; /* pid -> index+1 in programs */
	void *program_nopid;   /* the same for pid -1, not a key of the map */
	struct sites *sites;   /* source lines of stacks (made at the first) */
	struct strbuf sb;
};

static const char *const common_fields[] = {
	"v", "ts", "pid", "tid", "thread", "managed_tid", "thread_name", "event", "phase", "span", "parent", "depth",
	"dur_ns",
};

/* A stack in args A (category stacks): each frame with its source file
 * and line, and the throw site as view says it (args.site), resolved here
 * from the PDBs as view and stats do. */
static void add_lines(struct exporter *x, json_t *a)
{
	char *site;

	if (!json_is_array(json_object_get(a, "stack")) || (!x->sites && !(x->sites = sites_new())))
		return;
	sites_add_lines(x->sites, a);
	site = sites_site(x->sites, a);
	if (site)
		json_object_set_new(a, "site", json_string(site));
	free(site);
}

/* A record's payload (and seq) as Chrome args, a stack with its lines. */
static json_t *args_of(struct exporter *x, const struct rec *r)
{
	json_t *a = json_deep_copy(r->j);

	for (size_t i = 0; a && i < sizeof(common_fields) / sizeof(common_fields[0]); i++)
		json_object_del(a, common_fields[i]);
	if (a)
		add_lines(x, a);
	return a ? a : json_object();
}

/* View's text for R (a filter's end: its begin's, BEGIN, with the result), or NULL. */
static json_t *detail_of(struct exporter *x, const struct rec *r, const char *begin)
{
	strbuf_reset(&x->sb);
	if (r->ev == EV_EXCEPTION_FILTER && r->ph == PH_END) {
		strbuf_printf(&x->sb, "%s", begin ? begin : "");
		if (jstr(r->j, "result"))
			strbuf_printf(&x->sb, "%s-> %s", x->sb.len ? " " : "", jstr(r->j, "result"));
	} else {
		describe(&x->sb, r);
	}
	return x->sb.len ? json_string(x->sb.s) : NULL;
}

/* R's payload and its detail (view's text for it) as Chrome args. */
static json_t *args_with_detail(struct exporter *x, const struct rec *r, const char *begin)
{
	json_t *a = args_of(x, r), *d = detail_of(x, r, begin);

	if (d)
		json_object_set_new(a, "detail", d);
	return a;
}

/* Microseconds since the first record. */
static double us(const struct exporter *x, int64_t ts)
{
	return ts >= 0 && x->t0 >= 0 ? (double)(ts - x->t0) / 1000.0 : 0.0;
}

/* Write one trace event (steals ARGS). */
static void emit(struct exporter *x, const char *ph, const char *name, int cat, int64_t pid, int64_t tid, double ts,
		 double dur, json_t *args)
{
	json_t *e = json_pack("{s:s,s:s,s:s,s:I,s:I,s:f}", "name", name ? name : "?", "cat",
			      cat >= 0 ? ct_categories[cat].name : "other", "ph", ph, "pid", (json_int_t)pid, "tid",
			      (json_int_t)tid, "ts", ts);

	if (!e) {
		json_decref(args);
		return;
	}
	if (strcmp(ph, "X") == 0)
		json_object_set_new(e, "dur", json_real(dur >= 0 ? dur : 0));
	if (strcmp(ph, "i") == 0)
		json_object_set_new(e, "s", json_string("t"));
	if (args)
		json_object_set_new(e, "args", args);
	fputs(x->events++ ? ",\n" : "\n", x->out);
	json_dumpf(e, x->out, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15));
	json_decref(e);
}

/* Close span I of thread T as an X event ending at END_TS. */
static void close_span(struct exporter *x, struct xthread *t, size_t i, int64_t end_ts, json_t *end_args,
		       bool unfinished)
{
	struct xspan *s = &t->v[i];
	json_t *args = s->args;

	if (end_args)
		json_object_update(args, end_args);
	if (unfinished)
		json_object_set_new(args, "unfinished", json_true());
	/* ts are 0 or more, or -1 when absent (the reader's range check): no
	 * overflow; a span without both ends' times gets no length */
	emit(x, "X", s->name, s->cat, t->pid, t->tid, us(x, s->ts),
	     s->ts >= 0 && end_ts >= s->ts ? (double)(end_ts - s->ts) / 1000.0 : 0.0, args);
	s->args = NULL;
	free(s->name);
	free(s->detail);
	s->name = s->detail = NULL;
}

/* Get-or-create the export state of R's thread. */
static struct xthread *xthread_get(struct exporter *x, const struct rec *r)
{
	void **slot = u64map_slot(&x->threads, thread_key(r));
	struct xthread *t;

	if (!slot)
		return NULL;
	if (!*slot && (*slot = calloc(1, sizeof(struct xthread)))) {
		t = *slot;
		t->pid = r->pid;
		t->tid = r->tid;
		t->managed_tid = -1;
	}
	t = *slot;
	if (!t)
		return NULL;
	if (r->thread && !t->managed)
		t->managed = strpool_intern(x->pool, r->thread, strlen(r->thread));
	rec_thread_ident(r, &t->managed_tid, &t->name);
	return t;
}

/* Process PID's program is PROGRAM (the latest it said; its place in the
 * list is where it said one first). */
static void learn_program(struct exporter *x, int64_t pid, const char *program)
{
	const char *name = strpool_intern(x->pool, program, strlen(program));
	void **slot = pid == -1 ? &x->program_nopid : u64map_slot(&x->program_pids, (uint64_t)pid);

	if (!slot || !name)
		return;
	if (!*slot) {
		if (x->n_programs == x->cap_programs) {
			size_t cap = x->cap_programs ? x->cap_programs * 2 : 16;
			struct xprogram *v = reallocarray(x->programs, cap, sizeof(*v));

			if (!v)
				return;
			x->programs = v;
			x->cap_programs = cap;
		}
		x->programs[x->n_programs++].pid = pid;
		*slot = (void *)(uintptr_t)x->n_programs;
	}
	x->programs[(uintptr_t)*slot - 1].name = name;
}

/* Learn thread names, program names and the first and last times. */
static void learn(struct exporter *x, const struct rec *r)
{
	if (x->t0 < 0 && r->ts >= 0)
		x->t0 = r->ts;
	if (r->ts > x->t_last)
		x->t_last = r->ts;
	if (r->ev == EV_THREAD_NAME && jstr2(r->j, "target", "id") && jstr2(r->j, "target", "name")) {
		const char *id = jstr2(r->j, "target", "id"), *name = jstr2(r->j, "target", "name");
		const char *key = strpool_intern(x->pool, id, strlen(id));
		void **slot = key ? u64map_slot(&x->names, (uintptr_t)key) : NULL;

		if (slot)
			*slot = (void *)strpool_intern(x->pool, name, strlen(name));
	}
	if (r->ev == EV_RUNTIME_INIT && jstr(r->j, "program"))
		learn_program(x, r->pid, jstr(r->j, "program"));
}

/* Write one flow event (ph "s", "t" or "f"), bound to the slice around TS. */
static void emit_flow(struct exporter *x, const char *ph, const char *name, const char *id, int64_t pid, int64_t tid,
		      int64_t ts)
{
	json_t *e = json_pack("{s:s,s:s,s:s,s:s,s:I,s:I,s:f}", "name", name, "cat", ct_categories[CAT_EXCEPTIONS].name,
			      "ph", ph, "id", id, "pid", (json_int_t)pid, "tid", (json_int_t)tid, "ts", us(x, ts));

	if (!e)
		return;
	if (strcmp(ph, "f") == 0)
		json_object_set_new(e, "bp", json_string("e"));
	fputs(x->events++ ? ",\n" : "\n", x->out);
	json_dumpf(e, x->out, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15));
	json_decref(e);
}

/* A flow named NAME from exception FROM's throw to the throw R, if FROM's was seen. */
static void link_throw(struct exporter *x, const struct rec *r, int64_t from, const char *name)
{
	const struct xthrow *o = from >= 0 ? u64map_get(&x->throws, (uint64_t)r->pid << 32 | (uint32_t)from) : NULL;
	char id[96];

	if (!o)
		return;
	snprintf(id, sizeof(id), "%s:%" PRId64 ":%" PRId64, name, r->pid, jint2(r->j, "exception", "id"));
	emit_flow(x, "s", name, id, r->pid, o->tid, o->ts);
	emit_flow(x, "f", name, id, r->pid, r->tid, r->ts);
}

/* An error's hops as one flow (exception.error, issue 28): "s" at its
 * first throw, "t" at each throw again, "f" at its exception.error. */
static void error_flow(struct exporter *x, const struct rec *r)
{
	int64_t err = jint(r->j, "error");
	const char *ph;
	char id[64];

	if (err < 0)
		return;
	if (rec_is_error(r))
		ph = "f";
	else if (r->ev == EV_EXCEPTION_THROW)
		ph = jint2(r->j, "exception", "id") == err ? "s" : "t";
	else
		return;
	snprintf(id, sizeof(id), "exception.error:%" PRId64 ":%" PRId64, r->pid, err);
	emit_flow(x, ph, "exception.error", id, r->pid, r->tid, r->ts);
}

/* A throw: remember where it was; link it to its original and its outer exception. */
static void note_throw(struct exporter *x, const struct rec *r)
{
	int64_t id = jint2(r->j, "exception", "id"), of = jint(r->j, "rethrow_of"), outer = jint2(r->j, "nested_in", "id");
	void **slot = id >= 0 ? u64map_slot(&x->throws, (uint64_t)r->pid << 32 | (uint32_t)id) : NULL;
	struct xthrow *t;

	if (slot && !*slot && (t = *slot = malloc(sizeof(*t))))
		*t = (struct xthrow){ .ts = r->ts, .tid = r->tid };
	link_throw(x, r, of, "exception.rethrow");
	if (outer != of)
		link_throw(x, r, outer, "exception.nested");
}

/* A begin: hold it as an open span of T. */
static void span_begin(struct exporter *x, struct xthread *t, const struct rec *r)
{
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 4;
		struct xspan *v = realloc(t->v, cap * sizeof(*v));

		if (!v)
			return;
		t->v = v;
		t->cap = cap;
	}
	strbuf_reset(&x->sb);
	describe(&x->sb, r);
	t->v[t->n++] = (struct xspan){ .span = r->span, .ts = r->ts, .cat = r->cat, .name = strdup(r->event),
				       .detail = x->sb.len ? strdup(x->sb.s) : NULL, .args = args_of(x, r) };
	if (t->v[t->n - 1].detail) /* an unfinished span keeps its begin's */
		json_object_set_new(t->v[t->n - 1].args, "detail", json_string(t->v[t->n - 1].detail));
}

/* An end: close its span (and any left open inside it); false if its begin is not held. */
static bool span_end(struct exporter *x, struct xthread *t, const struct rec *r)
{
	size_t i = t->n;
	json_t *end_args;

	while (i > 0 && t->v[i - 1].span != r->span)
		i--;
	if (i == 0)
		return false;
	end_args = args_with_detail(x, r, t->v[i - 1].detail);
	if (r->tid != t->tid) /* a load another thread finished (begin_tid) */
		json_object_set_new(end_args, "end_tid", json_integer(r->tid));
	while (t->n > i) /* spans inside it that never ended */
		close_span(x, t, --t->n, r->ts, NULL, true);
	close_span(x, t, --t->n, r->ts, end_args, false);
	json_decref(end_args);
	if (!t->n) { /* a thread holds no memory for spans it had */
		free(t->v);
		t->v = NULL;
		t->cap = 0;
	}
	return true;
}

/* An end on another thread than its begin (begin_tid): close the span on
 * the thread that began it; false if its begin is not held there. */
static bool span_end_elsewhere(struct exporter *x, const struct rec *r)
{
	int64_t tid = r->begin_tid;
	struct xthread *t;

	if (tid <= 0)
		return false;
	t = u64map_get(&x->threads, ((uint64_t)(uint32_t)r->pid << 32) | (uint32_t)tid);
	return t && span_end(x, t, r);
}

/* Convert one record. */
static void export_record(struct exporter *x, const struct rec *r)
{
	struct xthread *t = xthread_get(x, r);

	learn(x, r);
	if (!t)
		return;
	if (r->ev == EV_EXCEPTION_THROW)
		note_throw(x, r);
	error_flow(x, r);
	if (r->ph == PH_BEGIN && r->span >= 0)
		span_begin(x, t, r);
	else if (r->ph != PH_END || !(span_end_elsewhere(x, r) || span_end(x, t, r)))
		/* instants, and ends whose begin is not in the file */
		emit(x, "i", r->event, r->cat, r->pid, r->tid, us(x, r->ts), 0, args_with_detail(x, r, NULL));
}

/* Close what is still open; thread and process names. */
static void export_finish(struct exporter *x)
{
	u64map_foreach(&x->threads, i) {
		struct xthread *t = x->threads.vals[i];
		const char *name;
		char *label = NULL, managed[40] = "";

		if (!t) /* its state could not be allocated (xthread_get) */
			continue;
		name = t->name ? t->name : t->managed ? u64map_get(&x->names, (uintptr_t)t->managed) : NULL;
		while (t->n > 0)
			close_span(x, t, --t->n, x->t_last, NULL, true);
		if (t->managed_tid >= 0)
			snprintf(managed, sizeof(managed), "managed %" PRId64 " ", t->managed_tid);
		/* "name managed M tid T": as .NET names it first, the OS tid last */
		if (asprintf(&label, "%s%s%stid %" PRId64, name ? name : "", name ? " " : "", managed, t->tid) < 0)
			continue;
		emit(x, "M", "thread_name", -1, t->pid, t->tid, 0, 0, json_pack("{s:s}", "name", label));
		free(label);
	}
	for (size_t i = 0; i < x->n_programs; i++)
		emit(x, "M", "process_name", -1, x->programs[i].pid, x->programs[i].pid, 0, 0,
		     json_pack("{s:s}", "name", x->programs[i].name));
}

/* Free one thread's export state. */
static void xthread_free(void *p)
{
	struct xthread *t = p;

	if (!t)
		return;
	for (size_t i = 0; i < t->n; i++) {
		free(t->v[i].name);
		free(t->v[i].detail);
		json_decref(t->v[i].args);
	}
	free(t->v);
	free(t->name);
	free(t);
}

/* The trace's metadata: its absolute start (the first record's time) and the generator. */
static json_t *other_data(const struct exporter *x)
{
	json_t *o = json_pack("{s:s}", "generator", "clrtrace");
	time_t sec = x->t0 >= 0 ? (time_t)(x->t0 / 1000000000) : 0;
	struct tm tm;
	char when[64];

	if (o && x->t0 >= 0 && gmtime_r(&sec, &tm)) {
		size_t n = strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", &tm);

		snprintf(when + n, sizeof(when) - n, ".%09" PRId64 "Z", x->t0 % 1000000000);
		json_object_set_new(o, "start_time", json_string(when));
		json_object_set_new(o, "start_ts_ns", json_integer((json_int_t)x->t0));
	}
	return o;
}

static const char export_help[] =
	"Usage: clrtrace export --format chrome [OPTIONS] TRACE...\n"
	"       clrtrace export --format chrome [OPTIONS] --journal|--journal-dir DIR [FIELD=VALUE...]\n\n"
	"Convert a trace to Chrome trace event JSON (Perfetto, chrome://tracing).\n"
	"Events are named by their record's event (exception.throw, assembly.load...),\n"
	"the details in args; flows link a rethrow to its original throw\n"
	"(exception.rethrow) and a nested exception to its outer one\n"
	"(exception.nested); otherData.start_time is the first record's time (UTC).\n"
	"A stack (-e +stacks) gets its source lines from the PDBs: each frame its\n"
	"file and line, args.site the throw site as view prints it.  A load another\n"
	"thread finished (begin_tid) is one event on the thread that began it, the\n"
	"finishing thread in args.end_tid.\n\n"
	TRACE_HELP "\n"
	"  -F, --format FORMAT  chrome (the only one so far)\n"
	"  -o, --output FILE    write there instead of standard output\n"
	"  -h, --help           this text\n" JOURNAL_HELP;

/* Parse the command line; <0: stop (the exit status in *STATUS). */
static int export_parse(int argc, char **argv, struct journal_opts *jo, const char **output, int *status)
{
	static const struct option opts[] = {
		{ "format", required_argument, NULL, 'F' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		JOURNAL_LONG_OPTIONS,
		{ 0 },
	};
	const char *format = NULL;
	int opt;

	optind = 1;
	opterr = 0;
	*status = EXIT_USAGE;
	while ((opt = getopt_long(argc, argv, ":F:o:hu:", opts, NULL)) != -1) {
		if (opt == 'F')
			format = optarg;
		else if (opt == 'o')
			*output = optarg;
		else if (opt == 'h') {
			fputs(export_help, stdout);
			*status = 0;
			return -ECANCELED;
		} else if (!journal_opt(jo, opt, optarg)) {
			args_getopt_error("export", opt, argv);
			return -EINVAL;
		}
	}
	if (!format) {
		cli_error("export: --format is required (accepted: chrome)");
		return -EINVAL;
	}
	if (strcmp(format, "chrome") != 0) {
		args_bad("export", "--format", format, "chrome");
		return -EINVAL;
	}
	if (!jo->journal && args_files("export", argc, argv, optind) < 0)
		return -EINVAL;
	return 0;
}

/* Convert every record of RD to X's output, then the metadata. */
static int export_records(struct exporter *x, struct rd *rd)
{
	json_t *other;
	struct rec rec;
	int r;

	fputs("{\"traceEvents\":[", x->out);
	while ((r = rd_record(rd, &rec)) > 0) {
		export_record(x, &rec);
		rec_done(&rec);
	}
	if (r < 0)
		cli_error("export: %s: %s", rd_name(rd), rd_strerror(rd, r));
	export_finish(x);
	fputs("\n],\"displayTimeUnit\":\"ns\",\"otherData\":", x->out);
	other = other_data(x);
	json_dumpf(other, x->out, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(other);
	fputs("}\n", x->out);
	return r;
}

int cmd_export(int argc, char **argv)
{
	struct exporter x = { .out = stdout, .t0 = -1, .t_last = -1 };
	struct journal_opts jo = { 0 };
	const char *output = NULL;
	struct rd *rd = NULL;
	int r, status;

	if (export_parse(argc, argv, &jo, &output, &status) < 0)
		return status;
	if (jo.journal)
		r = journal_open(&rd, &jo, argv + optind, argc - optind, false, "export");
	else
		r = rd_open(&rd, "export", argv + optind, (size_t)(argc - optind), false);
	if (r < 0)
		return jo.journal && r == -EINVAL ? EXIT_USAGE : 1;
	if (output && !(x.out = fopen(output, "we"))) {
		cli_error("export: %s: %s", output, strerror(errno));
		status = 1;
		goto out;
	}
	x.pool = strpool_new();
	r = export_records(&x, rd);
	rd_warn_summary(rd);
	status = r < 0 || rd_bad(rd) ? 1 : 0;
	if (fflush(x.out) != 0 || ferror(x.out)) {
		cli_error("export: write error: %s", strerror(errno));
		status = 1;
	}
out:
	if (x.out && x.out != stdout)
		fclose(x.out);
	rd_free(rd);
	u64map_done(&x.threads, xthread_free);
	u64map_done(&x.throws, free);
	u64map_done(&x.names, NULL);
	strpool_done(x.pool);
	free(x.programs);
	u64map_done(&x.program_pids, NULL);
	sites_free(x.sites);
	strbuf_free(&x.sb);
	return status;
}
