/* SPDX-License-Identifier: MIT */
/* Unit tests of the record core and the file sink (core/emit.c, drops.c,
 * the sinks), linked from libctrecord.a: common fields, per-thread
 * nesting, gap-free seq, drop accounting.  The sinks are opened with a
 * spec of the test's own, whose voice the test captures. */
#include <fcntl.h>
#include <inttypes.h>
#include <jansson.h>
#include <linux/fs.h>
#include <pthread.h>
#include <sys/ioctl.h>
#include <signal.h>
#include <sys/resource.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/util.h"
#include "profiler/core/emit.h"
#include "profiler/core/family.h"
#include "profiler/core/jsonw.h"
#include "profiler/core/state.h"
#include "profiler/core/thread.h"
#include "profiler/sinks/journal-fields.h"
#include "common/record-head.h"
#include "profiler/sinks/sinks.h"
#include "profiler/sinks/stage.h"
#include "unit.h"

static char said[4096];

/* The sinks' voice, captured. */
static void say(const char *key, const char *fmt, ...)
{
	va_list ap;
	size_t l = strlen(said);

	va_start(ap, fmt);
	vsnprintf(said + l, sizeof(said) - l - 1, fmt, ap);
	va_end(ap);
	strcat(said, "\n");
}

static unsigned start_flush_ms; /* the writer thread's period; 0: only when kicked */

/* Start tracing to PATH (a fresh file). */
static void start(const char *path)
{
	static struct ct_config cfg;
	char out[512];
	const char *why;
	bool fell_back;

	unlink(path);
	config_done(&cfg);
	ct.cfg.categories = ~0u;
	ct.events = ct_event_mask(ct.cfg.categories); /* every event: what ct_emit asks */
	snprintf(out, sizeof(out), "file:%s", path);
	if (config_parse_outputs(out, &cfg, &why) < 0) {
		printf("FAIL: cannot parse %s\n", out);
		exit(1);
	}
	const struct ct_sink_spec spec = {
		.outputs = cfg.outputs,
		.n_outputs = cfg.n_outputs,
		.program = "test",
		.pid = getpid(),
		.flush_ms = start_flush_ms,
		.say = say,
	};
	if (ct_sinks_open(&spec, &fell_back) < 0 || fell_back) {
		printf("FAIL: cannot open %s\n", path);
		exit(1);
	}
	ct.pid = getpid();
}

/* Read a JSON Lines file into an array. */
static json_t *load(const char *path)
{
	json_t *all = json_array();
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;

	while (f && getline(&line, &cap, f) > 0) {
		json_error_t e;
		json_t *r = json_loads(line, 0, &e);

		if (!r) {
			printf("FAIL: bad JSON line: %s", line);
			failures++;
			continue;
		}
		json_array_append_new(all, r);
	}
	free(line);
	if (f)
		fclose(f);
	return all;
}

static json_int_t geti(json_t *r, const char *k)
{
	return json_integer_value(json_object_get(r, k));
}

static const char *gets_(json_t *r, const char *k)
{
	const char *s = json_string_value(json_object_get(r, k));
	return s ? s : "";
}

/* A record whose builder ran out of room: written with the fields that
 * fit, and a trace.error after it says how many were left out. */
static void test_fields_lost(void)
{
	const char *path = "test-record-lost.jsonl";
	json_t *all, *r, *e;
	JW_FIELDS(f, 1);

	start(path);
	jw_fields_strict = false;
	jwf_str(&f, "function", "Program.Main");
	jwf_int(&f, "token", 1);
	jwf_int(&f, "il_offset", 2);
	jw_fields_strict = true;
	ct_emit(ct_thread_get(), EV_JIT_COMPILE, PH_INSTANT, 0, &f);
	ct_trace_close(false);
	all = load(path);
	r = json_array_get(all, 0);
	e = json_array_get(all, 1);
	CHECK(json_array_size(all) == 2 && strcmp(gets_(r, "function"), "Program.Main") == 0 &&
		      !json_object_get(r, "token") && !json_object_get(r, "il_offset"),
	      "the record has the field that fit, not the two past it (%zu records)", json_array_size(all));
	CHECK(strcmp(gets_(e, "event"), "trace.error") == 0 &&
		      strcmp(gets_(e, "message"), "jit.compile: 2 fields past the record's capacity of 1, left out") == 0,
	      "a trace.error says so (%s)", gets_(e, "message"));
	json_decref(all);
	unlink(path);
}

static void test_nesting(void)
{
	const char *path = "test-record-nesting.jsonl";
	struct ct_thread *t;
	json_t *all, *r;
	JW_FIELDS(assembly, 1);
	JW_FIELDS(asm_load, 1);
	JW_FIELDS(hr, 1);

	start(path);
	t = ct_thread_get();
	jwf_hex(&assembly, "id", 7);
	jwf_obj(&asm_load, "assembly", &assembly);
	jwf_hr(&hr, "hr", 0);
	ct_emit(t, EV_ASSEMBLY_LOAD, PH_BEGIN, 7, &asm_load);
	ct_emit(t, EV_MODULE_LOAD, PH_BEGIN, 8, NULL);
	ct_emit(t, EV_MODULE_ATTACH, PH_INSTANT, 0, NULL);
	ct_emit(t, EV_MODULE_LOAD, PH_END, 8, &hr);
	ct_emit(t, EV_ASSEMBLY_LOAD, PH_END, 7, NULL);
	ct_emit(t, EV_MODULE_LOAD, PH_END, 99, NULL); /* an end without begin */
	ct_emit(t, EV_RUNTIME_SUSPEND, PH_BEGIN, 0, NULL);
	ct_emit(t, EV_GC, PH_BEGIN, 0, NULL);          /* never ends */
	ct_emit(t, EV_RUNTIME_SUSPEND, PH_END, 0, NULL); /* pops the gc span too */
	ct_emit(t, EV_THREAD_CREATE, PH_INSTANT, 0, NULL);
	ct_trace_close(false);

	all = load(path);
	CHECK(json_array_size(all) == 10, "10 records written (got %zu)", json_array_size(all));
	for (size_t i = 0; i < json_array_size(all); i++) {
		r = json_array_get(all, i);
		if (geti(r, "seq") != (json_int_t)i + 1 || geti(r, "v") != 1 || geti(r, "pid") != getpid() ||
		    geti(r, "tid") != t->tid || !json_object_get(r, "ts") || !json_object_get(r, "thread"))
			break;
		if (i == json_array_size(all) - 1)
			CHECK(1, "every record has v, seq 1..N, ts, pid, tid, thread");
	}
	char *first = NULL;
	FILE *f = fopen(path, "r");
	size_t cap = 0;
	if (f && getline(&first, &cap, f) > 0)
		CHECK(strncmp(first, "{\"v\":1,\"seq\":1,\"ts\":", 20) == 0, "records start with v, seq, ts");
	free(first);
	if (f)
		fclose(f);

	json_t *a = json_array_get(all, 0), *m = json_array_get(all, 1), *at = json_array_get(all, 2),
	       *me = json_array_get(all, 3), *ae = json_array_get(all, 4), *err = json_array_get(all, 5);
	CHECK(geti(a, "depth") == 0 && !json_object_get(a, "parent") && geti(a, "span") > 0 &&
		      strcmp(gets_(a, "phase"), "begin") == 0,
	      "an outer begin has depth 0, no parent and a span id");
	CHECK(geti(m, "depth") == 1 && geti(m, "parent") == geti(a, "span"), "a nested begin has depth 1 and its parent");
	CHECK(geti(at, "depth") == 2 && geti(at, "parent") == geti(m, "span") && !json_object_get(at, "span"),
	      "an instant inside both has depth 2, the inner parent and no span");
	CHECK(geti(me, "span") == geti(m, "span") && geti(me, "depth") == 1 && json_object_get(me, "dur_ns") &&
		      strcmp(gets_(me, "hr"), "0x00000000") == 0,
	      "an end repeats its begin's span and depth, with dur_ns and the payload");
	CHECK(geti(ae, "span") == geti(a, "span") && geti(ae, "depth") == 0, "the outer end closes at depth 0");
	CHECK(strcmp(gets_(err, "event"), "trace.error") == 0 && strstr(gets_(err, "message"), "module.load"),
	      "an end without a begin becomes a trace.error record");
	json_t *se = json_array_get(all, 8), *after = json_array_get(all, 9);
	CHECK(strcmp(gets_(se, "event"), "runtime.suspend") == 0 && geti(se, "depth") == 0,
	      "an end whose child never ended still closes at its own depth");
	CHECK(geti(after, "depth") == 0 && !json_object_get(after, "parent"),
	      "the record after an unbalanced pair is back at depth 0");
	json_decref(all);
	unlink(path);
}

static pthread_barrier_t handoff_step;

/* The thread that begins two loads, waits while another ends them, then
 * writes one more record. */
static void *load_begins(void *arg)
{
	struct ct_thread *t = ct_thread_get();

	*(int *)arg = t->tid;
	ct_emit_handoff(t, EV_ASSEMBLY_LOAD, PH_BEGIN, 42, NULL);
	ct_emit_handoff(t, EV_MODULE_LOAD, PH_BEGIN, 43, NULL);
	pthread_barrier_wait(&handoff_step);
	pthread_barrier_wait(&handoff_step);
	ct_emit(t, EV_THREAD_CREATE, PH_INSTANT, 0, NULL);
	ct_emit_handoff(t, EV_ASSEMBLY_LOAD, PH_END, 42, NULL); /* ended already */
	return NULL;
}

/* The thread that finishes them, inside a span of its own. */
static void *load_ends(void *arg)
{
	struct ct_thread *t = ct_thread_get();

	*(int *)arg = t->tid;
	pthread_barrier_wait(&handoff_step);
	ct_emit(t, EV_RUNTIME_SUSPEND, PH_BEGIN, 0, NULL);
	ct_emit_handoff(t, EV_MODULE_LOAD, PH_END, 43, NULL);
	ct_emit_handoff(t, EV_ASSEMBLY_LOAD, PH_END, 42, NULL);
	ct_emit(t, EV_RUNTIME_SUSPEND, PH_END, 0, NULL);
	pthread_barrier_wait(&handoff_step);
	return NULL;
}

/* A thread that begins a load and exits before it ends. */
static void *load_exits(void *arg)
{
	struct ct_thread *t = ct_thread_get();

	*(int *)arg = t->tid;
	ct_emit_handoff(t, EV_ASSEMBLY_LOAD, PH_BEGIN, 50, NULL);
	return NULL;
}

/* The record of EV PHASE on TID in ALL; NULL if none. */
/* R's phase: "instant" when omitted, its default (clrtrace-records(5)). */
static const char *phase_of(json_t *r)
{
	return json_object_get(r, "phase") ? gets_(r, "phase") : "instant";
}

static json_t *find_rec(json_t *all, const char *ev, const char *phase, int tid)
{
	for (size_t i = 0; i < json_array_size(all); i++) {
		json_t *r = json_array_get(all, i);

		if (!strcmp(gets_(r, "event"), ev) && !strcmp(phase_of(r), phase) && geti(r, "tid") == tid)
			return r;
	}
	return NULL;
}

/* A load begun on one thread and finished on another (the runtime does it,
 * level by level): the end closes the span where it began and says so. */
static void test_handoff(void)
{
	const char *path = "test-record-handoff.jsonl";
	pthread_t a, b, c;
	int ta = 0, tb = 0, tc = 0;
	json_t *all;

	start(path);
	pthread_barrier_init(&handoff_step, NULL, 2);
	pthread_create(&a, NULL, load_begins, &ta);
	pthread_create(&b, NULL, load_ends, &tb);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	pthread_barrier_destroy(&handoff_step);
	pthread_create(&c, NULL, load_exits, &tc);
	pthread_join(c, NULL);
	ct_emit_handoff(ct_thread_get(), EV_ASSEMBLY_LOAD, PH_END, 50, NULL);
	ct_trace_close(false);

	all = load(path);
	json_t *ab = find_rec(all, "assembly.load", "begin", ta), *mb = find_rec(all, "module.load", "begin", ta),
	       *sb = find_rec(all, "runtime.suspend", "begin", tb), *me = find_rec(all, "module.load", "end", tb),
	       *ae = find_rec(all, "assembly.load", "end", tb), *se = find_rec(all, "runtime.suspend", "end", tb),
	       *after = find_rec(all, "thread.create", "instant", ta), *err = find_rec(all, "trace.error", "instant", ta),
	       *ob = find_rec(all, "assembly.load", "begin", tc),
	       *oe = find_rec(all, "assembly.load", "end", ct_thread_get()->tid);
	CHECK(ab && mb && sb && me && ae && se && after && err && ob && oe, "every record is there");
	if (!(ab && mb && sb && me && ae && se && after && err && ob && oe))
		goto out;
	CHECK(geti(me, "span") == geti(mb, "span") && geti(ae, "span") == geti(ab, "span") &&
		      geti(me, "begin_tid") == ta && geti(ae, "begin_tid") == ta && json_object_get(ae, "dur_ns"),
	      "the ends on the other thread close the spans begun on the first, name it (begin_tid) and time them");
	CHECK(geti(me, "depth") == 1 && geti(me, "parent") == geti(sb, "span") && geti(ae, "depth") == 1 &&
		      geti(ae, "parent") == geti(sb, "span"),
	      "they sit in their own thread's nesting like instants");
	CHECK(geti(se, "depth") == 0 && geti(se, "span") == geti(sb, "span"), "that thread's own span still closes");
	CHECK(geti(after, "depth") == 0 && !json_object_get(after, "parent") &&
		      geti(after, "seq") > geti(ae, "seq"),
	      "the first thread's next record is back at depth 0, numbered after the ends");
	CHECK(strstr(gets_(err, "message"), "assembly.load ended without a begin") != NULL,
	      "an end of a load already ended elsewhere is a trace.error");
	CHECK(json_object_get(ab, "begin_tid") == NULL && json_object_get(me, "begin_tid") && !json_object_get(se, "begin_tid"),
	      "only the ends on another thread carry begin_tid");
	CHECK(geti(oe, "span") == geti(ob, "span") && geti(oe, "begin_tid") == tc,
	      "a load whose thread exited can still be ended by another");
	{
		struct jf_meta m = { .ident = "t", .event = EV_ASSEMBLY_LOAD, .depth = 1, .tid = tb };
		struct jf_entry e = { 0 };
		char *line = json_dumps(ae, JSON_COMPACT), want[48], tail[48];
		const struct iovec *iov;
		size_t n = 0;
		bool found = false, in_message = false;

		snprintf(want, sizeof(want), "CLRTRACE_BEGIN_TID=%d", ta);
		snprintf(tail, sizeof(tail), ", begun on thread %d", ta);
		iov = line && jf_build(&e, line, strlen(line), &m) == 0 ? jf_iovec(&e, &n) : NULL;
		for (size_t i = 0; iov && i < n; i++) {
			found |= iov[i].iov_len == strlen(want) && memcmp(iov[i].iov_base, want, iov[i].iov_len) == 0;
			in_message |= iov[i].iov_len > 8 && memcmp(iov[i].iov_base, "MESSAGE=", 8) == 0 &&
				      iov[i].iov_len >= strlen(tail) &&
				      memcmp((const char *)iov[i].iov_base + iov[i].iov_len - strlen(tail), tail,
					     strlen(tail)) == 0;
		}
		CHECK(found, "its journal entry says %s", want);
		CHECK(in_message, "and its MESSAGE ends with '%s'", tail);
		jf_entry_done(&e);
		free(line);
	}
out:
	json_decref(all);
	unlink(path);
}

static void *thread_main(void *arg)
{
	struct ct_thread *t = ct_thread_get();

	for (int i = 0; i < 500; i++) {
		ct_emit(t, EV_EXCEPTION_SEARCH, PH_BEGIN, 1, NULL);
		ct_emit(t, EV_EXCEPTION_CATCHER_FOUND, PH_INSTANT, 0, NULL);
		ct_emit(t, EV_EXCEPTION_SEARCH, PH_END, 1, NULL);
	}
	return NULL;
}

/* Four threads' records, gap-free and nested per thread, with the trace
 * closed as at exit (EXITING, the writer thread busy every millisecond
 * and left without a join) or as at detach. */
static void test_threads(bool exiting)
{
	const char *path = "test-record-threads.jsonl";
	pthread_t th[4];
	json_t *all;
	char *seen;
	bool gapless = true, nested = true;

	start_flush_ms = exiting ? 1 : 0;
	start(path);
	start_flush_ms = 0;
	for (int i = 0; i < 4; i++)
		pthread_create(&th[i], NULL, thread_main, NULL);
	for (int i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	ct_trace_close(exiting);
	all = load(path);
	CHECK(json_array_size(all) == 6000, "4 threads x 1500 records all written (got %zu)%s",
	      json_array_size(all), exiting ? ", closed as at exit" : "");
	seen = calloc(6001, 1);
	json_int_t base = geti(json_array_get(all, 0), "seq") - 1;
	for (size_t i = 0; i < json_array_size(all); i++) {
		json_t *r = json_array_get(all, i);
		json_int_t s = geti(r, "seq") - base;

		if (s < 1 || s > 6000 || seen[s]++ || s != (json_int_t)i + 1)
			gapless = false;
		if ((strcmp(phase_of(r), "instant") == 0) != (geti(r, "depth") == 1))
			nested = false;
	}
	CHECK(gapless, "seq is gap-free and in file order across threads%s", exiting ? ", closed as at exit" : "");
	CHECK(nested, "each thread's nesting is its own");
	free(seen);
	json_decref(all);
	unlink(path);
}

static void test_drops(void)
{
	const char *path = "test-record-drops.jsonl";
	struct ct_thread *t;
	json_t *all, *d = NULL;

	start(path);
	t = ct_thread_get();
	ct_emit(t, EV_THREAD_CREATE, PH_INSTANT, 0, NULL);
	ct_flush_all(false);
	json_int_t first = geti(json_array_get(all = load(path), 0), "seq");
	json_decref(all);
	for (int i = 0; i < 4; i++)
		ct_emit(t, EV_THREAD_CREATE, PH_INSTANT, 0, NULL);
	ct_flush_all(false);
	unlink(path); /* the file is removed while in use */
	for (int i = 0; i < 3; i++)
		ct_emit(t, EV_THREAD_CREATE, PH_INSTANT, 0, NULL);
	usleep(30 * 1000); /* past the 10 ms the sink waits between two looks */
	ct_flush_all(false); /* notices, counts 5 lost, reopens */
	ct_emit(t, EV_THREAD_DESTROY, PH_INSTANT, 0, NULL);
	ct_trace_close(false);
	all = load(path);
	for (size_t i = 0; i < json_array_size(all); i++)
		if (strcmp(gets_(json_array_get(all, i), "event"), "trace.dropped") == 0)
			d = json_array_get(all, i);
	CHECK(d && geti(d, "count") == 5 && strcmp(gets_(d, "sink"), "file") == 0 && strstr(gets_(d, "reason"), "removed"),
	      "records that went into a removed file are counted in trace.dropped");
	CHECK(json_array_size(all) >= 5 && geti(json_array_get(all, 0), "seq") == first + 5,
	      "the new file starts 5 seqs on: the gap is the 5 dropped");
	json_decref(all);
	unlink(path);

	/* a full disk: the file size limit makes every write fail (EFBIG) */
	struct rlimit old, zero = { 0, 0 };
	said[0] = 0;
	signal(SIGXFSZ, SIG_IGN);
	getrlimit(RLIMIT_FSIZE, &old);
	zero.rlim_max = old.rlim_max;
	start(path);
	setrlimit(RLIMIT_FSIZE, &zero);
	t = ct_thread_get();
	for (int i = 0; i < 3; i++)
		ct_emit(t, EV_THREAD_CREATE, PH_INSTANT, 0, NULL);
	ct_trace_close(false);
	setrlimit(RLIMIT_FSIZE, &old);
	CHECK(strstr(said, "being lost: file size limit exceeded") && strstr(said, ": file size limit exceeded\n") && strstr(said, "\n3 of "),
	      "a sink that cannot write says so on stderr, at the time and at exit (%s)", said);
	unlink(path);
}

/* Lines of PATH that are not JSON, whether it ends with a newline, and
 * (if GOOD) how many are. */
static int bad_lines(const char *path, bool *ends_nl, size_t *good)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int bad = 0;

	*ends_nl = true;
	while (f && (n = getline(&line, &cap, f)) > 0) {
		json_error_t e;
		json_t *r = json_loadb(line, (size_t)n, 0, &e);

		bad += !r;
		if (good)
			*good += !!r;
		json_decref(r);
		*ends_nl = line[n - 1] == '\n';
	}
	free(line);
	if (f)
		fclose(f);
	return bad;
}

/* Set or clear the append-only attribute of PATH (root, ext4 and the
 * like); false where it cannot be. */
static bool append_only(const char *path, bool on)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), flags = 0;
	bool ok = fd >= 0 && ioctl(fd, FS_IOC_GETFLAGS, &flags) == 0;

	if (ok) {
		flags = on ? flags | FS_APPEND_FL : flags & ~FS_APPEND_FL;
		ok = ioctl(fd, FS_IOC_SETFLAGS, &flags) == 0;
	}
	if (fd >= 0)
		close(fd);
	return ok;
}

/* A buffer the disk takes only part of is cut off again whole (or, in an
 * append-only file that cannot be cut, its whole lines stay and the rest
 * of the torn one is written first when space comes back), the rest is
 * counted; the records after the loss wait for the trace.dropped, which
 * comes first and equals the seq gap. */
static void test_partial(bool cannot_cut)
{
	const char *path = cannot_cut ? "test-record-partial-a.jsonl" : "test-record-partial.jsonl";
	const char *how = cannot_cut ? "append-only file: " : "";
	struct rlimit old, lim;
	struct ct_thread *t;
	json_t *all, *d = NULL, *sh = NULL;
	json_int_t prev = 0, gap = 0, counts = 0;
	bool drop_first = true; /* every gap's next record is a trace.dropped */
	bool ends_nl;
	int bad;

	said[0] = 0;
	signal(SIGXFSZ, SIG_IGN);
	getrlimit(RLIMIT_FSIZE, &old);
	start(path);
	if (cannot_cut && !append_only(path, true)) {
		printf("skip: cannot make %s append-only (needs root and a file system with attributes)\n", path);
		ct_trace_close(false);
		unlink(path);
		return;
	}
	t = ct_thread_get();
	for (int i = 0; i < 100; i++)
		ct_emit(t, EV_THREAD_CREATE, PH_INSTANT, 0, NULL);
	/* room for a few records and a torn one: the write stops mid-line */
	lim = (struct rlimit){ 1000, old.rlim_max };
	setrlimit(RLIMIT_FSIZE, &lim);
	ct_flush_all(false);
	size_t kept = 0;
	bad = bad_lines(path, &ends_nl, &kept);
	if (cannot_cut) {
		CHECK(kept > 0 && kept < 100 && bad == 1 && !ends_nl,
		      "%sa partial write keeps %zu whole records and the torn line it cannot cut", how, kept);
		kept++; /* the torn one is completed later */
	} else
		CHECK(kept == 0 && bad == 0,
		      "a partial write is cut off whole: %zu records and %d bad lines left", kept, bad);
	for (int i = 0; i < 50; i++) /* still full: all lost */
		ct_emit(t, EV_THREAD_CREATE, PH_INSTANT, 0, NULL);
	ct_flush_all(false);
	setrlimit(RLIMIT_FSIZE, &old); /* space again */
	for (int i = 0; i < 10; i++)
		ct_emit(t, EV_THREAD_DESTROY, PH_INSTANT, 0, NULL);
	ct_flush_all(false);
	ct_emit(t, EV_THREAD_DESTROY, PH_INSTANT, 0, NULL); /* brings the report */
	struct ct_totals tot;
	JW_FIELDS(totals, 2);
	JW_FIELDS(shutdown, 1);
	ct_trace_totals(&tot);
	ct_emit(t, EV_THREAD_CREATE, PH_INSTANT, 0, NULL); /* after the seal: not traced */
	jwf_int(&totals, "records", (int64_t)tot.records + 1);
	jwf_int(&totals, "dropped", (int64_t)tot.dropped);
	jwf_obj(&shutdown, "totals", &totals);
	ct_emit(t, EV_RUNTIME_SHUTDOWN, PH_INSTANT, 0, &shutdown);
	ct_emit(t, EV_THREAD_CREATE, PH_INSTANT, 0, NULL); /* after runtime.shutdown: not traced */
	ct_trace_close(false);
	if (cannot_cut)
		append_only(path, false);

	bad = bad_lines(path, &ends_nl, NULL);
	all = load(path);
	for (size_t i = 0; i < json_array_size(all); i++) {
		json_t *r = json_array_get(all, i);

		bool is_drop = strcmp(gets_(r, "event"), "trace.dropped") == 0;

		if (is_drop) {
			d = r;
			counts += geti(r, "count");
		}
		if (strcmp(gets_(r, "event"), "runtime.shutdown") == 0)
			sh = r;
		if (geti(r, "seq") > prev + 1 && !is_drop)
			drop_first = false;
		gap += geti(r, "seq") - prev - 1;
		prev = geti(r, "seq");
	}
	/* lost: the records of the failed writes, those held back until the
	 * trace.dropped could be written, and any trace.dropped that could not */
	json_int_t lost = sh ? geti(json_object_get(sh, "totals"), "dropped") : -1;
	CHECK(bad == 0 && ends_nl, "%severy line is a record after space came back", how);
	CHECK(lost >= 150 - (json_int_t)kept && drop_first,
	      "%severy gap is followed at once by a trace.dropped (%lld lost, at least %lld)", how, (long long)lost,
	      (long long)(150 - (json_int_t)kept));
	CHECK(d && counts == lost && gap == lost && strcmp(gets_(d, "reason"), "file size limit exceeded") == 0,
	      "%strace.dropped counts each lost record once: %lld, the seq gap is %lld, %lld lost", how,
	      (long long)counts, (long long)gap, (long long)lost);
	CHECK(sh && sh == json_array_get(all, json_array_size(all) - 1) &&
		      geti(sh, "seq") == geti(json_object_get(sh, "totals"), "records") &&
		      geti(json_object_get(sh, "totals"), "dropped") == lost,
	      "%sruntime.shutdown is the last record, its totals final (records = its seq, dropped = the gap)", how);
	CHECK(strstr(said, "being lost: file size limit exceeded") && strstr(said, "records could not be written"),
	      "%sthe loss is said on stderr at the time and at exit", how);
	json_decref(all);
	unlink(path);
}

/* The escaping rules, one byte at a time: what jw_str (which looks at
 * eight bytes at a time) must write is what ct_json_str, the writer of
 * the records the CLI and pending write, does (common/record-head.c). */
static void escape_ref(struct strbuf *b, const unsigned char *p)
{
	ct_json_str(b, (const char *)p);
}

/* jw_str against the byte-at-a-time rules: every special byte at every
 * place in and around an eight-byte word, and random strings. */
static void test_jsonw_strings(void)
{
	static const unsigned char special[] = { '"', '\\', '\n', 0x01, 0x1f, 0x7f, 0x80, 0xc3, 0xe2, 0xf0, 0xff, ' ', '~' };
	unsigned char s[40];
	unsigned bad = 0, cases = 0, seed = 12345;

	for (size_t len = 1; len < 20; len++)
		for (size_t at = 0; at < len; at++)
			for (size_t k = 0; k < sizeof(special); k++, cases++) {
				struct jw w = { 0 };
				struct strbuf ref = { 0 };

				memset(s, 'a', len);
				s[len] = 0;
				s[at] = special[k];
				jw_str(&w, (const char *)s);
				escape_ref(&ref, s);
				bad += w.b.len != ref.len || memcmp(w.b.s, ref.s, ref.len) != 0;
				jw_free(&w);
				strbuf_free(&ref);
			}
	for (int i = 0; i < 20000; i++, cases++) {
		struct jw w = { 0 };
		struct strbuf ref = { 0 };
		size_t len = (seed = seed * 1103515245u + 12345u) % 39;

		for (size_t j = 0; j < len; j++) {
			seed = seed * 1103515245u + 12345u;
			s[j] = (unsigned char)((seed >> 16) % 255 + 1);
		}
		s[len] = 0;
		jw_str(&w, (const char *)s);
		escape_ref(&ref, s);
		bad += w.b.len != ref.len || memcmp(w.b.s, ref.s, ref.len) != 0;
		jw_free(&w);
		strbuf_free(&ref);
	}
	CHECK(bad == 0, "jw_str writes what the byte-at-a-time rules write (%u of %u strings differ)", bad, cases);
}

static void test_jsonw(void)
{
	struct jw w = { 0 };
	json_t *v, *obj = json_pack("{s:s,s:[i,b,n],s:{s:b}}", "k", "v", "a", -3, 1, "o", "x", 1);
	json_error_t e;
	JW_FIELDS(o, 1);
	JW_FIELDS(f, 3);

	jwf_str(&f, "k", "v");
	jwf_raw(&f, "a", "[-3,true,null]", 14);
	jwf_bool(&o, "x", true);
	jwf_obj(&f, "o", &o);

	jw_raw(&w, "[", 1);
	jw_str(&w, "q\"b\\s\n\x01 \xc3\xa9 \xff");
	jw_raw(&w, ",", 1);
	jw_object(&w, &f);
	jw_raw(&w, ",", 1);
	jw_hex(&w, 0xabc);
	jw_raw(&w, ",", 1);
	jw_i64(&w, -9000000000LL);
	jw_raw(&w, "]", 1);
	v = json_loadb(w.b.s, w.b.len, 0, &e);
	CHECK(v != NULL, "the writer's output parses as JSON (%.*s)", (int)w.b.len, w.b.s);
	CHECK(v && strcmp(json_string_value(json_array_get(v, 0)), "q\"b\\s\n\x01 \xc3\xa9 \xef\xbf\xbd") == 0,
	      "strings escape quotes, backslashes and control bytes; bad UTF-8 becomes U+FFFD");
	CHECK(v && json_equal(json_array_get(v, 1), obj), "a builder's object reads back as jansson builds it");
	CHECK(v && strcmp(json_string_value(json_array_get(v, 2)), "0xabc") == 0 &&
		      json_integer_value(json_array_get(v, 3)) == -9000000000LL,
	      "hex ids and negative integers");
	json_decref(v);
	json_decref(obj);
	jw_free(&w);
	test_jsonw_strings();
}

/* Integers are written as printf writes them, at every length and on a
 * line that must grow for them. */
static void test_jsonw_u64(void)
{
	static const uint64_t v[] = { 0, 9, 10, 99, 100, 99999999, 100000000, 1000000000000000000u,
				      1795404877932407906u, UINT64_MAX };
	unsigned bad = 0;

	for (size_t i = 0; i < ELEMENTSOF(v); i++) {
		struct jw w = { 0 };
		char want[32];

		snprintf(want, sizeof(want), "%" PRIu64, v[i]);
		jw_u64(&w, v[i]);
		bad += !w.b.s || strcmp(w.b.s, want) != 0 || w.b.len != strlen(want);
		jw_free(&w);
	}
	CHECK(bad == 0, "jw_u64 writes what printf writes (%u of %zu differ)", bad, ELEMENTSOF(v));
}

/* A record's ts is written from the thread's copy of its upper digits: a
 * change of those digits, and a ts too small to have them, come out right. */
static void test_ts(void)
{
	const char *path = "test-record-ts.jsonl";
	static const uint64_t ts[] = { 1795404877932407906u, 1795404877999999999u, 1795404878000000000u,
				       1795404878000000001u, 5, 100000000u, 1795404878000000002u,
				       9223372036854775807u };
	struct ct_thread *t;
	unsigned bad = 0;
	json_t *all;

	start(path);
	t = ct_thread_get();
	for (size_t i = 0; i < ELEMENTSOF(ts); i++) {
		t->ts_replay = ts[i];
		ct_emit(t, EV_THREAD_CREATE, PH_INSTANT, 0, NULL);
	}
	t->ts_replay = 0;
	ct_trace_close(false);
	all = load(path);
	CHECK(json_array_size(all) == ELEMENTSOF(ts), "%zu records written (got %zu)", ELEMENTSOF(ts),
	      json_array_size(all));
	for (size_t i = 0; i < json_array_size(all) && i < ELEMENTSOF(ts); i++)
		bad += (uint64_t)geti(json_array_get(all, i), "ts") != ts[i];
	CHECK(bad == 0, "each record's ts is the time it was given (%u of %zu differ)", bad, ELEMENTSOF(ts));
	json_decref(all);
	unlink(path);
}

/* A typed payload is written byte for byte as jansson writes the same
 * members (core/jsonw.h). */
static void test_fields(void)
{
	static const char searched[] = "[\"Program.Thrower\",\"q\\\"\\\\\xc3\xa9\"]";
	struct jw a = { 0 }, b = { 0 };
	json_t *list = json_pack("[s,s]", "Program.Thrower", "q\"\\\xc3\xa9");
	json_t *obj = json_pack("{s:s,s:n,s:i,s:b,s:b,s:n,s:{s:I},s:O,s:s,s:s}", "function", "Program.Catcher", "nothing",
				"dur_ns", -17, "rethrow", 0, "boundary", 1, "rethrow_of", "exception", "id",
				(json_int_t)4200000000LL, "searched", list, "plain", "", "odd", "tab\there \xc3\xa9");
	const struct jw_field f[] = {
		{ .key = "function", .kind = JW_STR, .s = "Program.Catcher" },
		{ .key = "nothing", .kind = JW_STR, .s = NULL },
		{ .key = "dur_ns", .kind = JW_INT, .i = -17 },
		{ .key = "rethrow", .kind = JW_BOOL, .b = false },
		{ .key = "boundary", .kind = JW_BOOL, .b = true },
		{ .key = "rethrow_of", .kind = JW_NULL },
		{ .key = "exception", .kind = JW_IDREF, .i = 4200000000LL },
		{ .key = "searched", .kind = JW_JSON, .s = searched, .len = sizeof(searched) - 1 },
		{ .key = "plain", .kind = JW_STR, .s = "" },
		{ .key = "odd", .kind = JW_STR, .s = "tab\there \xc3\xa9" },
	};
	char *text = json_dumps(obj, JSON_COMPACT | JSON_PRESERVE_ORDER);

	/* the members of the jansson object, without its braces */
	jw_raw(&a, ",", 1);
	jw_raw(&a, text + 1, strlen(text) - 2);
	free(text);
	jw_fields(&b, f, sizeof(f) / sizeof(f[0]));
	CHECK(!a.b.oom && !b.b.oom && a.b.len == b.b.len && memcmp(a.b.s, b.b.s, a.b.len) == 0,
	      "typed fields write what the same jansson members write (%.*s)", (int)b.b.len, b.b.s);
	json_decref(obj);
	json_decref(list);
	jw_free(&a);
	jw_free(&b);
}

/* The builder: nested objects, ids and HRESULTs as the records spell them;
 * a field past its capacity is left out and counted, nothing written past
 * the caller's array. */
static void test_fields_builder(void)
{
	static const char want[] = "{\"target\":{\"id\":\"0x7f00ab\"},\"hr\":\"0x80131509\",\"none\":null,"
				   "\"list\":[1,2],\"k\":3,\"in\":true}";
	struct jw w = { 0 };
	JW_FIELDS(sub, 1);
	JW_FIELDS(in, 1);
	JW_FIELDS(f, 6);
	struct {
		struct jw_field f[2];
		struct jw_field guard;
	} small;
	struct jw_fields s = { .f = small.f, .cap = 2 };

	jwf_hex(&sub, "id", 0x7f00ab);
	jwf_bool(&in, "in", true);
	jwf_obj(&f, "target", &sub);
	jwf_hr(&f, "hr", 0x80131509u);
	jwf_obj(&f, "none", NULL);
	jwf_raw(&f, "list", "[1,2]", 5);
	jwf_int(&f, "k", 3);
	jwf_inline(&f, &in);
	jw_object(&w, &f);
	CHECK(!w.b.oom && strcmp(w.b.s, want) == 0, "the builder writes %s (got %s)", want, w.b.s);
	CHECK(f.lost == 0 && f.n == 6, "six fields in a builder of six (lost %u)", f.lost);
	jw_free(&w);

	memset(&small.guard, 0x5a, sizeof(small.guard));
	jw_fields_strict = false;
	jwf_int(&s, "a", 1);
	jwf_int(&s, "b", 2);
	jwf_int(&s, "c", 3);
	jwf_str(&s, "d", "x");
	jw_fields_strict = true;
	bool guard_intact = true;
	for (size_t i = 0; i < sizeof(small.guard); i++)
		guard_intact &= ((unsigned char *)&small.guard)[i] == 0x5a;
	CHECK(s.n == 2 && s.lost == 2 && guard_intact,
	      "two fields past a capacity of two: left out (n %u), counted (lost %u), nothing written past", s.n,
	      s.lost);
}

/* A record with a deep stack stays one journal entry: its fields stop where
 * sd_journal_sendv would need more than one sendmsg() takes (it refused
 * the whole entry with EINVAL before), and the cut is said. */
static void test_journal_deep(void)
{
	struct jf_entry e = { 0 };
	struct jf_meta m = { .ident = "t", .event = EV_EXCEPTION_SUMMARY, .depth = 0, .tid = 1 };
	struct strbuf line = { 0 };
	const struct iovec *iov;
	size_t n, iovs = 3;
	bool cut = false, json = false;

	strbuf_puts(&line, "{\"v\":1,\"seq\":1,\"event\":\"exception.summary\",\"phase\":\"instant\",\"depth\":0,"
			   "\"note\":\"two\\nlines\",\"stack\":[");
	for (int i = 0; i < 400; i++)
		strbuf_printf(&line, "%s{\"function\":\"A.B.Rec\",\"token\":100663297,\"il_offset\":%d}", i ? "," : "", i);
	strbuf_puts(&line, "]}");
	CHECK(!line.oom && jf_build(&e, line.s, line.len, &m) == 0, "a record with a 400-frame stack builds");
	iov = jf_iovec(&e, &n);
	for (size_t i = 0; iov && i < n; i++) {
		iovs += memchr(iov[i].iov_base, '\n', iov[i].iov_len) ? 5 : 2;
		cut |= iov[i].iov_len == strlen("CLRTRACE_FIELDS_TRUNCATED=1") &&
		       memcmp(iov[i].iov_base, "CLRTRACE_FIELDS_TRUNCATED=1", iov[i].iov_len) == 0;
		json |= iov[i].iov_len > 14 && memcmp(iov[i].iov_base, "CLRTRACE_JSON=", 14) == 0;
	}
	CHECK(iovs <= JF_IOV_MAX, "the entry fits one sendmsg (%zu iovecs of %d)", iovs, JF_IOV_MAX);
	CHECK(cut && json, "the cut is said (CLRTRACE_FIELDS_TRUNCATED) and CLRTRACE_JSON keeps the whole record");
	jf_entry_done(&e);
	strbuf_free(&line);
}

/* exception.error's PRIORITY follows its fate and handler.final, every
 * other record's is its event's; the entry says it. */
static void test_journal_priority(void)
{
	static const struct {
		const char *payload;
		enum ct_event ev;
		int want;
	} cases[] = {
		{ "\"fate\":\"unhandled\",\"handler\":null", EV_EXCEPTION_ERROR, 2 },
		{ "\"fate\":\"handled_by_framework\",\"handler\":{\"kind\":\"framework\",\"label\":\"Kestrel (500)\","
		  "\"final\":true}", EV_EXCEPTION_ERROR, 3 },
		{ "\"fate\":\"handled_by_framework\",\"handler\":{\"kind\":\"framework\",\"label\":\"Polly\","
		  "\"final\":false}", EV_EXCEPTION_ERROR, 6 },
		{ "\"fate\":\"handled\",\"handler\":{\"kind\":\"program\",\"final\":true}", EV_EXCEPTION_ERROR, 6 },
		{ "\"fate\":\"stored\",\"handler\":{\"kind\":\"async\",\"final\":false}", EV_EXCEPTION_ERROR, 6 },
		{ "\"fate\":\"wrapped\",\"handler\":null", EV_EXCEPTION_ERROR, 6 },
		{ "\"fate\":\"open\",\"handler\":null", EV_EXCEPTION_ERROR, 4 },
		{ "\"fate\":\"no such fate\"", EV_EXCEPTION_ERROR, 6 },
		{ "\"error\":3", EV_EXCEPTION_THROW, 7 },
		{ "\"error\":3", EV_EXCEPTION_CATCH, 7 },
		{ "\"error\":3", EV_EXCEPTION_UNHANDLED, 2 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct jf_entry e = { 0 };
		struct jf_meta m = { .ident = "t", .event = cases[i].ev, .depth = 0, .tid = 1 };
		char line[512], want[16];
		const struct iovec *iov;
		bool found = false;
		size_t n;

		snprintf(line, sizeof(line), "{\"v\":1,\"seq\":1,\"event\":\"%s\",\"phase\":\"instant\",%s}",
			 ct_events[cases[i].ev].name, cases[i].payload);
		snprintf(want, sizeof(want), "PRIORITY=%d", cases[i].want);
		iov = jf_build(&e, line, strlen(line), &m) == 0 ? jf_iovec(&e, &n) : NULL;
		for (size_t k = 0; iov && k < n; k++)
			found |= iov[k].iov_len == strlen(want) && memcmp(iov[k].iov_base, want, strlen(want)) == 0;
		CHECK(found, "%s {%s}: %s", ct_events[cases[i].ev].name, cases[i].payload, want);
		jf_entry_done(&e);
	}
}

/* A family of the test's own, counting what the core asks of it. */
static unsigned fake_slot;
static int fake_freed, fake_before, fake_resets;

static void fake_init(unsigned slot)
{
	fake_slot = slot;
}

static void fake_free(struct ct_thread *t, void *s)
{
	fake_freed++;
	free(s);
}

static void fake_before_record(struct ct_thread *t, void *s)
{
	fake_before++;
}

static void fake_reset(void)
{
	fake_resets++;
}

static const struct ct_family fake_family = {
	.name = "fake",
	.init = fake_init,
	.thread_free = fake_free,
	.before_record = fake_before_record,
	.reset = fake_reset,
};

static pthread_barrier_t gen_barrier;

/* A thread with no family state and a span open when the trace ends; it
 * writes again in the next trace. */
static void *generation_thread(void *arg)
{
	ct_emit(ct_thread_get(), EV_GC, PH_BEGIN, 0, NULL);
	pthread_barrier_wait(&gen_barrier); /* the span is open */
	pthread_barrier_wait(&gen_barrier); /* the next trace began */
	ct_emit(ct_thread_get(), EV_THREAD_CREATE, PH_INSTANT, 0, NULL);
	return NULL;
}

/* A detach, then another trace in the same process (re-attach): nothing a
 * thread kept of the first shows in the second.  The main thread (its
 * lock free) forgets its family state at the end of the trace; the other
 * thread, with spans only, forgets them when it is next seen. */
static void test_generation(void)
{
	const char *p1 = "test-record-gen1.jsonl", *p2 = "test-record-gen2.jsonl";
	const struct ct_family *table[] = { &fake_family };
	struct ct_thread *t;
	pthread_t th;
	json_t *all;

	ct_families_register(table, 1);
	pthread_barrier_init(&gen_barrier, NULL, 2);
	start(p1);
	t = ct_thread_get();
	ct_family_state_set(t, fake_slot, malloc(8));
	ct_emit(t, EV_RUNTIME_SUSPEND, PH_BEGIN, 0, NULL);
	CHECK(fake_before == 1, "a thread with family state: before_record called once per record (got %d)", fake_before);
	pthread_create(&th, NULL, generation_thread, NULL);
	pthread_barrier_wait(&gen_barrier);
	ct_trace_close(false);
	ct_families_trace_end();
	CHECK(fake_resets == 1, "the trace's end resets the family (got %d)", fake_resets);
	CHECK(fake_freed == 1 && !ct_family_state(t, fake_slot),
	      "a thread whose lock is free forgets its family state at the trace's end (freed %d)", fake_freed);
	start(p2);
	pthread_barrier_wait(&gen_barrier);
	ct_emit(ct_thread_get(), EV_THREAD_CREATE, PH_INSTANT, 0, NULL);
	pthread_join(th, NULL);
	ct_trace_close(false);
	CHECK(fake_before == 1, "no family state in the new trace: before_record not called (got %d)", fake_before);
	CHECK(fake_freed == 1, "the state is freed once (got %d)", fake_freed);
	all = load(p2);
	CHECK(json_array_size(all) == 2, "2 records in the second trace (got %zu)", json_array_size(all));
	for (size_t i = 0; i < json_array_size(all); i++) {
		json_t *r = json_array_get(all, i);

		CHECK(geti(r, "depth") == 0 && !geti(r, "parent"),
		      "second trace, tid %" JSON_INTEGER_FORMAT ": depth 0, no parent (no span of the first trace; got %"
		      JSON_INTEGER_FORMAT ", %" JSON_INTEGER_FORMAT ")", geti(r, "tid"), geti(r, "depth"), geti(r, "parent"));
	}
	json_decref(all);
	pthread_barrier_destroy(&gen_barrier);
	ct_families_register(NULL, 0);
	unlink(p1);
	unlink(p2);
}

/* min-free's floor: the percentage of a small file system, at most 4 GiB
 * of a large one (journald's cap). */
static void test_min_free_floor(void)
{
	CHECK(ct_min_free_floor(25600, 4096, 10) == 10485760, "10%% of 100 MiB is 10 MiB");
	CHECK(ct_min_free_floor(65536000, 4096, 10) == ((uint64_t)4 << 30),
	      "10%% of 250 GiB is capped at 4 GiB");
	CHECK(ct_min_free_floor(65536000, 4096, 0) == 0, "0%% is no floor");
}

int main(void)
{
	jw_fields_strict = true;
	test_min_free_floor();
	test_journal_priority();
	test_journal_deep();
	test_jsonw();
	test_jsonw_u64();
	test_fields();
	test_fields_builder();
	test_fields_lost();
	test_nesting();
	test_ts();
	test_threads(false);
	test_threads(true); /* the next trace joins the writer left running */
	test_handoff();
	test_drops();
	test_partial(false);
	test_partial(true);
	test_generation();
	printf("%s: %d failure(s)\n", failures ? "FAIL" : "PASS", failures);
	return failures ? 1 : 0;
}
