/* SPDX-License-Identifier: MIT */
/*
 * Replays exception callback sequences through the pure state machine:
 * fixtures captured on .NET 10 (tests/fixtures/exceptions/) and the quirk
 * sequences of the research notes.  Checks span nesting (every end closes
 * the innermost open span) and the outcome of every exception.
 */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "profiler/families/exceptions/machine.h"
#include "chaos.h"
#include "unit.h"



/* What one replay produced. */
struct capture {
	json_t *records;        /* {event, phase, key, payload} */
	struct { int ev; uint64_t key; } stack[256];
	size_t depth;
	int nesting_errors, errors, dying;
	int oom_errors;         /* errors that say "out of memory" */
	int no_machine;         /* inputs of a thread whose machine could not be made */
	char first_problem[256];
	uint64_t clock;
	json_int_t tid;         /* of the input being fed */
	/* weak handles the inputs gave the machine (handle_new), and those
	 * it gave back (handle_free): each once, every one by the exit */
	uint64_t given[64], freed[64];
	size_t n_given, n_freed;
};

/* The record's payload as the tracer writes it, read back. */
static json_t *cap_payload(const struct jw_fields *f)
{
	struct jw w = { 0 };
	json_t *p;

	if (f)
		jw_object(&w, f);
	p = w.b.s ? json_loadb(w.b.s, w.b.len, 0, NULL) : NULL;
	if (f && !p) {
		fprintf(stderr, "test-machine: a payload that is not JSON: %s\n", w.b.s ? w.b.s : "(none)");
		abort();
	}
	jw_free(&w);
	return p;
}

static void cap_record(void *ud, enum ct_event ev, enum ct_phase ph, uint64_t key, const struct jw_fields *f)
{
	struct capture *c = ud;
	json_t *payload;

	chaos_pause(); /* reading the payload back: the capture's, never failed */
	payload = cap_payload(f);
	chaos_resume();
	/* what the record left out for want of memory: the profiler's writer
	 * says it in a trace.error (emit.c) */
	if (f && f->oom) {
		c->errors++;
		c->oom_errors++;
	}

	if (ph == PH_BEGIN) {
		if (c->depth < 256) {
			c->stack[c->depth].ev = ev;
			c->stack[c->depth].key = key;
		}
		c->depth++;
	} else if (ph == PH_END) {
		if (!c->depth || c->depth > 256 || c->stack[c->depth - 1].ev != (int)ev ||
		    c->stack[c->depth - 1].key != key) {
			if (!c->nesting_errors++)
				snprintf(c->first_problem, sizeof(c->first_problem), "%s end (key %llu) is not innermost",
					 ct_events[ev].name, (unsigned long long)key);
		} else
			c->depth--;
	}
	chaos_pause(); /* the capture's own allocations: never failed */
	json_array_append_new(c->records, json_pack("{s:s,s:i,s:I,s:o}", "event", ct_events[ev].name, "phase", ph,
						     "key", (json_int_t)key, "p", payload ? payload : json_object()));
	chaos_resume();
}

static void cap_error(void *ud, const char *msg)
{
	struct capture *c = ud;

	c->errors++;
	c->oom_errors += strstr(msg, "out of memory") != NULL;
	if (!chaos_failed() || getenv("CHAOS_DEBUG"))
		printf("   (trace.error: %s)\n", msg);
}

static void cap_dying(void *ud)
{
	((struct capture *)ud)->dying++;
}

static uint64_t cap_now(void *ud)
{
	return ((struct capture *)ud)->clock += 1000;
}

static int64_t cap_tid(void *ud)
{
	return ((struct capture *)ud)->tid;
}

/* exm_emitter.keep: every new error kept, or (sample_all) none */
static bool sample_all;

static bool cap_keep(void *ud, const struct exm_input *in)
{
	return !sample_all;
}

static void cap_handle_free(void *ud, uint64_t h)
{
	struct capture *c = ud;

	if (c->n_freed < 64)
		c->freed[c->n_freed++] = h;
}

/* Strip "Scenarios.Program." or "Filters.Program." for short expectations. */
static const char *short_fn(const char *s)
{
	if (!s)
		return "-";
	if (strncmp(s, "Scenarios.Program.", 18) == 0)
		return s + 18;
	if (strncmp(s, "Filters.Program.", 16) == 0)
		return s + 16;
	return s;
}

/* "outcome thrown_in>caught_in f=r1,r2 fin=N" of one summary payload. */
static void signature(json_t *p, char *buf, size_t n)
{
	json_t *f;
	size_t i, len;

	len = (size_t)snprintf(buf, n, "%s %s>%s f=", json_string_value(json_object_get(p, "outcome")),
			       short_fn(json_string_value(json_object_get(p, "thrown_in"))),
			       short_fn(json_string_value(json_object_get(p, "caught_in"))));
	json_array_foreach(json_object_get(p, "filters"), i, f)
		if (len < n)
			len += (size_t)snprintf(buf + len, n - len, "%s%s%s", i ? "," : "",
						json_is_true(json_object_get(f, "runtime")) ? "rt:" : "",
						json_string_value(json_object_get(f, "result")));
	if (len < n)
		snprintf(buf + len, n - len, " fin=%zu%s", json_array_size(json_object_get(p, "finally")),
			 json_is_true(json_object_get(p, "rethrow")) ? " rethrow" : "");
}

/* true/false/absent as the glue's YES/NO/UNKNOWN. */
static enum exm_know know(json_t *v)
{
	return json_is_true(v) ? EXM_KNOW_YES : json_is_false(v) ? EXM_KNOW_NO : EXM_KNOW_UNKNOWN;
}

/* Parse one fixture line into IN (strings borrowed from O). */
static int parse_input(json_t *o, struct exm_input *in)
{
	const char *s;

	*in = (struct exm_input){ 0 };
	in->kind = exm_input_from_string(json_string_value(json_object_get(o, "in")));
	if (in->kind == _EXM_INPUT_INVALID)
		return -EINVAL;
	if ((s = json_string_value(json_object_get(o, "fn"))))
		in->fn = strtoull(s, NULL, 16);
	in->function = json_string_value(json_object_get(o, "function"));
	if (!in->fn && in->function) /* hand-written sequences name functions only */
		for (const char *p = in->function; *p; p++)
			in->fn = in->fn * 33 + (unsigned char)*p;
	if ((s = json_string_value(json_object_get(o, "object"))))
		in->object = strtoull(s, NULL, 16);
	if ((s = json_string_value(json_object_get(o, "frame"))))
		in->frame = strtoull(s, NULL, 16);
	in->type = json_string_value(json_object_get(o, "type"));
	in->message = json_string_value(json_object_get(o, "message"));
	if (json_is_integer(json_object_get(o, "hresult"))) {
		in->hresult = (int32_t)json_integer_value(json_object_get(o, "hresult"));
		in->has_hresult = true;
	}
	in->traced = json_is_true(json_object_get(o, "traced"));
	in->muted = json_is_true(json_object_get(o, "muted"));
	in->stack_depth = (unsigned)json_integer_value(json_object_get(o, "stack_depth"));
	in->native_depth = (unsigned)json_integer_value(json_object_get(o, "native_depth"));
	in->native_boundary = json_is_true(json_object_get(o, "native_boundary"));
	in->legacy = json_is_true(json_object_get(o, "legacy"));
	in->runtime = json_is_true(json_object_get(o, "runtime"));
	if ((s = json_string_value(json_object_get(o, "inner"))))
		in->inner = strtoull(s, NULL, 16);
	for (int v = 0; v < _EXM_VERDICT_MAX; v++)
		if ((s = json_string_value(json_object_get(o, "verdict"))) && strcmp(s, exm_verdict_names[v]) == 0)
			in->verdict = v;
	in->catch_after_filter = know(json_object_get(o, "catch_after_filter"));
	in->ran_filter_handler = know(json_object_get(o, "ran_filter_handler"));
	in->within_outer = know(json_object_get(o, "within_outer"));
	in->last_finallys = (unsigned)json_integer_value(json_object_get(o, "last_finallys"));
	if ((s = json_string_value(json_object_get(o, "pc"))))
		in->pc = strtoull(s, NULL, 16);
	if ((s = json_string_value(json_object_get(o, "handler_kind"))) &&
	    ct_handler_kind_from_string(s) != _HANDLER_INVALID)
		in->handler_kind = ct_handler_kind_from_string(s);
	in->handler_label = json_string_value(json_object_get(o, "handler_label"));
	in->handler_final = json_is_true(json_object_get(o, "handler_final"));
	if ((s = json_string_value(json_object_get(o, "type_id"))))
		in->type_id = strtoull(s, NULL, 16);
	if ((s = json_string_value(json_object_get(o, "handle"))))
		in->handle = strtoull(s, NULL, 16);
	in->handle_new = json_is_true(json_object_get(o, "handle_new"));
	if ((s = json_string_value(json_object_get(o, "inner_handle"))))
		in->inner_handle = strtoull(s, NULL, 16);
	in->inner_checked = json_is_true(json_object_get(o, "inner_checked"));
	return 0;
}

/* Replay LINES (JSON objects) through one machine per tid. */
static void replay(json_t *lines, struct capture *c)
{
	struct { json_int_t tid; struct exm *m; } machines[16];
	size_t n_machines = 0, i;
	struct exm_emitter e = { .userdata = c, .record = cap_record, .error = cap_error, .dying = cap_dying,
				 .now = cap_now, .tid = cap_tid, .keep = cap_keep, .handle_free = cap_handle_free };
	json_t *o;

	memset(c, 0, sizeof(*c));
	chaos_pause();
	c->records = json_array();
	chaos_resume();
	json_array_foreach(lines, i, o) {
		json_int_t tid = json_integer_value(json_object_get(o, "tid"));
		struct exm *m = NULL;
		struct exm_input in;

		for (size_t k = 0; k < n_machines; k++)
			if (machines[k].tid == tid)
				m = machines[k].m;
		if (!m && n_machines < 16) {
			m = exm_new();
			machines[n_machines].tid = tid;
			machines[n_machines++].m = m;
		}
		if (!m) { /* out of memory: the glue ignores the thread's exceptions */
			c->no_machine++;
			continue;
		}
		if (parse_input(o, &in) < 0) {
			c->errors++;
			continue;
		}
		c->tid = tid;
		if (in.handle_new && c->n_given < 64)
			c->given[c->n_given++] = in.handle;
		exm_feed(m, &in, &e);
	}
	/* the exit: what still waits in the errors table is written */
	exm_errors_flush(&e);
	for (size_t k = 0; k < n_machines; k++)
		exm_free(machines[k].m);
}

/* The signatures of every summary, "; "-joined, in emission order. */
static char *summaries(const struct capture *c)
{
	static char all[2048];
	size_t len = 0, i;
	json_t *r;

	all[0] = 0;
	json_array_foreach(c->records, i, r) {
		char sig[256];

		if (strcmp(json_string_value(json_object_get(r, "event")), "exception.summary") != 0)
			continue;
		signature(json_object_get(r, "p"), sig, sizeof(sig));
		if (len < sizeof(all))
			len += (size_t)snprintf(all + len, sizeof(all) - len, "%s%s", len ? "; " : "", sig);
	}
	return all;
}

static size_t count_event(const struct capture *c, const char *ev)
{
	size_t n = 0, i;
	json_t *r;

	json_array_foreach(c->records, i, r)
		if (strcmp(json_string_value(json_object_get(r, "event")), ev) == 0)
			n++;
	return n;
}

/* Member KEY of the EV records of phase PH, ","-joined. */
static const char *joined(const struct capture *c, const char *ev, enum ct_phase ph, const char *key)
{
	static char all[256];
	size_t len = 0, i;
	json_t *r;

	all[0] = 0;
	json_array_foreach(c->records, i, r)
		if (strcmp(json_string_value(json_object_get(r, "event")), ev) == 0 &&
		    json_integer_value(json_object_get(r, "phase")) == ph && len < sizeof(all))
			len += (size_t)snprintf(all + len, sizeof(all) - len, "%s%s", len ? "," : "",
						json_string_value(json_object_get(json_object_get(r, "p"), key)));
	return all;
}

/* The results of the exception.filter end records, ","-joined. */
static const char *filter_end_results(const struct capture *c)
{
	return joined(c, "exception.filter", PH_END, "result");
}

/* How many exception.filter records (begin and end) say "runtime": true,
 * and how many do not. */
static void runtime_filter_records(const struct capture *c, size_t *runtime, size_t *program)
{
	size_t i;
	json_t *r;

	*runtime = *program = 0;
	json_array_foreach(c->records, i, r)
		if (strcmp(json_string_value(json_object_get(r, "event")), "exception.filter") == 0)
			++*(json_is_true(json_object_get(json_object_get(r, "p"), "runtime")) ? runtime : program);
}

/* The common checks, then the expected summary signatures. */
static void verify(const char *name, struct capture *c, const char *want, int want_errors, int want_dying)
{
	const char *got = summaries(c);
	size_t unfreed = 0;

	for (size_t i = 0; i < c->n_given; i++) {
		size_t k = 0;

		for (size_t j = 0; j < c->n_freed; j++)
			k += c->freed[j] == c->given[i];
		unfreed += k != 1;
	}
	CHECK(unfreed == 0 && c->n_freed == c->n_given, "%s: every weak handle given back once (%zu given, %zu freed)",
	      name, c->n_given, c->n_freed);
	CHECK(c->nesting_errors == 0, "%s: spans nest (%s)", name, c->nesting_errors ? c->first_problem : "every end innermost");
	CHECK(c->errors == want_errors, "%s: %d trace.error (want %d)", name, c->errors, want_errors);
	CHECK(c->dying == want_dying, "%s: dying signalled %d times (want %d)", name, c->dying, want_dying);
	CHECK(strcmp(got, want) == 0, "%s: summaries '%s'%s%s", name, got, strcmp(got, want) ? " want " : "",
	      strcmp(got, want) ? want : "");
	json_decref(c->records);
}

struct fixture {
	const char *name;
	const char *want;
	int dying;
};

#define FILTER_SHAPES \
	"caught Throw>OneTrue f=true fin=0; caught Throw>OneFalse f=false fin=0; " \
	"caught Throw>TwoFilters f=false,true fin=0; caught Throw>FilterThenCatch f=false fin=0; " \
	"caught Throw>FilterThenCatchTrue f=true fin=0; caught Throw>NestedFalse f=false fin=0; " \
	"caught Throw>NestedTrue f=true fin=0; caught Throw>NestedFilters f=false,true fin=0; " \
	"caught Throw>OtherCatchFirst f=true fin=0; swallowed Throws>- f= fin=0; " \
	"caught Throw>FilterThrows f=threw fin=0; swallowed Throws>- f= fin=0; " \
	"caught Throw>FilterThrowsNested f=threw fin=0; caught CatchesInside>CatchesInside f= fin=0; " \
	"caught Throw>FilterCatchesInside f=true fin=0; caught Throw>Recursive f=false,true fin=0; " \
	"caught DirectNestedFalse>DirectNestedFalse f=false fin=0"

#define FINALLY_REPLACES \
	"superseded Throw>- f=true fin=1; caught ReplacedInFinally>FinallyReplacesTrue f=false fin=0"

static const struct fixture fixtures[] = {
	{ "same", "caught Same>Same f= fin=0" },
	{ "up3", "caught Level3>Up3 f= fin=0" },
	{ "filters", "caught FilterInner>FilterOuter f=false,true fin=0" },
	/* tests/programs/Filters on each runtime, optimized and not: the same
	 * filter results everywhere */
	{ "filter-shapes-net10", FILTER_SHAPES },
	{ "filter-shapes-net10-minopts", FILTER_SHAPES },
	{ "filter-shapes-net9", FILTER_SHAPES },
	{ "filter-shapes-net8", FILTER_SHAPES },
	/* tests/programs/Filters finally-replaces-true: the filter said true,
	 * a finally below replaced the exception before its catch ran, and
	 * the only other catch of that try is of another type (the glue's
	 * catch_after_filter: no): the filter's result is true, not unknown */
	{ "filters-net10-finally-replaces", FINALLY_REPLACES },
	{ "filters-net8-finally-replaces", FINALLY_REPLACES },
	{ "filters-net11-finally-replaces", FINALLY_REPLACES },
	{ "finally", "caught Fin3>FinallyMain f= fin=3" },
	{ "in-filter", "swallowed BadFilter>- f= fin=0; caught InFilterInner>InFilter f=threw fin=0" },
	{ "in-finally", "superseded InFinallyInner>- f= fin=1; caught InFinallyInner>InFinally f= fin=0" },
	{ "in-catch", "superseded InCatchInner>InCatchInner f= fin=0; caught InCatchInner>InCatch f= fin=0" },
	{ "caught-in-catch", "caught Helper>CaughtInCatch f= fin=0; caught CaughtInCatch>CaughtInCatch f= fin=0" },
	{ "rethrow", "rethrown RethrowInner>RethrowInner f= fin=0; caught RethrowInner>Rethrow f= fin=0 rethrow" },
	/* `throw;` after a compacting collection in the catch block moved
	 * the object (.NET 11.0.0 and 8.0.34, where clrtrace does not pin it):
	 * the rethrow is known by what the throw shows of it (moved_rethrow) */
	{ "rethrow-gc-net11", "rethrown RethrowGcInner>RethrowGcInner f= fin=0; caught RethrowGcInner>RethrowGc f= fin=0 rethrow" },
	{ "rethrow-gc-net8", "rethrown RethrowGcInner>RethrowGcInner f= fin=0; caught RethrowGcInner>RethrowGc f= fin=0 rethrow" },
	{ "throw-ex", "rethrown ThrowExInner>ThrowExInner f= fin=0; caught ThrowExInner>ThrowEx f= fin=0 rethrow" },
	{ "async", "caught System.Runtime.ExceptionServices.ExceptionDispatchInfo.Throw>Scenarios.Program+<AwaitIt>d__27.MoveNext f= fin=0 rethrow; "
		   "caught Scenarios.Program+<FailLaterAsync>d__26.MoveNext>Scenarios.Program+<FailLaterAsync>d__26.MoveNext f= fin=0" },
	{ "nullref", "caught Deref>NullRef f= fin=0" },
	{ "divzero", "caught Divide>DivZero f= fin=0" },
	/* the summary of an unhandled exception waits for its last frame's
	 * unwind, after the finally blocks the runtime still runs */
	{ "unhandled-main", "caught Same>Same f= fin=0; unhandled Doomed>- f= fin=1", 1 },
	{ "unhandled-thread", "caught Same>Same f= fin=0; unhandled Doomed>- f=false fin=1", 1 },
	/* .NET 11.0.0: Main's caller, Environment.CallEntryPoint, and a
	 * thread's start have a filter, the runtime's own (the glue said
	 * "runtime"): rt: in the summary's filters */
	{ "unhandled-main-net11", "caught Same>Same f= fin=0; unhandled Doomed>- f=rt:false fin=1", 1 },
	{ "unhandled-thread-net11", "caught Same>Same f= fin=0; unhandled Doomed>- f=rt:false fin=1", 1 },
	/* thrown in an [UnmanagedCallersOnly] method that managed code called
	 * through a delegate* unmanaged, under a catch (.NET 8.0.34, 9.0.20,
	 * 10.0.12): .NET 8 searches that method alone, whose search leave
	 * carries the glue's verdict (the stack snapshot at the throw shows no
	 * native frame below it); .NET 9 and 10 let the caller catch it */
	{ "unhandled-uco-net8", "caught Same>Same f= fin=0; unhandled UcoThrow>- f= fin=0", 1 },
	{ "unhandled-uco-net9", "caught Same>Same f= fin=0; caught UcoThrow>UnhandledUco f= fin=0" },
	{ "unhandled-uco-net10", "caught Same>Same f= fin=0; caught UcoThrow>UnhandledUco f= fin=0" },
	{ "failfast", "caught Same>Same f= fin=0; caught Same>Same f= fin=0; caught Same>Same f= fin=0; "
		      "caught Same>Same f= fin=0; caught Same>Same f= fin=0" },
};

/* "outcome[+boundary][+wrapped][+reported_unhandled][+interrupted]" of
 * every summary, "; "-joined, then " unhandled=N" (exception.unhandled). */
static char *verdicts(const struct capture *c)
{
	static char all[2048];
	static const char *const flags[] = { "boundary", "wrapped", "reported_unhandled" };
	size_t len = 0, i, n = 0;
	json_t *r;

	all[0] = 0;
	json_array_foreach(c->records, i, r) {
		const char *ev = json_string_value(json_object_get(r, "event"));
		json_t *p = json_object_get(r, "p");

		if (strcmp(ev, "exception.unhandled") == 0)
			n++;
		if (strcmp(ev, "exception.summary") != 0 || len >= sizeof(all))
			continue;
		len += (size_t)snprintf(all + len, sizeof(all) - len, "%s%s", len ? "; " : "",
					json_string_value(json_object_get(p, "outcome")));
		for (size_t k = 0; k < sizeof(flags) / sizeof(flags[0]) && len < sizeof(all); k++)
			if (json_is_true(json_object_get(p, flags[k])))
				len += (size_t)snprintf(all + len, sizeof(all) - len, "+%s", flags[k]);
		if (json_object_get(p, "interrupted") && len < sizeof(all))
			len += (size_t)snprintf(all + len, sizeof(all) - len, "+%s",
						json_string_value(json_object_get(p, "interrupted")));
	}
	if (len < sizeof(all))
		snprintf(all + len, sizeof(all) - len, " unhandled=%zu", n);
	return all;
}

/* The exception.error records, "; "-joined in emission order:
 * "#ID fate[/kind[/label]] origin=FN throws=N hops=R/A/B[ by=M]". */
static char *fates(const struct capture *c)
{
	static char all[4096];
	size_t len = 0, i;
	json_t *r;

	all[0] = 0;
	json_array_foreach(c->records, i, r) {
		json_t *p = json_object_get(r, "p"), *h = json_object_get(p, "handler"), *hops = json_object_get(p, "hops");
		json_t *by = json_object_get(p, "superseded_by");

		if (strcmp(json_string_value(json_object_get(r, "event")), "exception.error") != 0 || len >= sizeof(all))
			continue;
		len += (size_t)snprintf(all + len, sizeof(all) - len, "%s#%lld %s", len ? "; " : "",
					(long long)json_integer_value(json_object_get(p, "error")),
					json_string_value(json_object_get(p, "fate")));
		if (h && len < sizeof(all))
			len += (size_t)snprintf(all + len, sizeof(all) - len, "/%s%s%s",
						json_string_value(json_object_get(h, "kind")),
						json_string_value(json_object_get(h, "label")) ? "/" : "",
						json_string_value(json_object_get(h, "label")) ?
							json_string_value(json_object_get(h, "label")) : "");
		if (len < sizeof(all))
			len += (size_t)snprintf(all + len, sizeof(all) - len, " origin=%s throws=%lld hops=%lld/%lld/%lld",
						short_fn(json_string_value(json_object_get(json_object_get(p, "origin"), "function"))),
						(long long)json_integer_value(json_object_get(p, "throws")),
						(long long)json_integer_value(json_object_get(hops, "rethrow")),
						(long long)json_integer_value(json_object_get(hops, "await")),
						(long long)json_integer_value(json_object_get(hops, "boundary")));
		if (by && len < sizeof(all))
			len += (size_t)snprintf(all + len, sizeof(all) - len, " by=%lld", (long long)json_integer_value(by));
	}
	return all;
}

/* tests/programs/Verdicts on each runtime (verdicts-netV-SCENARIO.jsonl):
 * the outcomes of every story and the exception.unhandled records. */
static const struct fixture verdict_fixtures[] = {
#define ALL3(s, want, dying) { "verdicts-net10-" s, want, dying }, { "verdicts-net9-" s, want, dying }, \
			     { "verdicts-net8-" s, want, dying }
	/* .NET 9/10: the first call goes through native code, a boundary; the
	 * same object is raised again, caught, and wrapped */
	{ "verdicts-net10-invoke", "rethrown+boundary; superseded+wrapped; caught; superseded+wrapped; caught; "
				   "superseded+wrapped; caught unhandled=0" },
	{ "verdicts-net9-invoke", "rethrown+boundary; superseded+wrapped; caught; superseded+wrapped; caught; "
				  "superseded+wrapped; caught unhandled=0" },
	/* .NET 8: the search goes on through the runtime's native frames */
	{ "verdicts-net8-invoke", "superseded+wrapped; caught; superseded+wrapped; caught; superseded+wrapped; "
				  "caught unhandled=0" },
	{ "verdicts-net10-dynamic-invoke", "rethrown+boundary; superseded+wrapped; caught unhandled=0" },
	{ "verdicts-net9-dynamic-invoke", "rethrown+boundary; superseded+wrapped; caught unhandled=0" },
	{ "verdicts-net8-dynamic-invoke", "superseded+wrapped; caught unhandled=0" },
	ALL3("activator", "superseded+wrapped; caught unhandled=0", 0),
	ALL3("type-init", "superseded+boundary+wrapped; caught unhandled=0", 0),
	ALL3("reverse-pinvoke", "unhandled unhandled=1", 1),
	ALL3("reverse-delegate", "unhandled unhandled=1", 1),
	ALL3("unhandled-main", "unhandled unhandled=1", 1),
	ALL3("unhandled-pool", "unhandled unhandled=1", 1),
	ALL3("unhandled-handler", "unhandled unhandled=1", 1),
	/* .NET 9/10 run the finally of an unhandled exception, and Dispose
	 * replaces it; .NET 8 dies at once */
	{ "verdicts-net10-dispose-caught", "superseded+reported_unhandled; caught unhandled=1", 1 },
	{ "verdicts-net9-dispose-caught", "superseded+reported_unhandled; caught unhandled=1", 1 },
	{ "verdicts-net8-dispose-caught", "unhandled unhandled=1", 1 },
	{ "verdicts-net10-dispose-uncaught", "superseded+reported_unhandled; unhandled unhandled=2", 2 },
	{ "verdicts-net9-dispose-uncaught", "superseded+reported_unhandled; unhandled unhandled=2", 2 },
	{ "verdicts-net8-dispose-uncaught", "unhandled unhandled=1", 1 },
	/* the same in Main, the outermost frame: the summary waits for the
	 * finally blocks of Main that cover the call (the clause table) */
	{ "verdicts-net10-dispose-in-main", "superseded+reported_unhandled; caught unhandled=1", 1 },
	{ "verdicts-net9-dispose-in-main", "superseded+reported_unhandled; caught unhandled=1", 1 },
	{ "verdicts-net8-dispose-in-main", "unhandled unhandled=1", 1 },
	/* ... and Main's finally ends without replacing it: the process dies */
	ALL3("finally-in-main", "unhandled unhandled=1", 1),
	ALL3("exit-in-catch", "caught+exit unhandled=0", 0),
	ALL3("exit-in-finally", "unknown+exit unhandled=0", 0),
	ALL3("rethrow", "rethrown; caught unhandled=0", 0),
	ALL3("edi", "caught; caught unhandled=0", 0),
	ALL3("await", "caught; caught unhandled=0", 0),
	/* .NET 8 reports a catch in a finally at the finally's frame */
	ALL3("catch-in-finally", "caught; caught unhandled=0", 0),
	/* ... and one thrown in a finally, caught past it in the same method:
	 * .NET 8 knows Alpha was left only after Beta's catch */
	{ "verdicts-net10-finally-left", "superseded; caught unhandled=0" },
	{ "verdicts-net9-finally-left", "superseded; caught unhandled=0" },
	{ "verdicts-net8-finally-left", "caught; superseded unhandled=0" },
	/* tests/programs/Web (webapp.sh) under ASP.NET Core, two rounds of
	 * /invoke, /di, /activate, /typeinit and /handled, then SIGTERM (the
	 * last story: Kestrel's listener, cancelled).  .NET 9/10: the first
	 * reflection call and the container's first activations cross the
	 * native invoke code, which raises the same object again (the
	 * container asks for no wrapping); the static constructor's exception
	 * is wrapped once, its TypeInitializationException raised again at
	 * the second access.  Nothing is unhandled. */
#define WEBAPP_NEW_EH \
	"rethrown+boundary; superseded+wrapped; caught; rethrown+boundary; rethrown; caught; " \
	"rethrown+boundary; rethrown; caught; superseded+boundary+wrapped; caught; rethrown; caught; " \
	"superseded+wrapped; caught; rethrown; caught; rethrown; caught; caught; rethrown; caught; caught unhandled=0"
	{ "webapp-net10", WEBAPP_NEW_EH },
	{ "webapp-net9", WEBAPP_NEW_EH },
	/* .NET 8: only the type initializer is a boundary */
	{ "webapp-net8", "superseded+wrapped; caught; rethrown; caught; rethrown; caught; superseded+boundary+wrapped; "
			 "caught; rethrown; caught; superseded+wrapped; caught; rethrown; caught; rethrown; caught; caught; "
			 "rethrown; caught; caught unhandled=0" },
#undef WEBAPP_NEW_EH
	/* .NET 8: two exceptions caught one after the other inside one catch
	 * block (tests/programs/Filters in-catch-block): the clause table says
	 * the inner catches lie inside the outer handler, which goes on */
	{ "filters-net8-in-catch-block", "caught; caught; caught unhandled=0" },
#undef ALL3
};

/* tests/programs/ErrorsConsole on each runtime (errors-netV-SCENARIO.jsonl):
 * the exception.error records ("crash": the async Main's awaited
 * Helper.Explode throws; the object is stored by each async state
 * machine and thrown again by each await, and kills the process;
 * "handled": parse retry giveup, every error caught by the program, two
 * wrapped by the libraries). */
struct fates_fixture {
	const char *name, *want;
	int dying;
};

/* ids are process-wide: the records after "#N " */
#define CRASH_FATES "unhandled/(null) origin=Helper.Explode throws=4 hops=0/3/0"

static const struct fates_fixture fates_fixtures[] = {
	{ "errors-net10-crash", CRASH_FATES, 1 },
	{ "errors-net8-crash", CRASH_FATES, 1 },
	{ "errors-net11-crash", CRASH_FATES, 1 },
	{ "errors-net10-handled", NULL, 0 },
	{ "errors-net8-handled", NULL, 0 },
	{ "errors-net11-handled", NULL, 0 },
};

/* "N fate[/kind]" counts of C's exception.error records, sorted by fate. */
static char *fate_counts(const struct capture *c)
{
	static char all[512];
	size_t len = 0, i, n[_FATE_MAX][_HANDLER_MAX + 1] = { { 0 } };
	json_t *r;

	all[0] = 0;
	json_array_foreach(c->records, i, r) {
		json_t *p = json_object_get(r, "p");
		enum ct_fate f;
		enum ct_handler_kind k;

		if (strcmp(json_string_value(json_object_get(r, "event")), "exception.error") != 0)
			continue;
		f = ct_fate_from_string(json_string_value(json_object_get(p, "fate")));
		k = ct_handler_kind_from_string(json_string_value(json_object_get(json_object_get(p, "handler"), "kind")));
		if (f != _FATE_INVALID)
			n[f][k == _HANDLER_INVALID ? _HANDLER_MAX : k]++;
	}
	for (int f = 0; f < _FATE_MAX; f++)
		for (int k = 0; k <= _HANDLER_MAX; k++)
			if (n[f][k] && len < sizeof(all))
				len += (size_t)snprintf(all + len, sizeof(all) - len, "%s%zu %s%s%s", len ? "; " : "", n[f][k],
							ct_fate_to_string(f), k < _HANDLER_MAX ? "/" : "",
							k < _HANDLER_MAX ? ct_handler_kind_to_string(k) : "");
	return all;
}

/* Load a fixture file as an array of objects. */
static json_t *load(const char *dir, const char *name)
{
	char path[4200];
	json_t *a = json_array(), *o;
	json_error_t err;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s.jsonl", dir, name);
	f = fopen(path, "re");
	if (!f) {
		json_decref(a);
		return NULL;
	}
	while ((o = json_loadf(f, JSON_DISABLE_EOF_CHECK, &err)))
		json_array_append_new(a, o);
	fclose(f);
	return a;
}

/* Hand-written sequences: the quirks the research notes expect. */
struct quirk {
	const char *name;
	const char *lines;
	const char *want;
	int errors, dying;
	/* what else the quirk must show, when set: COUNT records of
	 * COUNT_EVENT; the results of its exception.filter ends, ","-joined */
	const char *count_event;
	size_t count;
	const char *filter_results;
};

#define T(obj, type) "{\"tid\":1,\"in\":\"thrown\",\"object\":\"" obj "\",\"type\":\"" type "\"}\n"
/* a throw of an object with an InnerException, never thrown before */
#define TI(obj, type, inner) \
	"{\"tid\":1,\"in\":\"thrown\",\"object\":\"" obj "\",\"type\":\"" type "\",\"inner\":\"" inner "\"}\n"
#define IN(kind, fn) "{\"tid\":1,\"in\":\"" kind "\",\"function\":\"" fn "\"}\n"
#define INF(kind, fn, fp) "{\"tid\":1,\"in\":\"" kind "\",\"function\":\"" fn "\",\"frame\":\"" fp "\"}\n"
#define OUT(kind) "{\"tid\":1,\"in\":\"" kind "\"}\n"
#define CF(fn, after) "{\"tid\":1,\"in\":\"catcher_found\",\"function\":\"" fn "\",\"catch_after_filter\":" after "}\n"
#define CL(fp, ran) "{\"tid\":1,\"in\":\"catch_leave\",\"frame\":\"" fp "\",\"ran_filter_handler\":" ran "}\n"
#define OUTF(kind, fp) "{\"tid\":1,\"in\":\"" kind "\",\"frame\":\"" fp "\"}\n"
/* a throw with a message; TRACED: ",\"traced\":true" (thrown before) or "" */
#define TM(obj, type, msg, traced) \
	"{\"tid\":1,\"in\":\"thrown\",\"object\":\"" obj "\",\"type\":\"" type "\",\"message\":\"" msg "\"" traced "}\n"
/* A (0xf10, "one") caught in M's catch block, where THROWN comes next */
#define IN_CATCH(thrown) \
	TM("0xf10", "A", "one", "") IN("search_enter", "M") IN("catcher_found", "M") OUT("search_leave") \
	IN("unwind_enter", "M") INF("catch_enter", "M", "0x10") thrown
/* ... and leaves M for Z's catch */
#define TO_Z \
	IN("search_enter", "M") OUT("search_leave") IN("search_enter", "Z") IN("catcher_found", "Z") \
	OUT("search_leave") IN("unwind_enter", "M") OUT("unwind_leave") IN("unwind_enter", "Z") \
	INF("catch_enter", "Z", "0x20") OUTF("catch_leave", "0x20")
#define TRACED ",\"traced\":true"

static const struct quirk quirks[] = {
	/* .NET 9/10 before runtime#123564: the funclet and its parent frame are
	 * both reported for an exception thrown in a finally */
	{ "funclet duplicates",
	  T("0xa0", "A") IN("search_enter", "M") OUT("search_leave") IN("search_enter", "N") IN("catcher_found", "N")
	  OUT("search_leave") IN("unwind_enter", "M") INF("finally_enter", "M", "0x100")
	  T("0xb0", "B") IN("search_enter", "M") OUT("search_leave") IN("search_enter", "M") OUT("search_leave")
	  IN("search_enter", "N") IN("catcher_found", "N") OUT("search_leave")
	  IN("unwind_enter", "M") OUT("unwind_leave") IN("unwind_enter", "M") OUT("unwind_leave")
	  IN("unwind_enter", "N") INF("catch_enter", "N", "0x200") OUTF("catch_leave", "0x200"),
	  "superseded M>- f= fin=1; caught M>N f= fin=0",
	  /* A: M, N; B: M (its duplicate coalesced), N: 4 frames, not 5 */
	  .count_event = "exception.search.frame", .count = 8 },
	/* Leaves with nothing open: ignored */
	{ "stray leaves",
	  OUT("catch_leave") OUT("search_leave") T("0xa0", "A") OUT("search_leave") OUT("filter_leave")
	  OUT("finally_leave") IN("search_enter", "M") IN("catcher_found", "M") OUT("search_leave")
	  OUT("search_leave") IN("unwind_enter", "M") INF("catch_enter", "M", "0x100") OUT("unwind_leave")
	  OUTF("catch_leave", "0x100") OUTF("catch_leave", "0x100"),
	  "caught M>M f= fin=0" },
	/* CatcherFound after the catching frame's Leave (start of pass 2) */
	{ "catcher found late",
	  T("0xa0", "A") IN("search_enter", "M") OUT("search_leave") IN("search_enter", "N") OUT("search_leave")
	  IN("catcher_found", "N") IN("unwind_enter", "M") OUT("unwind_leave") IN("unwind_enter", "N")
	  INF("catch_enter", "N", "0x100") OUTF("catch_leave", "0x100"),
	  "caught M>N f= fin=0" },
	/* no Leave for search frames, unwind frames, a finally, and a nested catch */
	{ "missing leaves",
	  T("0xa0", "A") IN("search_enter", "M") IN("search_enter", "N") IN("catcher_found", "N")
	  IN("unwind_enter", "M") INF("finally_enter", "M", "0x100") IN("unwind_enter", "N")
	  INF("catch_enter", "N", "0x200") T("0xb0", "B") IN("search_enter", "H") IN("catcher_found", "H")
	  IN("unwind_enter", "H") INF("catch_enter", "H", "0x50") OUTF("catch_leave", "0x200"),
	  "caught H>H f= fin=0; caught M>N f= fin=1" },
	/* the thread dies with two exceptions in flight: the one in a filter
	 * ends "unknown", the one whose catch was entered "caught" */
	{ "thread death",
	  T("0xa0", "A") IN("search_enter", "M") IN("catcher_found", "M") OUT("search_leave")
	  IN("unwind_enter", "M") INF("catch_enter", "M", "0x100") T("0xb0", "B") IN("search_enter", "H")
	  INF("filter_enter", "H", "0x80") OUT("thread_end")
	  T("0xc0", "C") IN("search_enter", "Z") IN("catcher_found", "Z") OUT("search_leave")
	  IN("unwind_enter", "Z") INF("catch_enter", "Z", "0x10") OUTF("catch_leave", "0x10"),
	  "unknown H>- f=unknown fin=0; caught M>M f= fin=0; caught Z>Z f= fin=0", 0 },
	/* nonsense (an unwind frame inside a filter): error, reset, carry on */
	{ "unexplainable",
	  T("0xa0", "A") IN("search_enter", "M") INF("filter_enter", "M", "0x100") IN("unwind_enter", "M")
	  T("0xc0", "C") IN("search_enter", "Z") IN("catcher_found", "Z") OUT("search_leave")
	  IN("unwind_enter", "Z") INF("catch_enter", "Z", "0x10") OUTF("catch_leave", "0x10"),
	  "unknown M>- f=unknown fin=0; caught Z>Z f= fin=0", 1 },
	/* .NET 8 (legacy EH): an unhandled exception's search is the last thing
	 * reported (no CatcherFound, no second pass); with the stack depth of
	 * the throw known, the verdict comes at the outermost frame's Leave.
	 * The caught one before it, at the same depth, is not mistaken. */
	{ "legacy unhandled",
	  "{\"tid\":1,\"in\":\"thrown\",\"object\":\"0xa0\",\"type\":\"A\",\"stack_depth\":2,\"legacy\":true}\n"
	  IN("search_enter", "M") OUT("search_leave") IN("search_enter", "Main") IN("catcher_found", "Main")
	  OUT("search_leave") IN("unwind_enter", "M") OUT("unwind_leave") IN("unwind_enter", "Main")
	  INF("catch_enter", "Main", "0x100") OUTF("catch_leave", "0x100")
	  "{\"tid\":1,\"in\":\"thrown\",\"object\":\"0xb0\",\"type\":\"B\",\"stack_depth\":3,\"legacy\":true}\n"
	  IN("search_enter", "D") OUT("search_leave") IN("search_enter", "U") OUT("search_leave")
	  IN("search_enter", "Main") OUT("search_leave"),
	  "caught M>Main f= fin=0; unhandled D>- f= fin=0", 0, 1 },
	/* .NET 8: the catch of B inside A's catch block reports A's frame; A's
	 * own CatcherLeave follows B's, so A was not left (as on .NET 8) */
	{ "legacy catch in catch",
	  "{\"tid\":1,\"in\":\"thrown\",\"object\":\"0xa0\",\"type\":\"A\",\"legacy\":true}\n"
	  IN("search_enter", "M") IN("catcher_found", "M") OUT("search_leave") IN("unwind_enter", "M")
	  INF("catch_enter", "M", "0x100")
	  "{\"tid\":1,\"in\":\"thrown\",\"object\":\"0xb0\",\"type\":\"B\",\"legacy\":true}\n"
	  IN("search_enter", "H") OUT("search_leave") IN("search_enter", "M") IN("catcher_found", "M")
	  OUT("search_leave") IN("unwind_enter", "H") OUT("unwind_leave") IN("unwind_enter", "M")
	  INF("catch_enter", "M", "0x100") OUTF("catch_leave", "0x100") OUTF("catch_leave", "0x100"),
	  "caught H>M f= fin=0; caught M>M f= fin=0" },
	/* the same frame, but B's catch is past A's in the same method: A's
	 * CatcherLeave never comes, and the next throw settles it */
	{ "legacy catch after catch",
	  "{\"tid\":1,\"in\":\"thrown\",\"object\":\"0xa0\",\"type\":\"A\",\"legacy\":true}\n"
	  IN("search_enter", "M") IN("catcher_found", "M") OUT("search_leave") IN("unwind_enter", "M")
	  INF("catch_enter", "M", "0x100")
	  "{\"tid\":1,\"in\":\"thrown\",\"object\":\"0xb0\",\"type\":\"B\",\"legacy\":true}\n"
	  IN("search_enter", "M") IN("catcher_found", "M") OUT("search_leave") IN("unwind_enter", "M")
	  INF("catch_enter", "M", "0x100") OUTF("catch_leave", "0x100")
	  T("0xc0", "C") IN("search_enter", "Z") IN("catcher_found", "Z") OUT("search_leave")
	  IN("unwind_enter", "Z") INF("catch_enter", "Z", "0x10") OUTF("catch_leave", "0x10"),
	  "caught M>M f= fin=0; superseded M>M f= fin=0; caught Z>Z f= fin=0" },
	/* .NET 8: B, thrown in A's finally, is caught past that finally in
	 * the same method; its catch reports the finally's frame, and what
	 * follows B's CatcherLeave is not A's FinallyLeave: A was left */
	{ "legacy finally left in its own method",
	  "{\"tid\":1,\"in\":\"thrown\",\"object\":\"0xa0\",\"type\":\"A\",\"legacy\":true}\n"
	  IN("search_enter", "M") IN("catcher_found", "M") OUT("search_leave") IN("unwind_enter", "M")
	  INF("finally_enter", "M", "0x100")
	  "{\"tid\":1,\"in\":\"thrown\",\"object\":\"0xb0\",\"type\":\"B\",\"legacy\":true}\n"
	  IN("search_enter", "M") IN("catcher_found", "M") OUT("search_leave") IN("unwind_enter", "M")
	  INF("catch_enter", "M", "0x100") OUTF("catch_leave", "0x100")
	  T("0xc0", "C") IN("search_enter", "Z") IN("catcher_found", "Z") OUT("search_leave")
	  IN("unwind_enter", "Z") INF("catch_enter", "Z", "0x10") OUTF("catch_leave", "0x10"),
	  "caught M>M f= fin=0; superseded M>- f= fin=1; caught Z>Z f= fin=0" },
	/* a filter, then the catcher found in its own method, which has no
	 * plain catch after a filter: true at once */
	{ "filter true",
	  T("0xa0", "A") IN("search_enter", "M") INF("filter_enter", "M", "0x100") OUTF("filter_leave", "0x100")
	  CF("M", "false") OUT("search_leave") IN("unwind_enter", "M") INF("catch_enter", "M", "0x100")
	  OUTF("catch_leave", "0x100"),
	  "caught M>M f=true fin=0" },
	/* another filter or the end of the frame's search after a filter:
	 * false, whatever the clause table says */
	{ "filter false",
	  T("0xa0", "A") IN("search_enter", "M") INF("filter_enter", "M", "0x100") OUTF("filter_leave", "0x100")
	  INF("filter_enter", "M", "0x100") OUTF("filter_leave", "0x100") OUT("search_leave")
	  IN("search_enter", "N") IN("catcher_found", "N") OUT("search_leave") IN("unwind_enter", "M")
	  OUT("unwind_leave") IN("unwind_enter", "N") INF("catch_enter", "N", "0x200") OUTF("catch_leave", "0x200"),
	  "caught M>N f=false,false fin=0" },
	/* a plain catch of the method could also take it: the catch that ran
	 * decides, at its Leave */
	{ "filter decided by its handler",
	  T("0xa0", "A") IN("search_enter", "M") INF("filter_enter", "M", "0x100") OUTF("filter_leave", "0x100")
	  CF("M", "true") OUT("search_leave") IN("unwind_enter", "M") INF("catch_enter", "M", "0x100")
	  CL("0x100", "true"),
	  "caught M>M f=true fin=0" },
	{ "filter decided by a plain catch",
	  T("0xa0", "A") IN("search_enter", "M") INF("filter_enter", "M", "0x100") OUTF("filter_leave", "0x100")
	  CF("M", "true") OUT("search_leave") IN("unwind_enter", "M") INF("catch_enter", "M", "0x100")
	  CL("0x100", "false"),
	  "caught M>M f=false fin=0",
	  /* the span ended before the catch ran: it says so */
	  .filter_results = "unknown" },
	/* the clause that ran could not be told, or the clause table not read:
	 * "unknown", never a guess */
	{ "filter undecidable",
	  T("0xa0", "A") IN("search_enter", "M") INF("filter_enter", "M", "0x100") OUTF("filter_leave", "0x100")
	  CF("M", "true") OUT("search_leave") IN("unwind_enter", "M") INF("catch_enter", "M", "0x100")
	  OUTF("catch_leave", "0x100")
	  T("0xb0", "B") IN("search_enter", "M") INF("filter_enter", "M", "0x100") OUTF("filter_leave", "0x100")
	  IN("catcher_found", "M") OUT("search_leave") IN("unwind_enter", "M") INF("catch_enter", "M", "0x100")
	  OUTF("catch_leave", "0x100"),
	  "caught M>M f=unknown fin=0; caught M>M f=unknown fin=0" },
	/* the clause table unread, but the handler that ran is a filter's:
	 * the last filter of that frame said true */
	{ "filter decided without the clause table",
	  T("0xa0", "A") IN("search_enter", "M") INF("filter_enter", "M", "0x100") OUTF("filter_leave", "0x100")
	  IN("catcher_found", "M") OUT("search_leave") IN("unwind_enter", "M") INF("catch_enter", "M", "0x100")
	  CL("0x100", "true"),
	  "caught M>M f=true fin=0" },
	/* the catch never ends (the thread does): the result stays unknown; a
	 * catch that was entered counts as caught */
	{ "filter undecided at thread end",
	  T("0xa0", "A") IN("search_enter", "M") INF("filter_enter", "M", "0x100") OUTF("filter_leave", "0x100")
	  CF("M", "true") OUT("search_leave") IN("unwind_enter", "M") INF("catch_enter", "M", "0x100")
	  OUT("thread_end"),
	  "caught M>M f=unknown fin=0", 0 },
	/* a catch inside the catch that decides does not take the decision */
	{ "filter decided past a nested catch",
	  T("0xa0", "A") IN("search_enter", "M") INF("filter_enter", "M", "0x100") OUTF("filter_leave", "0x100")
	  CF("M", "true") OUT("search_leave") IN("unwind_enter", "M") INF("catch_enter", "M", "0x100")
	  T("0xb0", "B") IN("search_enter", "H") IN("catcher_found", "H") OUT("search_leave")
	  IN("unwind_enter", "H") INF("catch_enter", "H", "0x50") OUTF("catch_leave", "0x50")
	  CL("0x100", "false"),
	  "caught H>H f= fin=0; caught M>M f=false fin=0" },
	/* a filter that throws: "threw" (the runtime takes it as false) */
	{ "filter threw",
	  T("0xa0", "A") IN("search_enter", "M") INF("filter_enter", "M", "0x100") T("0xb0", "B")
	  IN("search_enter", "F") OUT("search_leave") OUT("unwind_leave") IN("unwind_enter", "F") OUT("unwind_leave")
	  OUTF("filter_leave", "0x100") CF("M", "true") OUT("search_leave") IN("unwind_enter", "M")
	  INF("catch_enter", "M", "0x100") CL("0x100", "false"),
	  "swallowed F>- f= fin=0; caught M>M f=threw fin=0" },
	/* a muted (filtered-out) exception is followed but leaves no record,
	 * and does not steal the callbacks of the one it is nested in */
	{ "muted",
	  "{\"tid\":1,\"in\":\"thrown\",\"object\":\"0xa0\",\"type\":\"X\",\"muted\":true}\n"
	  IN("search_enter", "M") IN("catcher_found", "M") OUT("search_leave") IN("unwind_enter", "M")
	  INF("catch_enter", "M", "0x100") T("0xb0", "B") IN("search_enter", "H") IN("catcher_found", "H")
	  OUT("search_leave") IN("unwind_enter", "H") INF("catch_enter", "H", "0x50") OUTF("catch_leave", "0x50")
	  OUTF("catch_leave", "0x100"),
	  "caught H>H f= fin=0", .count_event = "exception.throw", .count = 1 },
	/* a boundary, then a throw the tracer cannot relate to it: its story
	 * ends unknown, and the new exception is not nested in it */
	{ "boundary, then something else",
	  T("0xa0", "A") IN("search_enter", "M") "{\"tid\":1,\"in\":\"unwind_leave\",\"verdict\":\"boundary\"}\n"
	  IN("unwind_enter", "M") OUT("unwind_leave")
	  T("0xb0", "B") IN("search_enter", "Z") IN("catcher_found", "Z") OUT("search_leave")
	  IN("unwind_enter", "Z") INF("catch_enter", "Z", "0x10") OUTF("catch_leave", "0x10"),
	  "unknown M>- f= fin=0; caught Z>Z f= fin=0" },
	/* a boundary, then the same exception moved by a GC (another address,
	 * the same type, thrown before): one journey */
	{ "boundary, then the object moved",
	  T("0xa0", "A") IN("search_enter", "M") "{\"tid\":1,\"in\":\"unwind_leave\",\"verdict\":\"boundary\"}\n"
	  IN("unwind_enter", "M") OUT("unwind_leave")
	  "{\"tid\":1,\"in\":\"thrown\",\"object\":\"0xb0\",\"type\":\"A\",\"traced\":true}\n"
	  IN("search_enter", "Z") IN("catcher_found", "Z") OUT("search_leave")
	  IN("unwind_enter", "Z") INF("catch_enter", "Z", "0x10") OUTF("catch_leave", "0x10"),
	  "rethrown M>- f= fin=0; caught Z>Z f= fin=0 rethrow" },
	/* the TypeInitializationException that the runtime caches and throws
	 * again at a later access of the type: its stack trace cleared (not
	 * traced), the same address, type and InnerException object */
	{ "cached wrapper thrown again",
	  TI("0xe10", "TIE", "0xe20") IN("search_enter", "M") IN("catcher_found", "M") OUT("search_leave")
	  IN("unwind_enter", "M") INF("catch_enter", "M", "0x10") OUTF("catch_leave", "0x10")
	  TI("0xe10", "TIE", "0xe20") IN("search_enter", "M") IN("catcher_found", "M") OUT("search_leave")
	  IN("unwind_enter", "M") INF("catch_enter", "M", "0x10") OUTF("catch_leave", "0x10"),
	  "caught M>M f= fin=0; caught M>M f= fin=0 rethrow" },
	/* never thrown before, and another InnerException: a new object at
	 * the old one's address */
	{ "new wrapper at a caught one's address",
	  TI("0xe30", "TIE", "0xe40") IN("search_enter", "M") IN("catcher_found", "M") OUT("search_leave")
	  IN("unwind_enter", "M") INF("catch_enter", "M", "0x10") OUTF("catch_leave", "0x10")
	  TI("0xe30", "TIE", "0xe50") IN("search_enter", "M") IN("catcher_found", "M") OUT("search_leave")
	  IN("unwind_enter", "M") INF("catch_enter", "M", "0x10") OUTF("catch_leave", "0x10"),
	  "caught M>M f= fin=0; caught M>M f= fin=0" },
	/* ... or no InnerException at all */
	{ "new object at a caught one's address",
	  T("0xe60", "A") IN("search_enter", "M") IN("catcher_found", "M") OUT("search_leave")
	  IN("unwind_enter", "M") INF("catch_enter", "M", "0x10") OUTF("catch_leave", "0x10")
	  T("0xe60", "A") IN("search_enter", "M") IN("catcher_found", "M") OUT("search_leave")
	  IN("unwind_enter", "M") INF("catch_enter", "M", "0x10") OUTF("catch_leave", "0x10"),
	  "caught M>M f= fin=0; caught M>M f= fin=0" },
	/* the same inner object, another type: not the same wrapper */
	{ "another type with the same inner object",
	  TI("0xe70", "TIE", "0xe80") IN("search_enter", "M") IN("catcher_found", "M") OUT("search_leave")
	  IN("unwind_enter", "M") INF("catch_enter", "M", "0x10") OUTF("catch_leave", "0x10")
	  TI("0xe70", "TIE2", "0xe80") IN("search_enter", "M") IN("catcher_found", "M") OUT("search_leave")
	  IN("unwind_enter", "M") INF("catch_enter", "M", "0x10") OUTF("catch_leave", "0x10"),
	  "caught M>M f= fin=0; caught M>M f= fin=0" },
	/* throw; in a catch block after a GC moved the object (another
	 * address; the same type and message, thrown before): a rethrow */
	{ "moved in a catch block", IN_CATCH(TM("0xf20", "A", "one", TRACED)) TO_Z,
	  "rethrown M>M f= fin=0; caught M>Z f= fin=0 rethrow" },
	/* ... but not with another message, nor a new object (no trace);
	 * the ring of recent stories is the whole test's: new addresses */
	{ "another message in a catch block", IN_CATCH(TM("0xf22", "A", "two", TRACED)) TO_Z,
	  "superseded M>M f= fin=0; caught M>Z f= fin=0" },
	{ "a new object in a catch block", IN_CATCH(TM("0xf24", "A", "one", "")) TO_Z,
	  "superseded M>M f= fin=0; caught M>Z f= fin=0" },
	/* the address of a story older than the catch's: a dead object whose
	 * place the GC gave to the caught one, which is rethrown */
	{ "moved to an older story's address",
	  TM("0xf30", "A", "one", "") IN("search_enter", "M") IN("catcher_found", "M") OUT("search_leave")
	  IN("unwind_enter", "M") INF("catch_enter", "M", "0x10") OUTF("catch_leave", "0x10")
	  IN_CATCH(TM("0xf30", "A", "one", TRACED)) TO_Z,
	  "caught M>M f= fin=0; rethrown M>M f= fin=0; caught M>Z f= fin=0 rethrow" },
	/* the address of a younger story, thrown and caught in the catch
	 * block: that object (alive) thrown again, not the caught one */
	{ "a younger story's object in a catch block",
	  IN_CATCH(TM("0xf50", "A", "one", "") IN("search_enter", "H") IN("catcher_found", "H") OUT("search_leave")
		   IN("unwind_enter", "H") INF("catch_enter", "H", "0x08") OUTF("catch_leave", "0x08")
		   TM("0xf50", "A", "one", TRACED)) TO_Z,
	  "caught H>H f= fin=0; superseded M>M f= fin=0; caught M>Z f= fin=0 rethrow" },
	/* a boundary, and the thread ends before any other throw */
	{ "boundary, then thread end",
	  T("0xa0", "A") IN("search_enter", "M") "{\"tid\":1,\"in\":\"unwind_leave\",\"verdict\":\"boundary\"}\n"
	  IN("unwind_enter", "M") OUT("unwind_leave") OUT("thread_end"),
	  "unknown M>- f= fin=0" },
	/* no verdict (the snapshot failed): unhandled, as before */
	{ "search failed, no verdict",
	  T("0xa0", "A") IN("search_enter", "M") OUT("unwind_leave") IN("unwind_enter", "M"),
	  "unhandled M>- f= fin=0", 0, 1 },
};

static json_t *parse_lines(const char *s);

/* The "identity" of every exception.error, ","-joined: "handle" where it
 * is left out, its default. */
static const char *identities(const struct capture *c)
{
	static char all[256];
	size_t len = 0, i;
	json_t *r;

	all[0] = 0;
	json_array_foreach(c->records, i, r)
		if (strcmp(json_string_value(json_object_get(r, "event")), "exception.error") == 0 && len < sizeof(all)) {
			const char *id = json_string_value(json_object_get(json_object_get(r, "p"), "identity"));

			len += (size_t)snprintf(all + len, sizeof(all) - len, "%s%s", len ? "," : "", id ? id : "handle");
		}
	return all;
}

/* tests/programs/Scenarios gc-ident on .NET 10, 8 and 11
 * (ident-gc-netV.jsonl): one object, thrown by an async method and stored
 * in its Task, moved by compacting GCs, thrown again by the Task's awaiter,
 * by `throw;` after a GC in a catch (moved there too on 8 and 11, pinned
 * on 10), and by ExceptionDispatchInfo on another thread after a GC: by
 * its weak handle, one error.  The same inputs without the handles (the
 * address fallback) split it: the test needs them. */
static const char *const ident_fixtures[] = { "ident-gc-net10", "ident-gc-net8", "ident-gc-net11" };
#define IDENT_FATE "handled/program origin=Scenarios.Program+<IdentThrow>d__53.MoveNext throws=4 hops=2/1/0"

static void check_ident(const char *dir, const char *name)
{
	json_t *lines = load(dir, name), *o;
	struct capture c;
	const char *got;
	size_t i;

	if (!lines) {
		CHECK(0, "fixture %s/%s.jsonl readable", dir, name);
		return;
	}
	replay(lines, &c);
	got = strchr(fates(&c), ' ') ? strchr(fates(&c), ' ') + 1 : "";
	CHECK(strcmp(got, IDENT_FATE) == 0, "%s: errors '%s'%s%s", name, got, strcmp(got, IDENT_FATE) ? " want " : "",
	      strcmp(got, IDENT_FATE) ? IDENT_FATE : "");
	CHECK(strcmp(identities(&c), "handle") == 0, "%s: identity '%s' (want handle)", name, identities(&c));
	verify(name, &c, summaries(&c), 0, 0);
	/* (the ring of recent stories is the whole test's: other addresses) */
	json_array_foreach(lines, i, o) {
		const char *obj = json_string_value(json_object_get(o, "object"));
		char moved[32];

		json_object_del(o, "handle");
		json_object_del(o, "handle_new");
		if (obj) {
			snprintf(moved, sizeof(moved), "0x%llx", strtoull(obj, NULL, 16) ^ 0x10000000000ull);
			json_object_set_new(o, "object", json_string(moved));
		}
	}
	replay(lines, &c);
	CHECK(count_event(&c, "exception.error") > 1, "%s without handles: the moved object splits (%zu errors: %s)", name,
	      count_event(&c, "exception.error"), fates(&c));
	CHECK(strstr(identities(&c), "address") == identities(&c), "%s without handles: identity '%s'", name,
	      identities(&c));
	verify(name, &c, summaries(&c), 0, 0);
	json_decref(lines);
}

/* A new object at the address of an open error's (the old one moved away,
 * or died): its traced flag and type would make it a rethrow by address;
 * the handles say it is another object (the glue resolved the open
 * error's handle to another address, and made a new one). */
static void check_stale_address(void)
{
	json_t *lines = parse_lines(
		"{\"tid\":1,\"in\":\"thrown\",\"object\":\"0x6a0\",\"type\":\"A\",\"handle\":\"0x100\",\"handle_new\":true}\n"
		"{\"tid\":1,\"in\":\"search_enter\",\"function\":\"M\"}\n"
		"{\"tid\":1,\"in\":\"catcher_found\",\"function\":\"M\"}\n"
		"{\"tid\":1,\"in\":\"search_leave\"}\n"
		"{\"tid\":1,\"in\":\"unwind_enter\",\"function\":\"M\"}\n"
		"{\"tid\":1,\"in\":\"catch_enter\",\"function\":\"M\",\"object\":\"0x6a0\",\"frame\":\"0x10\","
		"\"handler_kind\":\"async\"}\n"
		"{\"tid\":1,\"in\":\"catch_leave\",\"frame\":\"0x10\"}\n"
		"{\"tid\":1,\"in\":\"thrown\",\"object\":\"0x6a0\",\"type\":\"A\",\"traced\":true,\"handle\":\"0x200\","
		"\"handle_new\":true}\n"
		"{\"tid\":1,\"in\":\"search_enter\",\"function\":\"M\"}\n"
		"{\"tid\":1,\"in\":\"catcher_found\",\"function\":\"M\"}\n"
		"{\"tid\":1,\"in\":\"search_leave\"}\n"
		"{\"tid\":1,\"in\":\"unwind_enter\",\"function\":\"M\"}\n"
		"{\"tid\":1,\"in\":\"catch_enter\",\"function\":\"M\",\"object\":\"0x6a0\",\"frame\":\"0x10\"}\n"
		"{\"tid\":1,\"in\":\"catch_leave\",\"frame\":\"0x10\"}\n");
	struct capture c;

	replay(lines, &c);
	CHECK(count_event(&c, "exception.error") == 2, "stale address: two errors (got %zu: %s)",
	      count_event(&c, "exception.error"), fates(&c));
	verify("stale address", &c, "caught M>M f= fin=0; caught M>M f= fin=0", 0, 0);
	json_decref(lines);
}

/* A stored error wrapped after a GC moved it: the wrapper's InnerException
 * is at another address, and the glue found its handle (moved); or it is
 * at the stored one's old address, another object there now, and the
 * glue found no handle for it (stale): wrapped only in the first. */
#define WRAP_SEQ(inner)                                                                                         \
	"{\"tid\":1,\"in\":\"thrown\",\"object\":\"0x7a0\",\"type\":\"A\",\"handle\":\"0x300\",\"handle_new\":true}\n" \
	IN("search_enter", "M") IN("catcher_found", "M") OUT("search_leave") IN("unwind_enter", "M")             \
	"{\"tid\":1,\"in\":\"catch_enter\",\"function\":\"M\",\"frame\":\"0x10\",\"handler_kind\":\"async\"}\n"         \
	OUTF("catch_leave", "0x10")                                                                             \
	"{\"tid\":1,\"in\":\"thrown\",\"object\":\"0x7b0\",\"type\":\"W\",\"handle\":\"0x400\",\"handle_new\":true," inner "}\n" \
	IN("search_enter", "M") IN("catcher_found", "M") OUT("search_leave") IN("unwind_enter", "M")             \
	INF("catch_enter", "M", "0x10") OUTF("catch_leave", "0x10")

static void check_wraps(void)
{
	static const struct { const char *name, *lines, *want; } cases[] = {
		{ "wrapped after a move", WRAP_SEQ("\"inner\":\"0x7c0\",\"inner_handle\":\"0x300\",\"inner_checked\":true"),
		  "wrapped/-" },
		{ "another object at a stored one's address", WRAP_SEQ("\"inner\":\"0x7a0\",\"inner_checked\":true"), "stored/async" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		json_t *lines = parse_lines(cases[i].lines), *r;
		const char *fate = "-", *kind = "-";
		struct capture c;
		size_t k;

		replay(lines, &c);
		json_array_foreach(c.records, k, r) {
			json_t *p = json_object_get(r, "p");

			if (strcmp(json_string_value(json_object_get(r, "event")), "exception.error") != 0 ||
			    strcmp(json_string_value(json_object_get(json_object_get(p, "exception"), "type")), "A") != 0)
				continue;
			fate = json_string_value(json_object_get(p, "fate"));
			kind = json_string_value(json_object_get(json_object_get(p, "handler"), "kind"));
		}
		char got[64];

		snprintf(got, sizeof(got), "%s/%s", fate, kind ? kind : "-");
		CHECK(strcmp(got, cases[i].want) == 0, "%s: A's error %s (want %s)", cases[i].name, got, cases[i].want);
		verify(cases[i].name, &c, "caught M>M f= fin=0; caught M>M f= fin=0", 0, 0);
		json_decref(lines);
	}
}

static json_t *parse_lines(const char *s)
{
	json_t *a = json_array();

	while (s && *s) {
		const char *nl = strchr(s, '\n');
		json_error_t err;
		json_t *o = json_loadb(s, nl ? (size_t)(nl - s) : strlen(s), 0, &err);

		if (o)
			json_array_append_new(a, o);
		else
			printf("FAIL: bad quirk line: %s\n", err.text), failures++;
		s = nl ? nl + 1 : NULL;
	}
	return a;
}

/* How many records link to an earlier story (rethrow_of). */
static size_t rethrow_links(const struct capture *c)
{
	size_t n = 0, i;
	json_t *r;

	json_array_foreach(c->records, i, r)
		n += json_is_integer(json_object_get(json_object_get(r, "p"), "rethrow_of"));
	return n;
}

/* A new trace (exm_totals_reset, at a re-attach) forgets the exceptions
 * caught in the old one: the same object thrown again links to no story
 * of the old trace.  Without the reset it does (the test can fail). */
static void test_new_trace(void)
{
	static const char first[] = IN_CATCH(OUTF("catch_leave", "0x10"));
	static const char again[] = TM("0xf10", "A", "one", TRACED) IN("search_enter", "M") IN("catcher_found", "M")
		OUT("search_leave") IN("unwind_enter", "M") INF("catch_enter", "M", "0x10") OUTF("catch_leave", "0x10");
	json_t *l1 = parse_lines(first), *l2 = parse_lines(again);
	struct capture c;

	for (int reset = 0; reset < 2; reset++) {
		replay(l1, &c);
		json_decref(c.records);
		if (reset)
			exm_totals_reset();
		replay(l2, &c);
		/* the throw and the summary */
		CHECK(rethrow_links(&c) == (reset ? 0u : 2u), "%s: %zu records link to the first story (want %d)",
		      reset ? "a new trace" : "the same trace", rethrow_links(&c), reset ? 0 : 2);
		verify(reset ? "a new trace" : "the same trace", &c,
		       reset ? "caught M>M f= fin=0" : "caught M>M f= fin=0 rethrow", 0, 0);
	}
	json_decref(l1);
	json_decref(l2);
}

/* One replay of LINES under allocation failure.  The machine returns no
 * error: what it cannot build is written as null, a story it cannot
 * follow is said (an "out of memory" trace.error) or, when the thread's
 * machine cannot be made, not followed (as the glue does).  Clean: the
 * spans nest, and with no failure the records are whole (WANT's
 * summaries, no error).  Runs whose records lost a part without an error
 * are counted in DEGRADED. */
struct chaos_replay {
	json_t *lines;
	const char *want;
	long degraded;
};

static bool chaos_replay(void *ud)
{
	struct chaos_replay *r = ud;
	struct capture c;
	bool whole, said;

	replay(r->lines, &c);
	chaos_pause();
	whole = strcmp(summaries(&c), r->want) == 0 && c.errors == 0 && !c.no_machine;
	/* an out-of-memory error said it (what follows from it, a reset of
	 * the tracking, may be said too), or no machine could be made */
	said = c.oom_errors > 0 || (c.no_machine && !c.errors);
	if (!whole && !said) {
		r->degraded++;
		if (getenv("CHAOS_DEBUG"))
			printf("   degraded: got '%s' errors %d/%d no_machine %d\n   want '%s'\n", summaries(&c), c.errors,
			       c.oom_errors, c.no_machine, r->want);
	}
	json_decref(c.records);
	chaos_resume();
	return c.nesting_errors == 0 && (whole || chaos_failed());
}

/* The machine fails each allocation of a replay in turn (chaos.h). */
static void test_chaos(const char *dir)
{
	static const char *const names[] = { "filters", "rethrow", "finally", "unhandled-main", "async" };

	for (size_t i = 0; i < ELEMENTSOF(names); i++) {
		json_t *lines = load(dir, names[i]);
		struct chaos_replay r = { .lines = lines };
		struct capture c;
		char name[64];

		if (!lines) {
			CHECK(0, "fixture %s/%s.jsonl readable", dir, names[i]);
			continue;
		}
		replay(lines, &c);
		r.want = strdup(summaries(&c));
		json_decref(c.records);
		snprintf(name, sizeof(name), "allocation failure, %s", names[i]);
		failures += chaos_each(name, chaos_replay, &r, 100000);
		CHECK(r.degraded == 0, "%s: no run loses part of a record without an out-of-memory trace.error (%ld did)",
		      name, r.degraded);
		free((char *)r.want);
		json_decref(lines);
	}
}

int main(int argc, char **argv)
{
	jw_fields_strict = true;
	const char *srcdir = getenv("top_srcdir");
	char dir[4096];
	struct capture c;

	snprintf(dir, sizeof(dir), "%s/tests/fixtures/exceptions", srcdir ? srcdir : ".");
	for (size_t i = 0; i < sizeof(fixtures) / sizeof(fixtures[0]); i++) {
		json_t *lines = load(dir, fixtures[i].name);

		if (!lines) {
			CHECK(0, "fixture %s/%s.jsonl readable", dir, fixtures[i].name);
			continue;
		}
		replay(lines, &c);
		/* an unhandled exception on .NET 11 passes the runtime's filter, begin and end */
		if (strstr(fixtures[i].name, "unhandled-") == fixtures[i].name && strstr(fixtures[i].name, "-net11")) {
			size_t rt, prog;

			runtime_filter_records(&c, &rt, &prog);
			CHECK(rt == 2 && prog == 0, "%s: %zu runtime filter records, %zu of the program's (want 2, 0)",
			      fixtures[i].name, rt, prog);
		}
		verify(fixtures[i].name, &c, fixtures[i].want, 0, fixtures[i].dying);
		json_decref(lines);
	}
	for (size_t i = 0; i < sizeof(verdict_fixtures) / sizeof(verdict_fixtures[0]); i++) {
		const struct fixture *f = &verdict_fixtures[i];
		json_t *lines = load(dir, f->name);
		const char *got;

		if (!lines) {
			CHECK(0, "fixture %s/%s.jsonl readable", dir, f->name);
			continue;
		}
		replay(lines, &c);
		got = verdicts(&c);
		CHECK(strcmp(got, f->want) == 0, "%s: '%s'%s%s", f->name, got, strcmp(got, f->want) ? " want " : "",
		      strcmp(got, f->want) ? f->want : "");
		verify(f->name, &c, summaries(&c), 0, f->dying);
		json_decref(lines);
	}
	for (size_t i = 0; i < sizeof(fates_fixtures) / sizeof(fates_fixtures[0]); i++) {
		const struct fates_fixture *f = &fates_fixtures[i];
		json_t *lines = load(dir, f->name);
		const char *got;

		if (!lines) {
			CHECK(0, "fixture %s/%s.jsonl readable", dir, f->name);
			continue;
		}
		replay(lines, &c);
		if (f->want) {
			got = strchr(fates(&c), ' ') ? strchr(fates(&c), ' ') + 1 : "";
			CHECK(strcmp(got, f->want) == 0, "%s: errors '%s'%s%s", f->name, got, strcmp(got, f->want) ? " want " : "",
			      strcmp(got, f->want) ? f->want : "");
		} else {
			/* ten errors handled by the program, two wrapped by the libraries */
			got = fate_counts(&c);
			CHECK(strcmp(got, "10 handled/program; 2 wrapped") == 0, "%s: errors '%s'", f->name, got);
		}
		verify(f->name, &c, summaries(&c), 0, f->dying);
		json_decref(lines);
	}
	for (size_t i = 0; i < sizeof(ident_fixtures) / sizeof(ident_fixtures[0]); i++)
		check_ident(dir, ident_fixtures[i]);
	check_stale_address();
	check_wraps();
	for (size_t i = 0; i < sizeof(quirks) / sizeof(quirks[0]); i++) {
		json_t *lines = parse_lines(quirks[i].lines);

		replay(lines, &c);
		if (quirks[i].count_event)
			CHECK(count_event(&c, quirks[i].count_event) == quirks[i].count, "%s: %zu %s records (want %zu)",
			      quirks[i].name, count_event(&c, quirks[i].count_event), quirks[i].count_event,
			      quirks[i].count);
		if (quirks[i].filter_results)
			CHECK(strcmp(filter_end_results(&c), quirks[i].filter_results) == 0,
			      "%s: its exception.filter ends say %s (want %s)", quirks[i].name, filter_end_results(&c),
			      quirks[i].filter_results);
		verify(quirks[i].name, &c, quirks[i].want, quirks[i].errors, quirks[i].dying);
		json_decref(lines);
	}
	/* THE SAMPLED RULE: every error left out, its throws write nothing;
	 * an unhandled one still gets its verdict and its exception.error.
	 * (Not the wrappers of errors-net*-handled: the recent-rethrow ring
	 * outlives a replay, and a new wrapper at an address and with an inner
	 * object an earlier replay had is taken for that one thrown again.) */
	static const struct {
		const char *name, *want, *lines; /* a fixture, or LINES */
	} sampled[] = {
		/* a framework's last-chance catch (Kestrel's) decides */
		{ "framework's final catch", "exception.error/handled_by_framework ",
		  T("0xe10", "Boom") IN("search_enter", "M") OUT("search_leave") IN("search_enter", "K")
		  IN("catcher_found", "K") OUT("search_leave") IN("unwind_enter", "M") OUT("unwind_leave")
		  IN("unwind_enter", "K")
		  "{\"tid\":1,\"in\":\"catch_enter\",\"function\":\"K\",\"frame\":\"0x30\","
		  "\"handler_kind\":\"framework\",\"handler_final\":true,\"handler_label\":\"Kestrel (500)\"}\n"
		  OUTF("catch_leave", "0x30") },
		{ "rethrow", "" },
		{ "same", "" },
		{ "throw-ex", "" },
		{ "async", "" },
		{ "unhandled-main", "exception.unhandled exception.error/unhandled " },
		{ "errors-net10-crash", "exception.unhandled exception.error/unhandled " },
		{ "errors-net8-crash", "exception.unhandled exception.error/unhandled " },
	};
	sample_all = true;
	for (size_t i = 0; i < sizeof(sampled) / sizeof(sampled[0]); i++) {
		json_t *lines = sampled[i].lines ? parse_lines(sampled[i].lines) : load(dir, sampled[i].name), *r;
		char got[512] = "";
		size_t len = 0, k;
		bool all_sampled = true;

		if (!lines) {
			CHECK(0, "fixture %s/%s.jsonl readable", dir, sampled[i].name);
			continue;
		}
		replay(lines, &c);
		json_array_foreach(c.records, k, r) {
			json_t *p = json_object_get(r, "p");
			const char *fate = json_string_value(json_object_get(p, "fate"));

			all_sampled = all_sampled && json_is_true(json_object_get(p, "sampled"));
			if (len < sizeof(got))
				len += (size_t)snprintf(got + len, sizeof(got) - len, "%s%s%s ",
							json_string_value(json_object_get(r, "event")), fate ? "/" : "",
							fate ? fate : "");
		}
		CHECK(strcmp(got, sampled[i].want) == 0 && all_sampled && !c.errors && !c.nesting_errors,
		      "sampled %s: records '%s'%s%s, all \"sampled\": %d, %d errors", sampled[i].name, got,
		      strcmp(got, sampled[i].want) ? " want " : "", strcmp(got, sampled[i].want) ? sampled[i].want : "",
		      all_sampled, c.errors + c.nesting_errors);
		json_decref(c.records);
		json_decref(lines);
	}
	sample_all = false;
	test_new_trace();
	test_chaos(dir);
	if (failures)
		printf("%d check(s) failed\n", failures);
	return failures ? 1 : 0;
}
