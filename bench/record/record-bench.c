/* SPDX-License-Identifier: MIT */
/*
 * bench/record: the cost of clrtrace's record path alone (ct_emit → the
 * jsonw writer on strbuf → emit lock → file sink buffer), without a
 * runtime, linked from the profiler's internal libraries; the sinks are
 * opened with a spec of its own.
 *
 * It emits, per simulated exception, the records the exception tracer
 * writes for Throw.dll's shape (throw in Thrower, a finally in WithFinally,
 * caught in Catcher, 3 frames between): throw, search span with 4 frame
 * spans, catcher_found, unwind span with 3 frame spans, finally span, catch
 * span and the summary: 25 records.  The payloads follow
 * src/exceptions/machine.h; the real machine's may differ a little in
 * size, not in kind.
 *
 * Usage: record-bench FILE [EXCEPTIONS [THREADS [full|lean|bare|story|typed]]]
 * "lean" writes only exception.throw and exception.summary (2 records);
 * "bare" the full 25 records without payloads (the common fields alone: the
 * floor for payloads written without jansson objects).
 * "story" writes the 7 records of the default categories (frames off) with
 * jansson payloads, as the exception machine did before typed payloads;
 * "typed" the same 7 records through ct_emit_fields, as it does now.
 * Prints ns per exception and per record; FILE is the trace written
 * (/dev/null leaves the kernel's page-cache copy out).
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "profiler/core/emit.h"
#include "profiler/core/say.h"
#include "profiler/core/state.h"
#include "profiler/core/thread.h"
#include "profiler/sinks/sinks.h"

static const char *const frames[] = {
	"Program.Thrower", "Program.WithFinally", "Program.PassThrough", "Program.Catcher",
};

static int bare; /* the full sequence without payloads: common fields only */

static json_t *exc_id(uint64_t id)
{
	if (bare)
		return NULL;
	return json_pack("{s:{s:I}}", "exception", "id", (json_int_t)id);
}

static json_t *exc_fn(uint64_t id, const char *fn)
{
	if (bare)
		return NULL;
	return json_pack("{s:{s:I},s:s}", "exception", "id", (json_int_t)id, "function", fn);
}

static int lean; /* only exception.throw and exception.summary */
static int records_per_exception = 25;

/* One exception's records, as the exception tracer emits them. */
static void one_exception(struct ct_thread *t, uint64_t id)
{
	json_t *full;

	if (bare) {
		ct_emit(t, EV_EXCEPTION_THROW, PH_INSTANT, 0, NULL);
		goto frames;
	}
	full = json_pack("{s:I,s:s,s:s,s:s}", "id", (json_int_t)id,
			 "type", "System.InvalidOperationException", "message", "boom",
			 "hresult", "0x80131509");
	ct_emit(t, EV_EXCEPTION_THROW, PH_INSTANT, 0,
		json_pack("{s:O,s:b,s:n,s:n}", "exception", full, "rethrow", 0, "rethrow_of", "nested_in"));
	if (lean)
		goto summary;
frames:
	ct_emit(t, EV_EXCEPTION_SEARCH, PH_BEGIN, id, exc_id(id));
	for (int i = 0; i < 4; i++) {
		ct_emit(t, EV_EXCEPTION_SEARCH_FRAME, PH_BEGIN, i + 1, exc_fn(id, frames[i]));
		if (i == 3)
			ct_emit(t, EV_EXCEPTION_CATCHER_FOUND, PH_INSTANT, 0, exc_fn(id, frames[i]));
		ct_emit(t, EV_EXCEPTION_SEARCH_FRAME, PH_END, i + 1, exc_fn(id, frames[i]));
	}
	ct_emit(t, EV_EXCEPTION_SEARCH, PH_END, id, exc_id(id));
	ct_emit(t, EV_EXCEPTION_UNWIND, PH_BEGIN, id, exc_id(id));
	for (int i = 0; i < 3; i++) {
		ct_emit(t, EV_EXCEPTION_UNWIND_FRAME, PH_BEGIN, i + 1, exc_fn(id, frames[i]));
		if (i == 1) {
			ct_emit(t, EV_EXCEPTION_FINALLY, PH_BEGIN, i + 1, exc_fn(id, frames[i]));
			ct_emit(t, EV_EXCEPTION_FINALLY, PH_END, i + 1, exc_fn(id, frames[i]));
		}
		ct_emit(t, EV_EXCEPTION_UNWIND_FRAME, PH_END, i + 1, exc_fn(id, frames[i]));
	}
	ct_emit(t, EV_EXCEPTION_UNWIND, PH_END, id, exc_id(id));
	ct_emit(t, EV_EXCEPTION_CATCH, PH_BEGIN, 4, exc_fn(id, frames[3]));
	ct_emit(t, EV_EXCEPTION_CATCH, PH_END, 4, exc_fn(id, frames[3]));
	if (bare) {
		ct_emit(t, EV_EXCEPTION_SUMMARY, PH_INSTANT, 0, NULL);
		return;
	}
summary:
	ct_emit(t, EV_EXCEPTION_SUMMARY, PH_INSTANT, 0,
		json_pack("{s:o,s:s,s:s,s:s,s:[ssss],s:[],s:[s],s:[sss],s:b,s:n,s:n,s:[],s:n,s:I}",
			  "exception", full, "outcome", "caught", "thrown_in", frames[0],
			  "caught_in", frames[3], "searched", frames[0], frames[1], frames[2], frames[3],
			  "filters", "finally", frames[1], "unwound", frames[0], frames[1], frames[2],
			  "rethrow", 0, "rethrow_of", "nested_in", "nested", "superseded_by",
			  "dur_ns", (json_int_t)18234));
}

static int story, typed;

/* {"function":FN,"exception":{"id":ID}}, the machine's member order. */
static json_t *fn_exc(uint64_t id, const char *fn)
{
	return json_pack("{s:s,s:{s:I}}", "function", fn, "exception", "id", (json_int_t)id);
} /* the default 7-record story; typed: ct_emit_fields */

/* The story as the machine writes it now: typed payloads, the exception
 * object written once (see one_story). */
static void one_story_typed(struct ct_thread *t, uint64_t id)
{
	/* the machine keeps these lists per exception; built once here */
	static __thread json_t *searched, *filters, *finally, *unwound, *nested;
	if (!searched) {
		searched = json_pack("[ssss]", frames[0], frames[1], frames[2], frames[3]);
		filters = json_array();
		finally = json_pack("[s]", frames[1]);
		unwound = json_pack("[sss]", frames[0], frames[1], frames[2]);
		nested = json_array();
	}
	/* the machine writes the exception object once for its records */
	struct jw x = { 0 };
	jw_raw(&x, "{\"id\":", 6);
	jw_u64(&x, id);
	jw_key(&x, "type");
	jw_str(&x, "System.InvalidOperationException");
	jw_key(&x, "message");
	jw_str(&x, "boom");
	jw_key(&x, "hresult");
	jw_str(&x, "0x80131509");
	jw_raw(&x, "}", 1);
	const char *exc_text = x.b.s;
	size_t exc_len = x.b.len;
	struct jw_field th[] = {
		{ .key = "exception", .kind = JW_JSON, .s = exc_text, .len = exc_len },
		{ .key = "rethrow", .kind = JW_BOOL, .b = false },
		{ .key = "rethrow_of", .kind = JW_NULL },
		{ .key = "nested_in", .kind = JW_NULL },
	};
	ct_emit_fields(t, EV_EXCEPTION_THROW, PH_INSTANT, id, th, 4);
	static const struct {
		enum ct_event ev;
		enum ct_phase ph;
		int frame;
	} mid[] = {
		{ EV_EXCEPTION_CATCHER_FOUND, PH_INSTANT, 3 }, { EV_EXCEPTION_FINALLY, PH_BEGIN, 1 },
		{ EV_EXCEPTION_FINALLY, PH_END, 1 },           { EV_EXCEPTION_CATCH, PH_BEGIN, 3 },
		{ EV_EXCEPTION_CATCH, PH_END, 3 },
	};
	for (size_t i = 0; i < sizeof(mid) / sizeof(mid[0]); i++) {
		struct jw_field f[] = {
			{ .key = "function", .kind = JW_STR, .s = frames[mid[i].frame] },
			{ .key = "exception", .kind = JW_IDREF, .i = (int64_t)id },
		};
		ct_emit_fields(t, mid[i].ev, mid[i].ph, id, f, 2);
	}
	struct jw_field su[] = {
		{ .key = "exception", .kind = JW_JSON, .s = exc_text, .len = exc_len },
		{ .key = "outcome", .kind = JW_STR, .s = "caught" },
		{ .key = "thrown_in", .kind = JW_STR, .s = frames[0] },
		{ .key = "caught_in", .kind = JW_STR, .s = frames[3] },
		{ .key = "searched", .kind = JW_JSON, .j = searched },
		{ .key = "filters", .kind = JW_JSON, .j = filters },
		{ .key = "finally", .kind = JW_JSON, .j = finally },
		{ .key = "unwound", .kind = JW_JSON, .j = unwound },
		{ .key = "rethrow", .kind = JW_BOOL, .b = false },
		{ .key = "rethrow_of", .kind = JW_NULL },
		{ .key = "nested_in", .kind = JW_NULL },
		{ .key = "nested", .kind = JW_JSON, .j = nested },
		{ .key = "superseded_by", .kind = JW_NULL },
		{ .key = "dur_ns", .kind = JW_INT, .i = 18234 },
	};
	ct_emit_fields(t, EV_EXCEPTION_SUMMARY, PH_INSTANT, id, su, 14);
	jw_free(&x);
}

/* The default categories' story of one exception of Throw's shape (frames
 * off): throw, catcher_found, finally span, catch span, summary; as the
 * machine built it before typed payloads (jansson) or as it builds it now. */
static void one_story(struct ct_thread *t, uint64_t id)
{
	if (typed) {
		one_story_typed(t, id);
		return;
	}
	json_t *exc = json_pack("{s:I,s:s,s:s,s:s}", "id", (json_int_t)id, "type",
			"System.InvalidOperationException", "message", "boom", "hresult", "0x80131509");

	ct_emit(t, EV_EXCEPTION_THROW, PH_INSTANT, id,
		json_pack("{s:O,s:b,s:n,s:n}", "exception", exc, "rethrow", 0, "rethrow_of", "nested_in"));
	ct_emit(t, EV_EXCEPTION_CATCHER_FOUND, PH_INSTANT, id, fn_exc(id, frames[3]));
	ct_emit(t, EV_EXCEPTION_FINALLY, PH_BEGIN, id, fn_exc(id, frames[1]));
	ct_emit(t, EV_EXCEPTION_FINALLY, PH_END, id, fn_exc(id, frames[1]));
	ct_emit(t, EV_EXCEPTION_CATCH, PH_BEGIN, id, fn_exc(id, frames[3]));
	ct_emit(t, EV_EXCEPTION_CATCH, PH_END, id, fn_exc(id, frames[3]));
	ct_emit(t, EV_EXCEPTION_SUMMARY, PH_INSTANT, id,
		json_pack("{s:o,s:s,s:s,s:s,s:[ssss],s:[],s:[s],s:[sss],s:b,s:n,s:n,s:[],s:n,s:I}",
			  "exception", exc, "outcome", "caught", "thrown_in", frames[0], "caught_in", frames[3],
			  "searched", frames[0], frames[1], frames[2], frames[3], "filters", "finally",
			  frames[1], "unwound", frames[0], frames[1], frames[2], "rethrow", 0, "rethrow_of",
			  "nested_in", "nested", "superseded_by", "dur_ns", (json_int_t)18234));
}

static long per_thread;
static uint64_t next_id;
static pthread_mutex_t id_lock = PTHREAD_MUTEX_INITIALIZER;

static void *worker(void *arg)
{
	struct ct_thread *t = ct_thread_get();

	t->managed_id = 0x7f0000001000 + (uintptr_t)arg * 0x100;
	for (long i = 0; i < per_thread; i++) {
		uint64_t id;

		pthread_mutex_lock(&id_lock);
		id = ++next_id;
		pthread_mutex_unlock(&id_lock);
		if (story)
			one_story(t, id);
		else
			one_exception(t, id);
	}
	return NULL;
}

static uint64_t mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	static char out[4096];
	static struct ct_config cfg;
	const char *why;
	bool fell_back;
	long n = argc > 2 ? atol(argv[2]) : 100000;
	int threads = argc > 3 ? atoi(argv[3]) : 1;
	pthread_t tids[64];
	uint64_t t0, t1;
	struct stat st = { 0 };

	if (argc > 4 && strcmp(argv[4], "lean") == 0) {
		lean = 1;
		records_per_exception = 2;
	} else if (argc > 4 && strcmp(argv[4], "bare") == 0)
		bare = 1;
	else if (argc > 4 && (strcmp(argv[4], "story") == 0 || strcmp(argv[4], "typed") == 0)) {
		story = 1;
		typed = argv[4][0] == 't';
		records_per_exception = 7;
	}
	if (argc < 2 || n <= 0 || threads < 1 || threads > 64) {
		fprintf(stderr, "usage: record-bench FILE [EXCEPTIONS [THREADS [full|lean|bare|story|typed]]]\n");
		return 2;
	}
	if (strcmp(argv[1], "/dev/null") != 0)
		unlink(argv[1]);
	ct.cfg.categories = ~0u;
	ct.events = ct_event_mask(ct.cfg.categories);
	ct.pid = getpid();
	snprintf(out, sizeof(out), "file:%s", argv[1]);
	if (config_parse_outputs(out, &cfg, &why) < 0) {
		fprintf(stderr, "record-bench: cannot parse %s\n", out);
		return 1;
	}
	const struct ct_sink_spec spec = {
		.outputs = cfg.outputs,
		.n_outputs = cfg.n_outputs,
		.program = "record-bench",
		.pid = ct.pid,
		.say = ct_say_once,
	};
	if (ct_sinks_open(&spec, &fell_back) < 0 || fell_back) {
		fprintf(stderr, "record-bench: cannot open %s\n", argv[1]);
		return 1;
	}
	per_thread = n / threads;
	n = per_thread * threads;
	t0 = mono();
	for (int i = 0; i < threads; i++)
		pthread_create(&tids[i], NULL, worker, (void *)(uintptr_t)i);
	for (int i = 0; i < threads; i++)
		pthread_join(tids[i], NULL);
	t1 = mono();
	ct_trace_close(false);
	if (stat(argv[1], &st) < 0)
		st.st_size = 0;
	if (!S_ISREG(st.st_mode))
		st.st_size = 0;
	printf("RECORD mode=%s threads=%d exceptions=%ld records=%ld ns_per_exception=%.0f ns_per_record=%.0f "
	       "bytes_per_exception=%.0f\n",
	       typed ? "typed" : story ? "story" : lean ? "lean" : bare ? "bare" : "full", threads, n, n * records_per_exception, (double)(t1 - t0) / n,
	       (double)(t1 - t0) / ((double)n * records_per_exception), (double)st.st_size / n);
	return 0;
}
