/* SPDX-License-Identifier: MIT */
/*
 * clrtrace export --format chrome: Chrome trace event JSON (the
 * {"traceEvents": [...]} form) for Perfetto and chrome://tracing.  Spans
 * become complete "X" events, written when they end (so nesting is exact
 * even where the trace leaves a span open); spans that never end are
 * closed at the end of what they enclose or of the trace, marked
 * args.unfinished.  Instants are "i" (thread scope); every thread gets
 * thread_name metadata and every process process_name.  pid/tid are the
 * OS ids; ts is microseconds since the first record.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/args.h"
#include "cli/cli.h"
#include "cli/describe.h"
#include "cli/journal-source.h"
#include "cli/reader.h"

#define NAME_MAX_LEN 160

struct xspan {
	int64_t span, ts;
	int cat;
	char *name;
	json_t *args;
};

struct xthread {
	int64_t pid, tid;
	char *managed; /* managed ThreadID, for the name */
	struct xspan *v;
	size_t n, cap;
};

struct exporter {
	FILE *out;
	int64_t t0, t_last;
	uint64_t events;
	struct u64map threads; /* pid<<32|tid -> xthread */
	json_t *names;         /* managed id -> name */
	json_t *programs;      /* pid -> program */
	struct strbuf sb;
};

static const char *const common_fields[] = {
	"v", "ts", "pid", "tid", "thread", "event", "phase", "span", "parent", "depth", "dur_ns",
};

/* A record's payload (and seq) as Chrome args. */
static json_t *args_of(const struct rec *r)
{
	json_t *a = json_deep_copy(r->j);

	for (size_t i = 0; a && i < sizeof(common_fields) / sizeof(common_fields[0]); i++)
		json_object_del(a, common_fields[i]);
	return a ? a : json_object();
}

/* A slice name: the event, then its description, bounded. */
static char *name_of(struct exporter *x, const struct rec *r)
{
	char *s = NULL;

	strbuf_reset(&x->sb);
	describe(&x->sb, r);
	if (asprintf(&s, "%s%s%.*s", r->event, x->sb.len ? " " : "", NAME_MAX_LEN, x->sb.s ? x->sb.s : "") < 0)
		return NULL;
	return s;
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
		       const char *end_name, bool unfinished)
{
	struct xspan *s = &t->v[i];
	json_t *args = s->args;

	if (end_args)
		json_object_update(args, end_args);
	if (unfinished)
		json_object_set_new(args, "unfinished", json_true());
	emit(x, "X", end_name ? end_name : s->name, s->cat, t->pid, t->tid, us(x, s->ts), (double)(end_ts - s->ts) / 1000.0,
	     args);
	s->args = NULL;
	free(s->name);
	s->name = NULL;
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
	}
	t = *slot;
	if (t && r->thread && !t->managed)
		t->managed = strdup(r->thread);
	return t;
}

/* Convert one record. */
static void export_record(struct exporter *x, const struct rec *r)
{
	struct xthread *t = xthread_get(x, r);

	if (x->t0 < 0 && r->ts >= 0)
		x->t0 = r->ts;
	if (r->ts > x->t_last)
		x->t_last = r->ts;
	if (r->ev == EV_THREAD_NAME && jstr2(r->j, "target", "id") && jstr2(r->j, "target", "name"))
		json_object_set(x->names, jstr2(r->j, "target", "id"), json_object_get(json_object_get(r->j, "target"), "name"));
	if (r->ev == EV_RUNTIME_INIT && jstr(r->j, "program")) {
		char pid[24];

		snprintf(pid, sizeof(pid), "%" PRId64, r->pid);
		json_object_set(x->programs, pid, json_object_get(r->j, "program"));
	}
	if (!t)
		return;
	if (r->ph == PH_BEGIN && r->span >= 0) {
		if (t->n == t->cap) {
			size_t cap = t->cap ? t->cap * 2 : 16;
			struct xspan *v = realloc(t->v, cap * sizeof(*v));

			if (!v)
				return;
			t->v = v;
			t->cap = cap;
		}
		t->v[t->n++] = (struct xspan){ .span = r->span, .ts = r->ts, .cat = r->cat, .name = name_of(x, r),
					       .args = args_of(r) };
		return;
	}
	if (r->ph == PH_END) {
		size_t i = t->n;

		while (i > 0 && t->v[i - 1].span != r->span)
			i--;
		if (i > 0) {
			json_t *end_args = args_of(r);
			char *end_name = r->ev == EV_EXCEPTION_FILTER ? NULL : name_of(x, r);

			if (r->ev == EV_EXCEPTION_FILTER && jstr(r->j, "result")) {
				char *n = NULL;

				if (asprintf(&n, "%s -> %s", t->v[i - 1].name ? t->v[i - 1].name : r->event,
					     jstr(r->j, "result")) >= 0)
					end_name = n;
			}
			while (t->n > i) /* spans inside it that never ended */
				close_span(x, t, --t->n, r->ts, NULL, NULL, true);
			close_span(x, t, --t->n, r->ts, end_args, end_name, false);
			json_decref(end_args);
			free(end_name);
			return;
		}
	}
	/* instants, and ends whose begin is not in the file */
	{
		char *name = name_of(x, r);

		emit(x, "i", name, r->cat, r->pid, r->tid, us(x, r->ts), 0, args_of(r));
		free(name);
	}
}

/* Close what is still open; thread and process names. */
static void export_finish(struct exporter *x)
{
	const char *key;
	json_t *v;

	u64map_foreach(&x->threads, i) {
		struct xthread *t = x->threads.vals[i];
		const char *name = t->managed ? jstr(x->names, t->managed) : NULL;
		char *label = NULL;

		while (t->n > 0)
			close_span(x, t, --t->n, x->t_last, NULL, NULL, true);
		if (asprintf(&label, "%s%stid %" PRId64, name ? name : "", name ? " " : "", t->tid) < 0)
			continue;
		emit(x, "M", "thread_name", -1, t->pid, t->tid, 0, 0, json_pack("{s:s}", "name", label));
		free(label);
	}
	json_object_foreach(x->programs, key, v)
		emit(x, "M", "process_name", -1, strtoll(key, NULL, 10), strtoll(key, NULL, 10), 0, 0,
		     json_pack("{s:O}", "name", v));
}

/* Free one thread's export state. */
static void xthread_free(void *p)
{
	struct xthread *t = p;

	if (!t)
		return;
	for (size_t i = 0; i < t->n; i++) {
		free(t->v[i].name);
		json_decref(t->v[i].args);
	}
	free(t->v);
	free(t->managed);
	free(t);
}

static const char export_help[] =
	"Usage: clrtrace export --format chrome [OPTIONS] FILE|-\n"
	"       clrtrace export --format chrome [OPTIONS] --journal|--journal-dir DIR [FIELD=VALUE...]\n\n"
	"Convert a trace to Chrome trace event JSON (Perfetto, chrome://tracing).\n\n"
	"  -F, --format FORMAT  chrome (the only one so far)\n"
	"  -o, --output FILE    write there instead of standard output\n"
	"  -h, --help           this text\n" JOURNAL_HELP;

int cmd_export(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "format", required_argument, NULL, 'F' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		JOURNAL_LONG_OPTIONS,
		{ 0 },
	};
	struct exporter x = { .out = stdout, .t0 = -1, .t_last = -1 };
	struct journal_opts jo = { 0 };
	const char *format = NULL, *output = NULL;
	struct rd *rd = NULL;
	int opt, r, status = EXIT_USAGE;
	struct rec rec;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":F:o:hu:", opts, NULL)) != -1) {
		switch (opt) {
		case 'F':
			format = optarg;
			break;
		case 'o':
			output = optarg;
			break;
		case 'h':
			fputs(export_help, stdout);
			return 0;
		default:
			if (journal_opt(&jo, opt, optarg))
				break;
			args_getopt_error("export", opt, argv);
			return EXIT_USAGE;
		}
	}
	if (!format) {
		cli_error("export: --format is required (accepted: chrome)");
		return EXIT_USAGE;
	}
	if (strcmp(format, "chrome") != 0) {
		args_bad("export", "--format", format, "chrome");
		return EXIT_USAGE;
	}
	if (!jo.journal && args_one_file("export", argc, argv, optind) < 0)
		return EXIT_USAGE;
	if (jo.journal)
		r = journal_open(&rd, &jo, argv + optind, argc - optind, false, "export");
	else if ((r = rd_open(&rd, argv[optind], false)) < 0)
		cli_error("export: %s: %s", argv[optind], strerror(-r));
	if (r < 0)
		return jo.journal && r == -EINVAL ? EXIT_USAGE : 1;
	if (output && !(x.out = fopen(output, "we"))) {
		cli_error("export: %s: %s", output, strerror(errno));
		status = 1;
		goto out;
	}
	x.names = json_object();
	x.programs = json_object();
	fputs("{\"traceEvents\":[", x.out);
	while ((r = rd_record(rd, &rec)) > 0) {
		export_record(&x, &rec);
		rec_done(&rec);
	}
	if (r < 0)
		cli_error("export: %s: %s", rd_name(rd), strerror(-r));
	export_finish(&x);
	fputs("\n],\"displayTimeUnit\":\"ns\",\"otherData\":{\"generator\":\"clrtrace\"}}\n", x.out);
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
	json_decref(x.names);
	json_decref(x.programs);
	strbuf_free(&x.sb);
	return status;
}
