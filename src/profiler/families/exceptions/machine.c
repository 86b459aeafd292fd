/* SPDX-License-Identifier: MIT */
/*
 * The per-thread exception state machine (its records: clrtrace-records(5)).
 *
 * Each thread has a stack of live exceptions; a nested exception (thrown
 * while another's filter, finally or catch runs) sits above the one it is
 * nested in.  Callbacks carry no exception identity, so an input belongs to
 * the innermost exception, except handler Leaves, which are matched by the
 * clause frame pointer.  Observed on .NET 10 (tests/fixtures/exceptions):
 * no callback says "no handler": a search that reaches the end of the stack
 * is followed by a stray UnwindFunctionLeave and the second pass; an
 * exception escaping a filter looks the same and ends at the FilterLeave.
 * A search that stops at a native boundary (reflection, a type initializer)
 * looks the same too: the glue tells them apart with a stack snapshot and
 * hands the answer in (exm_input.verdict; on .NET 8 the snapshot at the
 * throw, exm_input.native_depth); a boundary's story ends at the thread's
 * next throw, which raises the same object again or wraps it.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "profiler/families/exceptions/machine.h"
#include "profiler/families/exceptions/machine-legacy.h"
#include "common/strtable.h"

#define MAX_LIVE 64    /* live exceptions per thread before we give up */
#define RECENT 512     /* caught exceptions remembered for rethrow links */

const char *const exm_input_names[_EXM_INPUT_MAX] = {
	[EXM_THROWN] = "thrown",
	[EXM_SEARCH_ENTER] = "search_enter",
	[EXM_SEARCH_LEAVE] = "search_leave",
	[EXM_FILTER_ENTER] = "filter_enter",
	[EXM_FILTER_LEAVE] = "filter_leave",
	[EXM_CATCHER_FOUND] = "catcher_found",
	[EXM_UNWIND_ENTER] = "unwind_enter",
	[EXM_UNWIND_LEAVE] = "unwind_leave",
	[EXM_FINALLY_ENTER] = "finally_enter",
	[EXM_FINALLY_LEAVE] = "finally_leave",
	[EXM_CATCH_ENTER] = "catch_enter",
	[EXM_CATCH_LEAVE] = "catch_leave",
	[EXM_THREAD_END] = "thread_end",
	[EXM_EXIT] = "exit",
};

const char *const exm_verdict_names[_EXM_VERDICT_MAX] = {
	[EXM_VERDICT_UNKNOWN] = "unknown",
	[EXM_VERDICT_UNHANDLED] = "unhandled",
	[EXM_VERDICT_BOUNDARY] = "boundary",
};

/* Input kind from its fixture name, or _EXM_INPUT_INVALID. */
DEFINE_STRING_TABLE_FROM_STRING_OF(exm_input, exm_input_names, enum exm_input_kind, _EXM_INPUT_INVALID)

/*
 * PHASES.  Where a story is, one value (struct exr.phase):
 *
 *            thrown
 *              |
 *              v       FilterEnter             FilterLeave
 *   +------> SEARCH -------------> FILTER ---------------> FILTER_RETURNED
 *   |          |                     |                            |
 *   |          |                     | a nested exception          | the next input tells
 *   |          |                     | escaped it ("threw"), or    | its result (settle_filter)
 *   +----------+---------------------+ it was abandoned            |
 *   +----------+--------------------------------------------------+
 *              | the first unwind input, or a finally/catch enter
 *              v           (start_unwind)
 *            UNWIND <----------------> FINALLY
 *                   <----------------> CATCH
 *              enter: enter_handler; back: its Leave, or abandoned
 *              (close_handler) by the next handler or frame
 *
 * (A second FilterLeave that matches a FILTER_RETURNED keeps it there.)
 * phase_next[] is that diagram; set_phase() checks every move against it
 * (a trace.error if one is not in it: none in any recorded sequence).
 * The spans follow from the phase: exception.search is open in the first
 * three (until exception.unhandled closed it: legacy EH ends the search
 * there), exception.unwind in the last three.  Orthogonal to the phase,
 * the frame span of the current pass (exception.search.frame in the first
 * pass, exception.unwind.frame in the second) is FRAME_NONE, FRAME_OPEN,
 * or FRAME_HELD: its Leave came, but a funclet duplicate of the frame may
 * follow (settle_pending decides at the next input).  A filter runs inside
 * its frame's search, a finally or catch inside its frame's unwind.
 * What the phase does not say are facts about the exception (muted,
 * has_catcher, boundary, reported_unhandled, wrapped…), and the legacy
 * (.NET 8) rules keep their own state (struct exl, machine-legacy.c).
 */
enum phase { SEARCH, FILTER, FILTER_RETURNED, UNWIND, FINALLY, CATCH, _PHASE_MAX };

static const char *const phase_names[_PHASE_MAX] = {
	[SEARCH] = "search", [FILTER] = "filter", [FILTER_RETURNED] = "filter_returned",
	[UNWIND] = "unwind", [FINALLY] = "finally", [CATCH] = "catch",
};

#define TO(p) (1u << (p))
/* The moves the diagram allows, from each phase. */
static const unsigned phase_next[_PHASE_MAX] = {
	[SEARCH] = TO(FILTER) | TO(UNWIND),
	[FILTER] = TO(FILTER_RETURNED) | TO(SEARCH),
	[FILTER_RETURNED] = TO(FILTER_RETURNED) | TO(SEARCH),
	[UNWIND] = TO(FINALLY) | TO(CATCH),
	[FINALLY] = TO(UNWIND),
	[CATCH] = TO(UNWIND),
};
#undef TO

enum frame_span { FRAME_NONE, FRAME_OPEN, FRAME_HELD };

/* The nested_in context of an exception thrown while another is in phase P. */
static const char *const context_names[_PHASE_MAX] = {
	[SEARCH] = "search", [FILTER] = "filter", [FILTER_RETURNED] = "filter", [UNWIND] = "unwind",
	[FINALLY] = "finally", [CATCH] = "catch",
};

static const enum ct_event handler_event[_PHASE_MAX] = {
	[FILTER] = EV_EXCEPTION_FILTER, [FINALLY] = EV_EXCEPTION_FINALLY, [CATCH] = EV_EXCEPTION_CATCH,
};

/* A list of function names the summary writes as a JSON array, kept as that
 * array's text ("[" and the members so far): a frame costs one escaped copy,
 * not a jansson string, an array slot and a walk at the summary.  Off (the
 * story never started): written as null. */
struct namelist {
	struct jw w;
	uint32_t n;
	bool on;
};

/* The text a story writes, in buffers a record keeps from one story to the
 * next (exr_new: a thread that throws often allocates nothing per story). */
struct story_text {
	struct jw exc;            /* {id,type,message,hresult} as written, once: its records repeat it */
	struct strbuf type;       /* its type, once the story started (len 0: not started) */
	struct namelist searched, finally, unwound;
};

/* One live exception. */
/* A filter the search ran, for the summary's filters list. */
struct exr_filter {
	const char *function; /* the input's (outlives the machine) */
	const char *result;   /* static */
	bool runtime;
};

struct exr {
	uint64_t id, object, t0;
	unsigned lost_items;      /* filters and nested ids its lists could not keep */
	enum phase phase;         /* where the story is (PHASES above) */
	enum frame_span frame;    /* the frame span of the current pass */
	bool muted, reported;
	/* left out by sampling (exm_emitter.keep): followed with its error,
	 * but only its verdict and a fatal fate are written */
	bool sampled;
	bool has_catcher;         /* the first pass found a catcher */
	bool coalesced;           /* a funclet duplicate frame was folded in already */
	bool handler_runtime;     /* the open filter is the runtime's (exm_input.runtime) */
	uint64_t frame_fn;        /* the function of the current pass's last frame */
	uint64_t handler_fn, handler_fp, handler_pc;
	uint64_t parent_id, parent_handler_fn, rethrow_of, superseded_by;
	const char *context;      /* static; NULL when not nested */
	/* function names: the input's, which outlive the machine (machine.h) */
	const char *frame_name, *handler_name, *thrown_in, *caught_in;
	size_t type_hash;         /* of the type the throw named, for recent[] */
	size_t msg_hash;          /* of its message, and its HRESULT: see moved_rethrow */
	int32_t hresult;
	bool has_hresult, no_message;
	struct jw_text *story_fields; /* the glue's, for the summary too; NULL: none */
	struct story_text t;      /* its text, in buffers kept for the next story */
	/* its filters (function, result) and the stories nested in it: made
	 * on first use, most stories have none */
	struct exr_filter *filters;
	uint64_t *nested;
	size_t n_filters, n_nested;
	struct exl lg;            /* legacy EH (.NET 8): machine-legacy.h */
	uint64_t inner, origin;   /* InnerException's object; first throw of the object */
	unsigned frames_entered, frames_unwound;
	bool boundary;            /* the search ended at a native boundary */
	bool reported_unhandled;  /* exception.unhandled was written */
	unsigned last_finallys;   /* finally blocks of the last frame still to run */
	bool wrapped;             /* superseded by a wrapper of it */
	const char *interrupted;  /* static: what ended the story early */
	/* 1 + index in filters of a result "unknown" until the catch that
	 * runs tells (see settle_filter); 0: none */
	size_t undecided;
	uint64_t undecided_fp;
	/* its error (the first throw of its object; 0: muted), whose catch it
	 * was (CATCH_ENTER), and what replaced it */
	uint64_t error, superseded_error;
	uint64_t type_id;         /* exm_input.type_id of its throw */
	enum ct_handler_kind hkind;
	const char *hlabel;
	bool hfinal;
	bool hop_boundary;        /* raised again after a native boundary */
	/* THROWN: the open error its handle names (exm_input.handle; 0: none
	 * or a new handle), and that error's newest throw */
	uint64_t h_err, h_last;
	bool h_sampled; /* that error was sampled out */
	uint64_t inner_handle;    /* exm_input.inner_handle, inner_checked */
	bool inner_checked;
};

struct exm {
	struct exr *live[MAX_LIVE];
	size_t n;
	bool dying;
	struct exr *spare;        /* the last story's, its buffers kept for the next */
};

/* THE MUTED RULE.  A muted exception (exm_input.muted: filtered out) is
 * followed like any other, so that its inputs are not taken for another's,
 * but its story is never told: no record, no name collected, its id in no
 * other story's record (id_of), not in the totals. */
static inline bool told(const struct exr *r)
{
	return !r->muted && !r->sampled;
}

/* THE SAMPLED RULE.  A sampled exception (exm_emitter.keep said no at its
 * error's first throw; its later throws inherit it) is told nothing of
 * either, but its error is followed: its origin, handler and fate are
 * known, and when that fate is unhandled or handled_by_framework its
 * exception.unhandled and exception.error are written ("sampled": true). */
static inline bool followed(const struct exr *r)
{
	return !r->muted;
}

/* R's id as another story may name it (rethrow_of, nested_in): 0 when muted. */
static inline uint64_t id_of(const struct exr *r)
{
	return told(r) ? r->id : 0;
}

static atomic_uint_fast64_t next_id = 1;
static atomic_uint_fast64_t totals[_OUTCOME_MAX];
static atomic_uint_fast64_t thrown_total; /* not muted */

/* Recently caught exceptions (any thread, from their catch's start), for
 * ExceptionDispatchInfo-style rethrows of an object whose first story may
 * already have ended.  Every throw and catch adds one, so no lock: a
 * writer takes a slot with one atomic add and fills it between two bumps
 * of its version (odd while it writes); a reader takes an entry only when
 * the version was even and the same before and after it read. */
struct recent_entry {
	atomic_uint_fast64_t ver;
	_Atomic uint64_t object, id, origin, inner, type_hash;
	_Atomic bool sampled;
};
static struct {
	atomic_uint_fast64_t next;
	struct recent_entry v[RECENT];
} recent;

static size_t hash_str(const char *s)
{
	size_t h = 5381;

	for (; s && *s; s++)
		h = h * 33 + (unsigned char)*s;
	return h;
}

static void recent_add(uint64_t object, uint64_t id, uint64_t origin, uint64_t inner, size_t type_hash,
		       bool sampled)
{
	struct recent_entry *e = &recent.v[atomic_fetch_add(&recent.next, 1) % RECENT];
	uint_fast64_t ver = atomic_load_explicit(&e->ver, memory_order_relaxed);

	/* another writer still in this slot (it came round the ring meanwhile):
	 * leave it to that one */
	if ((ver & 1) || !atomic_compare_exchange_strong(&e->ver, &ver, ver + 1))
		return;
	atomic_thread_fence(memory_order_release);
	atomic_store_explicit(&e->object, object, memory_order_relaxed);
	atomic_store_explicit(&e->id, id, memory_order_relaxed);
	atomic_store_explicit(&e->origin, origin, memory_order_relaxed);
	atomic_store_explicit(&e->inner, inner, memory_order_relaxed);
	atomic_store_explicit(&e->type_hash, type_hash, memory_order_relaxed);
	atomic_store_explicit(&e->sampled, sampled, memory_order_relaxed);
	atomic_store_explicit(&e->ver, ver + 2, memory_order_release);
}

/* The id of a recent exception that IN throws again (and in *ORIGIN the
 * first throw of its object), or 0.  The same address and type alone could
 * be a new object where a collected one was, so IN must also be one that
 * was thrown before (it holds a stack trace) or hold the same
 * InnerException object: the runtime clears the stack trace of the
 * TypeInitializationException it caches and throws again at each later
 * access of the type, and a new wrapper of the same inner object at the
 * old wrapper's address would need the old one collected and the inner
 * one not moved. */
static uint64_t recent_find(const struct exm_input *in, size_t type_hash, uint64_t *origin, bool *sampled)
{
	uint64_t next = atomic_load(&recent.next);

	if (!in->object || (!in->traced && !in->inner))
		return 0;
	for (uint64_t k = 1; k <= RECENT && k <= next; k++) { /* newest first */
		struct recent_entry *e = &recent.v[(next - k) % RECENT];
		uint_fast64_t v1 = atomic_load_explicit(&e->ver, memory_order_acquire);
		uint64_t obj = atomic_load_explicit(&e->object, memory_order_relaxed);
		uint64_t th = atomic_load_explicit(&e->type_hash, memory_order_relaxed);
		uint64_t inner = atomic_load_explicit(&e->inner, memory_order_relaxed);
		uint64_t id = atomic_load_explicit(&e->id, memory_order_relaxed);
		uint64_t org = atomic_load_explicit(&e->origin, memory_order_relaxed);
		bool smp = atomic_load_explicit(&e->sampled, memory_order_relaxed);

		atomic_thread_fence(memory_order_acquire);
		if ((v1 & 1) || v1 != atomic_load_explicit(&e->ver, memory_order_relaxed))
			continue; /* being written: not there yet */
		if (obj == in->object && th == type_hash && (in->traced || inner == in->inner)) {
			*origin = org;
			*sampled = smp;
			return id;
		}
	}
	return 0;
}

/* --- emission ------------------------------------------------------------- */

struct ctx {
	struct exm *m;
	const struct exm_emitter *e;
};

/* Does the emitter write EV at all? */
static inline bool wanted(const struct ctx *c, enum ct_event ev)
{
	return c->e->record && (!c->e->wants || c->e->wants(c->e->userdata, ev));
}

/* R's "exception" member, written once for all its records. */
static struct jw_field exc_field(const struct exr *r)
{
	return (struct jw_field){
		.key = "exception", .kind = JW_JSON, .s = r->t.exc.b.len ? r->t.exc.b.s : NULL,
		.len = r->t.exc.b.len,
	};
}

/* One record about R (nothing when R is muted) with the payload F, and
 * room in F for two more fields: the exception's {"id"} is added when no
 * field is "exception" (but not to a summary whose "error" is that id,
 * the story of its error's first throw: clrtrace-records(5)), and R's
 * "error" when it has one and no field is "error" (every record of an
 * error carries it, so that journalctl CLRTRACE_ERROR=N finds them all). */
static void out_fields(struct ctx *c, struct exr *r, enum ct_event ev, enum ct_phase ph, struct jw_fields *f)
{
	bool has_exc = false, has_err = false;

	if (!told(r) || !wanted(c, ev))
		return;
	for (size_t i = 0; i < f->n; i++) {
		has_exc = has_exc || strcmp(f->f[i].key, "exception") == 0;
		has_err = has_err || strcmp(f->f[i].key, "error") == 0;
	}
	if (!has_exc && !(ev == EV_EXCEPTION_SUMMARY && r->error == r->id))
		jwf_idref(f, "exception", (int64_t)r->id);
	if (!has_err && r->error)
		jwf_int(f, "error", (int64_t)r->error);
	if (r->t.exc.b.oom) /* the exception's text was lost */
		jwf_oom(f);
	if (ev == EV_EXCEPTION_SUMMARY)
		for (unsigned i = 0; i < r->lost_items; i++)
			jwf_oom(f);
	c->e->record(c->e->userdata, ev, ph, r->id, f);
}

/* A record of R whose payload is at most one flag (true), FLAG may be NULL. */
static void out_flag(struct ctx *c, struct exr *r, enum ct_event ev, enum ct_phase ph, const char *flag)
{
	JW_FIELDS(f, 3);

	if (flag)
		jwf_bool(&f, flag, true);
	out_fields(c, r, ev, ph, &f);
}

/* A span begin/end naming FUNCTION; end records may carry a flag. */
static void out_fn(struct ctx *c, struct exr *r, enum ct_event ev, enum ct_phase ph, const char *function,
		   const char *flag)
{
	JW_FIELDS(f, 4); /* not zeroed: frame spans are off by default */

	if (!told(r) || !wanted(c, ev))
		return;
	jwf_str(&f, "function", function);
	if (flag)
		jwf_bool(&f, flag, true);
	out_fields(c, r, ev, ph, &f);
}

static void report(struct ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A trace.error through the emitter. */
static void report(struct ctx *c, const char *fmt, ...)
{
	char buf[256];
	va_list ap;

	if (!c->e->error)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	c->e->error(c->e->userdata, buf);
}

static uint64_t now(struct ctx *c)
{
	return c->e->now ? c->e->now(c->e->userdata) : 0;
}

/* Add S (NULL: null) to L, if L is on. */
static void names_add(struct namelist *l, const char *s)
{
	if (!l->on)
		return;
	jw_raw(&l->w, l->n ? "," : "[", 1);
	if (s)
		jw_str(&l->w, s);
	else
		jw_raw(&l->w, "null", 4);
	l->n++;
}

/* L as the summary's field KEY.  Closes the array in place: names_reopen
 * takes the "]" back once the record is written. */
static void names_put(struct jw_fields *f, struct namelist *l, const char *key)
{
	if (!l->on) {
		jwf_null(f, key);
		return;
	}
	if (!l->n) {
		jwf_raw(f, key, "[]", 2);
		return;
	}
	if (!l->w.b.oom)
		jw_raw(&l->w, "]", 1);
	if (l->w.b.oom) { /* no "]": the text is not JSON; said */
		jwf_oom(f);
		jwf_null(f, key);
		return;
	}
	jwf_raw(f, key, l->w.b.s, l->w.b.len);
}

/* Room in the array *V (N elements of SIZE) for one more, in steps of
 * powers of two: false on ENOMEM (the element is left out). */
static bool grow(void *v, size_t n, size_t size)
{
	void **p = v, *q;

	if (n & (n - 1) || (n && n < 4))
		return true; /* room left: the capacity is the next power of two (at least 4) */
	q = reallocarray(*p, n ? n * 2 : 4, size);
	if (!q)
		return false;
	*p = q;
	return true;
}

/* A list of R's (N elements written by ITEM into W) as field KEY: null
 * when R's story never started, left out when it has none (its default,
 * [], in clrtrace-records(5)). */
static void list_field(struct jw_fields *f, const struct exr *r, const char *key, struct jw *w, size_t n,
		       void (*item)(struct jw *w, const struct exr *r, size_t i))
{
	if (!n) {
		if (!r->t.searched.on)
			jwf_null(f, key);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		jw_item(w, "[]");
		item(w, r, i);
	}
	jwf_collection(f, key, w, "[]");
}

/* R's filter I: {"function":…,"result":…[,"runtime":true]}. */
static void filter_item(struct jw *w, const struct exr *r, size_t i)
{
	const struct exr_filter *x = &r->filters[i];
	JW_FIELDS(f, 3);

	jwf_str(&f, "function", x->function);
	jwf_str(&f, "result", x->result);
	if (x->runtime)
		jwf_bool(&f, "runtime", true);
	jw_object(w, &f);
}

/* R's nested story I: its id. */
static void nested_item(struct jw *w, const struct exr *r, size_t i)
{
	jw_u64(w, r->nested[i]);
}

/* R's nested_in, {id, context} into O (NULL: R is not nested). */
static const struct jw_fields *nested(const struct exr *r, struct jw_fields *o)
{
	if (!r->parent_id || !r->context)
		return NULL;
	jwf_int(o, "id", (int64_t)r->parent_id);
	jwf_str(o, "context", r->context);
	return o;
}

/* Take back the "]" names_field added. */
static void names_reopen(struct namelist *l)
{
	if (l->on && l->n && !l->w.b.oom)
		l->w.b.len--;
}

/* --- phases ----------------------------------------------------------------- */

static bool in_search(const struct exr *r)
{
	return r->phase <= FILTER_RETURNED;
}

static bool in_filter(const struct exr *r)
{
	return r->phase == FILTER || r->phase == FILTER_RETURNED;
}

/* Is R's handler span of phase P (a FILTER that returned is still one) open? */
static bool in_handler(const struct exr *r, enum phase p)
{
	return p == FILTER ? in_filter(r) : r->phase == p;
}

/* Is exception.search open?  Legacy EH closes it at exception.unhandled. */
static bool search_open(const struct exr *r)
{
	return in_search(r) && !r->reported_unhandled;
}

static bool unwind_open(const struct exr *r)
{
	return !in_search(r);
}

/* R moves to phase TO (phase_next[] says whether it may). */
static void set_phase(struct ctx *c, struct exr *r, enum phase to)
{
	if (!(phase_next[r->phase] & 1u << to))
		report(c, "exception phase %s -> %s", phase_names[r->phase], phase_names[to]);
	r->phase = to;
}

/* --- spans of one exception, closed innermost first ----------------------- */

/* End the current pass's frame span; an unwind frame LEFT goes to unwound. */
static void close_frame(struct ctx *c, struct exr *r, const char *flag, bool left)
{
	if (r->frame == FRAME_NONE)
		return;
	if (in_search(r))
		out_fn(c, r, EV_EXCEPTION_SEARCH_FRAME, PH_END, r->frame_name, flag);
	else {
		out_fn(c, r, EV_EXCEPTION_UNWIND_FRAME, PH_END, r->frame_name, flag);
		if (left && told(r))
			names_add(&r->t.unwound, r->frame_name);
	}
	r->frame = FRAME_NONE;
}

/* Open the current pass's frame span for IN's function. */
static void open_frame(struct ctx *c, struct exr *r, const struct exm_input *in)
{
	r->frame_fn = in->fn;
	r->frame_name = in->function;
	out_fn(c, r, in_search(r) ? EV_EXCEPTION_SEARCH_FRAME : EV_EXCEPTION_UNWIND_FRAME, PH_BEGIN, in->function,
	       NULL);
	r->frame = FRAME_OPEN;
}

/* End the open filter with RESULT ("true", "false", "threw", "unknown"). */
static void close_filter(struct ctx *c, struct exr *r, const char *result, const char *flag)
{
	JW_FIELDS(p, 6);

	if (told(r)) {
		jwf_str(&p, "function", r->handler_name);
		jwf_str(&p, "result", result);
		if (flag)
			jwf_bool(&p, flag, true);
		if (r->handler_runtime)
			jwf_bool(&p, "runtime", true);
		out_fields(c, r, EV_EXCEPTION_FILTER, PH_END, &p);
		if (r->t.searched.on && grow(&r->filters, r->n_filters, sizeof(*r->filters)))
			r->filters[r->n_filters++] = (struct exr_filter){ r->handler_name, result, r->handler_runtime };
		else if (r->t.searched.on)
			r->lost_items++; /* said with the summary */
	}
	set_phase(c, r, SEARCH);
}

/* End the open filter/finally/catch span, if any. */
static void close_handler(struct ctx *c, struct exr *r, const char *flag)
{
	switch (r->phase) {
	case FILTER:
	case FILTER_RETURNED:
		/* abandoned before its result was known */
		close_filter(c, r, "unknown", flag);
		break;
	case FINALLY:
	case CATCH:
		out_fn(c, r, handler_event[r->phase], PH_END, r->handler_name, flag);
		set_phase(c, r, UNWIND);
		break;
	default:
		break;
	}
}

/* End the first pass's spans (the phase moves on, or exception.unhandled
 * ends the search: legacy EH). */
static void close_search(struct ctx *c, struct exr *r, const char *flag)
{
	if (!in_search(r))
		return;
	close_frame(c, r, flag, false);
	if (search_open(r))
		out_flag(c, r, EV_EXCEPTION_SEARCH, PH_END, flag);
}

/* End the second pass's spans: the story ends, or they are split
 * (supersede_below). */
static void close_unwind(struct ctx *c, struct exr *r, const char *flag)
{
	if (!unwind_open(r))
		return;
	close_frame(c, r, flag, false);
	out_flag(c, r, EV_EXCEPTION_UNWIND, PH_END, flag);
}

/* Every open span of R, innermost first. */
static void close_all(struct ctx *c, struct exr *r, const char *flag)
{
	close_handler(c, r, flag);
	close_search(c, r, flag);
	close_unwind(c, r, flag);
}

/* --- life and death of a record -------------------------------------------- */

static void text_free(struct story_text *t)
{
	jw_free(&t->exc);
	strbuf_free(&t->type);
	jw_free(&t->searched.w);
	jw_free(&t->finally.w);
	jw_free(&t->unwound.w);
}

/* T emptied for a new story, its buffers kept. */
static void text_reset(struct story_text *t)
{
	jw_reset(&t->exc);
	strbuf_reset(&t->type);
	jw_reset(&t->searched.w);
	jw_reset(&t->finally.w);
	jw_reset(&t->unwound.w);
	t->searched.n = t->finally.n = t->unwound.n = 0;
	t->searched.on = t->finally.on = t->unwound.on = false;
}

static void exr_free(struct exr *r)
{
	if (!r)
		return;
	text_free(&r->t);
	jw_text_unref(r->story_fields);
	free(r->filters);
	free(r->nested);
	free(r);
}

/* A record for a new story: M's spare, its text buffers emptied but kept
 * (a thread that throws often allocates nothing per story), or a new one. */
static struct exr *exr_new(struct exm *m)
{
	struct exr *r = m->spare;
	struct story_text keep;

	if (!r)
		return calloc(1, sizeof(*r));
	m->spare = NULL;
	keep = r->t;
	*r = (struct exr){ 0 };
	r->t = keep;
	text_reset(&r->t);
	return r;
}

/* R's story is over: its buffers become M's spare (or are freed). */
static void exr_done(struct exm *m, struct exr *r)
{
	if (!r)
		return;
	if (m->spare) {
		exr_free(r);
		return;
	}
	jw_text_unref(r->story_fields);
	free(r->filters);
	free(r->nested);
	r->story_fields = NULL;
	r->filters = NULL;
	r->nested = NULL;
	r->n_filters = r->n_nested = 0;
	m->spare = r;
}

/* --- errors: one exception object, first throw to fate ---------------------- */

/* How an error was thrown again: exception.error's "hops". */
enum hop { HOP_RETHROW, HOP_AWAIT, HOP_BOUNDARY, _HOP_MAX };

/* One error not yet decided (see machine.h, ERRORS). */
struct err {
	uint64_t id, object;
	uint64_t last_story;      /* its newest throw: only that story's end decides */
	uint64_t t0;
	char *exc;                /* its "exception" member as at its origin (NUL-terminated) */
	struct jw_text *fields;   /* the glue's error_fields of its origin, NULL: none */
	const char *origin_fn;    /* thrown_in of its first throw (a name the glue keeps) */
	int64_t origin_tid;
	unsigned throws, hops[_HOP_MAX];
	/* FATE_OPEN: in flight; FATE_STORED, FATE_HANDLED_BY_RUNTIME: waits
	 * for a next hop, a wrapper, or the exit */
	enum ct_fate pending;
	const char *h_fn, *h_label;
	enum ct_handler_kind h_kind;
	bool used;
	bool sampled;             /* its throws were left out (THE SAMPLED RULE) */
	/* its object's weak handle (exm_input.handle; 0: none, known by its
	 * address only), and its type's identity, which selects the handles
	 * a throw resolves (exm_errors_identify) */
	uint64_t handle, type_id;
};

static pthread_mutex_t errs_lock = PTHREAD_MUTEX_INITIALIZER;
/* errs_lock guards the four */
static struct err errs[EXM_ERRORS_MAX];
static size_t errs_hi;                 /* entries above are all unused */
static uint64_t errs_evicted, errs_untracked;
/* entries with a handle: a throw resolves none while there are none
 * (written under errs_lock, read without it) */
static atomic_size_t errs_handles;

/* The entry of error ID, or NULL (locked). */
static struct err *err_find(uint64_t id)
{
	for (size_t i = 0; id && i < errs_hi; i++)
		if (errs[i].used && errs[i].id == id)
			return &errs[i];
	return NULL;
}

/* R, the first throw of its error, names where it was thrown: the
 * error's origin (an await may decide its fate before R's story ends). */
static void err_origin(struct exr *r)
{
	struct err *x;

	pthread_mutex_lock(&errs_lock);
	if ((x = err_find(r->error)) && !x->origin_fn)
		x->origin_fn = r->thrown_in;
	pthread_mutex_unlock(&errs_lock);
}

/* X leaves the table: its copy is returned, the slot freed (locked). */
static struct err err_take(struct err *x)
{
	struct err out = *x;

	if (x->handle)
		atomic_fetch_sub(&errs_handles, 1);
	*x = (struct err){ 0 };
	while (errs_hi && !errs[errs_hi - 1].used)
		errs_hi--;
	return out;
}

/* A decided error: what its exception.error says beyond the entry. */
struct fate {
	enum ct_fate fate;
	uint64_t by;              /* wrapped_by / superseded_by */
	const char *h_fn, *h_label;
	enum ct_handler_kind h_kind;
	bool h_final;             /* a last-chance handler's catch decided it */
	const char *origin_fn;    /* when the entry has none yet */
};

/* exception.error for X (taken out of the table: its text is freed). */
static void err_write(const struct exm_emitter *e, struct err *x, const struct fate *fa)
{
	bool has_handler = fa->fate == FATE_HANDLED || fa->fate == FATE_HANDLED_BY_FRAMEWORK ||
			   fa->fate == FATE_HANDLED_BY_RUNTIME || fa->fate == FATE_STORED;
	const char *origin_fn = x->origin_fn ? x->origin_fn : fa->origin_fn;
	uint64_t t = e->now ? e->now(e->userdata) : 0;
	JW_FIELDS(handler, 4);
	JW_FIELDS(origin, 2);
	JW_FIELDS(hops, 3);
	JW_FIELDS(f, 14);

	if (x->handle && e->handle_free)
		e->handle_free(e->userdata, x->handle);
	/* a sampled error is written only when fatal (THE SAMPLED RULE) */
	if (!e->record || (e->wants && !e->wants(e->userdata, EV_EXCEPTION_ERROR)) ||
	    (x->sampled && fa->fate != FATE_UNHANDLED && fa->fate != FATE_HANDLED_BY_FRAMEWORK)) {
		free(x->exc);
		jw_text_unref(x->fields);
		return;
	}
	if (has_handler) {
		jwf_str(&handler, "function", fa->h_fn);
		jwf_str(&handler, "kind", ct_handler_kind_to_string(fa->h_kind));
		if (fa->h_label) /* a handler's label only when it has one */
			jwf_str(&handler, "label", fa->h_label);
		if (fa->h_final)
			jwf_bool(&handler, "final", true);
	}
	/* what is at its default is left out (clrtrace-records(5)): the
	 * origin's tid when it is this record's, hops when all are 0, the
	 * identity when "handle" */
	jwf_str(&origin, "function", origin_fn);
	if (x->origin_tid != (e->tid ? e->tid(e->userdata) : 0))
		jwf_int(&origin, "tid", x->origin_tid);
	jwf_int(&hops, "rethrow", x->hops[HOP_RETHROW]);
	jwf_int(&hops, "await", x->hops[HOP_AWAIT]);
	jwf_int(&hops, "boundary", x->hops[HOP_BOUNDARY]);
	jwf_int(&f, "error", (int64_t)x->id);
	jwf_raw(&f, "exception", x->exc, x->exc ? strlen(x->exc) : 0);
	jwf_str(&f, "fate", ct_fate_to_string(fa->fate));
	jwf_obj(&f, "handler", has_handler ? &handler : NULL);
	jwf_obj(&f, "origin", &origin);
	jwf_int(&f, "throws", x->throws);
	if (x->hops[HOP_RETHROW] || x->hops[HOP_AWAIT] || x->hops[HOP_BOUNDARY])
		jwf_obj(&f, "hops", &hops);
	if (!x->handle)
		jwf_str(&f, "identity", "address");
	if (fa->by && fa->fate == FATE_WRAPPED)
		jwf_int(&f, "wrapped_by", (int64_t)fa->by);
	if (fa->by && (fa->fate == FATE_WRAPPED || fa->fate == FATE_SUPERSEDED))
		jwf_int(&f, "superseded_by", (int64_t)fa->by);
	if (x->sampled)
		jwf_bool(&f, "sampled", true);
	jwf_int(&f, "dur_ns", t > x->t0 ? (int64_t)(t - x->t0) : 0);
	jwf_text_members(&f, x->fields);
	e->record(e->userdata, EV_EXCEPTION_ERROR, PH_INSTANT, x->id, &f);
	jw_text_unref(x->fields);
	free(x->exc);
}

/* The fate an error waiting in the table has if nothing more happens. */
static struct fate waiting_fate(const struct err *x)
{
	return (struct fate){ .fate = x->pending, .h_fn = x->h_fn, .h_label = x->h_label, .h_kind = x->h_kind };
}

/* R, told, was just thrown (after exception.throw): a new error, or the
 * next hop of its object's (R's origin), of kind HOP.  A new one whose
 * InnerException is the object of a waiting error wraps that one.  True
 * when an error took IN's new handle over. */
static bool err_on_throw(struct ctx *c, struct exr *r, const struct exm_input *in, enum hop hop)
{
	struct err *x, *freeslot = NULL, *oldest = NULL, wrapped = { 0 }, evicted = { 0 };
	bool kept = false;

	pthread_mutex_lock(&errs_lock);
	if (r->origin) {
		if ((x = err_find(r->error))) {
			x->throws++;
			x->hops[x->pending == FATE_STORED ? HOP_AWAIT : hop]++;
			x->pending = FATE_OPEN;
			x->last_story = r->id;
			/* known by its address so far: by its handle from now on */
			if (in->handle_new && in->handle && !x->handle) {
				x->handle = in->handle;
				x->type_id = in->type_id;
				atomic_fetch_add(&errs_handles, 1);
				kept = true;
			}
		}
		pthread_mutex_unlock(&errs_lock);
		return kept;
	}
	/* one pass: the error it wraps, a free slot, the oldest waiting (which
	 * only a full table needs); without an InnerException nothing is
	 * wrapped, so the first free slot ends it: this runs in the throw's
	 * callback */
	for (size_t i = 0; i < EXM_ERRORS_MAX; i++) {
		x = &errs[i];
		if (!x->used) {
			if (!freeslot)
				freeslot = x;
			if (i >= errs_hi || !in->inner)
				break;
			continue;
		}
		if (x->pending == FATE_OPEN)
			continue;
		if (in->inner && !wrapped.used &&
		    (in->inner_handle ? x->handle == in->inner_handle
				      : x->object == in->inner && !(in->inner_checked && x->handle))) {
			wrapped = err_take(x);
			if (!freeslot)
				freeslot = x;
		} else if (!oldest || x->id < oldest->id)
			oldest = x;
	}
	if (!freeslot && oldest) {
		errs_evicted++;
		evicted = err_take(oldest);
		freeslot = oldest;
	}
	if (freeslot) {
		*freeslot = (struct err){
			.id = r->id, .object = in->object, .last_story = r->id, .t0 = r->t0, .throws = 1, .used = true,
			.pending = FATE_OPEN, .exc = r->t.exc.b.len ? strndup(r->t.exc.b.s, r->t.exc.b.len) : NULL,
			.origin_tid = c->e->tid ? c->e->tid(c->e->userdata) : 0, .sampled = r->sampled,
			.fields = in->error_fields ? jw_text_ref(in->error_fields) : NULL,
		};
		if (in->handle_new && in->handle) {
			freeslot->handle = in->handle;
			freeslot->type_id = in->type_id;
			atomic_fetch_add(&errs_handles, 1);
			kept = true;
		}
		if ((size_t)(freeslot - errs) >= errs_hi)
			errs_hi = (size_t)(freeslot - errs) + 1;
	} else
		errs_untracked++;
	pthread_mutex_unlock(&errs_lock);
	if (wrapped.used) {
		struct fate fa = waiting_fate(&wrapped);

		fa.fate = FATE_WRAPPED;
		fa.by = r->id;
		err_write(c->e, &wrapped, &fa);
	}
	if (evicted.used) {
		struct fate fa = waiting_fate(&evicted);

		err_write(c->e, &evicted, &fa);
	}
	return kept;
}

/* R's story ended with outcome O: its error's fate, when it decides one. */
static void err_on_end(struct ctx *c, struct exr *r, enum ct_outcome o)
{
	struct fate fa = { .fate = FATE_OPEN, .origin_fn = r->origin ? NULL : r->thrown_in };
	struct err *x, done;

	if (!r->error)
		return;
	pthread_mutex_lock(&errs_lock);
	if (!(x = err_find(r->error))) {
		pthread_mutex_unlock(&errs_lock);
		return; /* decided already, or not followed */
	}
	if (!x->origin_fn && r->id == x->id)
		x->origin_fn = r->thrown_in;
	if (x->last_story != r->id) {
		/* a later throw of it came first, on another thread: from the
		 * Task this catch stored it in */
		if (o == OUTCOME_CAUGHT && r->hkind == HANDLER_ASYNC && x->hops[HOP_RETHROW]) {
			x->hops[HOP_RETHROW]--;
			x->hops[HOP_AWAIT]++;
		}
		pthread_mutex_unlock(&errs_lock);
		return;
	}
	x->object = r->object; /* a GC may have moved it */
	switch (o) {
	case OUTCOME_RETHROWN:
		pthread_mutex_unlock(&errs_lock);
		return; /* its next throw goes on with it */
	case OUTCOME_CAUGHT:
		fa.h_fn = r->caught_in;
		fa.h_kind = r->hkind;
		fa.h_label = r->hlabel;
		if (r->hkind == HANDLER_ASYNC || r->hkind == HANDLER_RUNTIME ||
		    (r->hkind == HANDLER_FRAMEWORK && !r->hfinal)) {
			/* it waits: a next throw, a wrapper, or the exit decides */
			x->pending = r->hkind == HANDLER_ASYNC	   ? FATE_STORED
				     : r->hkind == HANDLER_RUNTIME ? FATE_HANDLED_BY_RUNTIME
								   : FATE_HANDLED_BY_FRAMEWORK;
			x->h_fn = fa.h_fn;
			x->h_kind = fa.h_kind;
			x->h_label = fa.h_label;
			pthread_mutex_unlock(&errs_lock);
			return;
		}
		fa.fate = r->hkind == HANDLER_FRAMEWORK ? FATE_HANDLED_BY_FRAMEWORK : FATE_HANDLED;
		fa.h_final = r->hfinal;
		break;
	case OUTCOME_UNHANDLED:
		fa.fate = FATE_UNHANDLED;
		break;
	case OUTCOME_SWALLOWED:
		fa.fate = FATE_SWALLOWED;
		break;
	case OUTCOME_SUPERSEDED:
		fa.fate = r->wrapped ? FATE_WRAPPED : FATE_SUPERSEDED;
		fa.by = r->superseded_error ? r->superseded_error : r->superseded_by;
		break;
	default:
		break; /* open: the thread or the process ended mid-story */
	}
	done = err_take(x);
	pthread_mutex_unlock(&errs_lock);
	err_write(c->e, &done, &fa);
}

void exm_errors_flush(const struct exm_emitter *e)
{
	struct err *all;
	size_t n = 0;

	pthread_mutex_lock(&errs_lock);
	all = calloc(errs_hi ? errs_hi : 1, sizeof(*all));
	for (size_t i = 0; all && i < errs_hi; i++)
		if (errs[i].used)
			all[n++] = err_take(&errs[i]);
	pthread_mutex_unlock(&errs_lock);
	for (size_t i = 0; i < n; i++) {
		struct fate fa = waiting_fate(&all[i]);

		if (e)
			err_write(e, &all[i], &fa);
		else {
			free(all[i].exc);
			jw_text_unref(all[i].fields);
		}
	}
	free(all);
}

uint64_t exm_errors_identify(uint64_t type_id, uint64_t object, bool traced, uint64_t (*resolve)(uint64_t handle))
{
	uint64_t h = 0;

	if (!type_id || !object || !resolve || !atomic_load(&errs_handles))
		return 0;
	pthread_mutex_lock(&errs_lock);
	for (size_t i = 0; i < errs_hi && !h; i++) {
		struct err *x = &errs[i];

		if (!x->used || !x->handle || x->type_id != type_id || (!traced && x->object != object))
			continue;
		if (resolve(x->handle) == object) {
			h = x->handle;
			x->object = object; /* where it is now */
		}
	}
	pthread_mutex_unlock(&errs_lock);
	return h;
}

/* The open error whose handle is H (exm_input.handle), and in *LAST its
 * newest throw; 0: none (decided meanwhile). */
static uint64_t err_by_handle(uint64_t h, uint64_t *last, bool *sampled)
{
	uint64_t id = 0;

	if (!h)
		return 0;
	pthread_mutex_lock(&errs_lock);
	for (size_t i = 0; i < errs_hi && !id; i++)
		if (errs[i].used && errs[i].handle == h) {
			id = errs[i].id;
			*last = errs[i].last_story;
			*sampled = errs[i].sampled;
		}
	pthread_mutex_unlock(&errs_lock);
	return id;
}

/* The handle of open error ID, 0: none (or not open). */
static uint64_t err_handle(uint64_t id)
{
	struct err *x;
	uint64_t h;

	if (!id || !atomic_load(&errs_handles))
		return 0;
	pthread_mutex_lock(&errs_lock);
	h = (x = err_find(id)) ? x->handle : 0;
	pthread_mutex_unlock(&errs_lock);
	return h;
}

/* Is error ID open with a handle? */
static bool err_has_handle(uint64_t id)
{
	return err_handle(id) != 0;
}

/* Is INNER, an InnerException (exm_input.inner, inner_handle,
 * inner_checked), story B's object?  By handle when the glue found its
 * error's, else by address, unless B's error has a handle the glue would
 * have found. */
static bool wraps(uint64_t inner, uint64_t inner_handle, bool checked, const struct exr *b)
{
	uint64_t h;

	if (!inner)
		return false;
	if (inner_handle)
		return (h = err_handle(b->error)) && h == inner_handle;
	return inner == b->object && !(checked && err_handle(b->error));
}

void exm_errors_counts(uint64_t *evicted, uint64_t *untracked)
{
	pthread_mutex_lock(&errs_lock);
	*evicted = errs_evicted;
	*untracked = errs_untracked;
	pthread_mutex_unlock(&errs_lock);
}

/* R's rethrow and rethrow_of, and nested_in (into NESTED_IN, written with
 * F), only when R is a rethrow or nested: what is false or null is left
 * out (clrtrace-records(5)). */
static void rethrow_fields(const struct exr *r, struct jw_fields *f, struct jw_fields *nested_in)
{
	if (r->rethrow_of) {
		jwf_bool(f, "rethrow", true);
		jwf_int(f, "rethrow_of", (int64_t)r->rethrow_of);
	}
	if (nested(r, nested_in))
		jwf_obj(f, "nested_in", nested_in);
}

/* exception.summary for R (once), and the outcome totals. */
static void summarize(struct ctx *c, struct exr *r, enum ct_outcome o)
{
	if (r->reported)
		return;
	r->reported = true;
	if (r->sampled)
		err_on_end(c, r, o); /* no summary, not in the totals: its error only */
	if (!told(r))
		return;
	atomic_fetch_add(&totals[o], 1);
	/* the story's summary, then what it decided of its error */
	if (!wanted(c, EV_EXCEPTION_SUMMARY)) {
		err_on_end(c, r, o);
		return;
	}
	/* the lists are borrowed: written before out_fields returns */
	struct jw filters = { 0 }, nested_ids = { 0 };
	JW_FIELDS(nested_in, 2);
	JW_FIELDS(f, 22);

	/* the exception by its id only, and not at all when that is its
	 * error's (nor by out_fields): its type, message and hresult are on
	 * its exception.throw and exception.error */
	if (r->error != r->id)
		jwf_idref(&f, "exception", (int64_t)r->id);
	jwf_int(&f, "error", (int64_t)r->error);
	jwf_str(&f, "outcome", ct_outcome_to_string(o));
	jwf_str(&f, "thrown_in", r->thrown_in);
	jwf_str(&f, "caught_in", r->caught_in);
	names_put(&f, &r->t.searched, "searched");
	list_field(&f, r, "filters", &filters, r->n_filters, filter_item);
	names_put(&f, &r->t.finally, "finally");
	names_put(&f, &r->t.unwound, "unwound");
	rethrow_fields(r, &f, &nested_in);
	list_field(&f, r, "nested", &nested_ids, r->n_nested, nested_item);
	if (r->superseded_by)
		jwf_int(&f, "superseded_by", (int64_t)r->superseded_by);
	/* the throw's stack (category stacks), before the duration */
	jwf_text_members(&f, r->story_fields);
	jwf_int(&f, "dur_ns", (int64_t)(now(c) - r->t0));
	if (r->origin)
		jwf_int(&f, "origin", (int64_t)r->origin);
	if (r->boundary)
		jwf_bool(&f, "boundary", true);
	if (r->wrapped)
		jwf_bool(&f, "wrapped", true);
	if (r->reported_unhandled && o != OUTCOME_UNHANDLED)
		jwf_bool(&f, "reported_unhandled", true);
	if (r->interrupted)
		jwf_str(&f, "interrupted", r->interrupted);
	out_fields(c, r, EV_EXCEPTION_SUMMARY, PH_INSTANT, &f);
	jw_free(&filters);
	jw_free(&nested_ids);
	names_reopen(&r->t.searched);
	names_reopen(&r->t.finally);
	names_reopen(&r->t.unwound);
	err_on_end(c, r, o);
}

/* Close what is open, summarize with outcome O, free; R must be removed
 * from the stack by the caller. */
static void finish(struct ctx *c, struct exr *r, enum ct_outcome o, const char *flag)
{
	close_all(c, r, flag);
	summarize(c, r, o);
	exr_done(c->m, r);
}

/* Pop the top record with outcome O. */
static void pop(struct ctx *c, enum ct_outcome o, const char *flag)
{
	if (c->m->n)
		finish(c, c->m->live[--c->m->n], o, flag);
}

/* The machine lost track: say so, close everything, start afresh. */
static void reset(struct ctx *c, const char *why, const struct exm_input *in)
{
	report(c, "exception tracking reset: %s (at %s, %zu live)", why, exm_input_names[in->kind], c->m->n);
	while (c->m->n)
		pop(c, OUTCOME_UNKNOWN, "abandoned");
	c->m->dying = false;
}

static struct exr *top(struct exm *m)
{
	return m->n ? m->live[m->n - 1] : NULL;
}

/* The nearest record in a filter at or below index I, or -1. */
static ssize_t filter_below(struct exm *m, size_t i)
{
	for (size_t k = i + 1; k > 0; k--)
		if (in_filter(m->live[k - 1]))
			return (ssize_t)(k - 1);
	return -1;
}

/* --- transitions ------------------------------------------------------------ */

/* A held-back frame Leave becomes real unless IN is its funclet duplicate. */
static bool settle_pending(struct ctx *c, struct exr *r, const struct exm_input *in)
{
	if (r->frame != FRAME_HELD)
		return false;
	if (in->kind == (in_search(r) ? EXM_SEARCH_ENTER : EXM_UNWIND_ENTER) && in->fn == r->frame_fn) {
		r->frame = FRAME_OPEN;
		r->coalesced = true;
		return true;
	}
	close_frame(c, r, NULL, true);
	return false;
}

/* A filter's result shows in the next input.  Another filter or the end of
 * the frame's search: false.  The catcher found in its own function: true,
 * unless a plain catch of that method could have taken what the filter
 * declined; then the catch that runs tells (on_catch_leave), and until then
 * the result is "unknown". */
static void settle_filter(struct ctx *c, struct exr *r, const struct exm_input *in)
{
	if (r->phase != FILTER_RETURNED)
		return;
	if (in->kind != EXM_CATCHER_FOUND || in->fn != r->handler_fn) {
		close_filter(c, r, "false", NULL);
		return;
	}
	if (in->catch_after_filter == EXM_KNOW_NO) {
		close_filter(c, r, "true", NULL);
		return;
	}
	r->undecided_fp = r->handler_fp;
	close_filter(c, r, "unknown", NULL);
	r->undecided = r->n_filters;
}

/* The catch of R is being left: it ran a filter clause's handler (the
 * undecided filter said true) or a plain catch's (false). */
static void decide_filter(struct exr *r, const struct exm_input *in)
{
	struct exr_filter *f = r->undecided && r->undecided <= r->n_filters ? &r->filters[r->undecided - 1] : NULL;

	r->undecided = 0;
	if (!f || in->ran_filter_handler == EXM_KNOW_UNKNOWN ||
	    (r->handler_fp && r->undecided_fp && r->handler_fp != r->undecided_fp))
		return; /* stays "unknown" */
	f->result = in->ran_filter_handler == EXM_KNOW_YES ? "true" : "false";
}

/* B's story ends because R replaced it: rethrown when R is the same object. */
static enum ct_outcome replaced(struct exr *b, struct exr *r)
{
	b->superseded_by = r->id;
	b->superseded_error = r->error;
	if (r->rethrow_of == b->id)
		return OUTCOME_RETHROWN;
	if (wraps(r->inner, r->inner_handle, r->inner_checked, b))
		b->wrapped = true;
	return OUTCOME_SUPERSEDED;
}

/* Does unhandled R unwind the last frame its search entered (new EH)?  Its
 * summary then waits for the finally blocks there (last_finallys). */
static bool last_frame_unwinds(const struct exr *r)
{
	return r->reported_unhandled && r->frames_unwound && r->frames_unwound >= r->frames_entered;
}

/* exception.unhandled: R's search found nothing; the process dies next.
 * Legacy EH has no second pass: the story ends here.  New EH runs the
 * finally blocks first, and one of them may replace R with an exception
 * that is caught (the runtime has already said "Unhandled exception"):
 * the summary waits for the unwind of the last frame searched. */
static void unhandled(struct ctx *c, struct exr *r)
{
	struct exm *m = c->m;

	if (told(r)) {
		JW_FIELDS(f, 4);

		jwf_put(&f, exc_field(r));
		jwf_int(&f, "error", (int64_t)r->error);
		jwf_str(&f, "thrown_in", r->thrown_in);
		out_fields(c, r, EV_EXCEPTION_UNHANDLED, PH_INSTANT, &f);
	} else if (r->sampled && wanted(c, EV_EXCEPTION_UNHANDLED)) {
		/* sampled out, yet fatal: its verdict is always written */
		JW_FIELDS(f, 4);

		jwf_put(&f, exc_field(r));
		jwf_int(&f, "error", (int64_t)r->error);
		jwf_str(&f, "thrown_in", r->thrown_in);
		jwf_bool(&f, "sampled", true);
		c->e->record(c->e->userdata, EV_EXCEPTION_UNHANDLED, PH_INSTANT, r->id, &f);
	}
	r->reported_unhandled = true;
	if (r->lg.on || !r->frames_entered)
		summarize(c, r, OUTCOME_UNHANDLED);
	/* whatever handler it escaped from is lost with it */
	for (size_t k = m->n - 1; k > 0; k--) {
		struct exr *below = m->live[k - 1];

		summarize(c, below, replaced(below, r));
	}
	m->dying = true;
	if (c->e->dying)
		c->e->dying(c->e->userdata);
}

/* First input of the second pass (UE/UL, or a handler without them). */
static void start_unwind(struct ctx *c, struct exr *r, const struct exm_input *in)
{
	close_search(c, r, NULL);
	set_phase(c, r, UNWIND);
	if (!r->has_catcher) {
		if (filter_below(c->m, c->m->n - 1) >= 0)
			; /* it escapes that filter: its story ends at the filter's Leave */
		else if (r->lg.on ? r->lg.boundary_pending : in->verdict == EXM_VERDICT_BOUNDARY)
			r->boundary = true; /* ends at the next throw */
		else {
			r->last_finallys = in->last_finallys;
			unhandled(c, r);
		}
	}
	out_flag(c, r, EV_EXCEPTION_UNWIND, PH_BEGIN, NULL);
}

/* Did a handler of R (top) at FP/FN leave the handler of B (below)? */
static bool escapes(const struct exr *r, struct exr *b, uint64_t fp, uint64_t fn)
{
	if (b->phase != FINALLY && b->phase != CATCH)
		return false;
	if (r->lg.on && fp && fp == b->handler_fp) {
		/* legacy EH: inside B's catch or finally block, or past it in
		 * the same method?  B's own Leave, or its absence, will tell */
		exl_maybe_left(&b->lg, r->id, r->rethrow_of == b->id);
		return false;
	}
	if (fp && b->handler_fp)
		return fp >= b->handler_fp; /* stacks grow down: same or outer frame */
	return fn != b->handler_fn;
}

/* The top exception R reached a handler at FP: the finally/catch blocks it
 * was thrown in and has now left are abandoned by the runtime.  Their spans
 * enclose R's, so R's unwind span is split around them ("continued" /
 * "resumed") to keep the thread's nesting a proper stack. */
static void supersede_below(struct ctx *c, struct exr *r, uint64_t fp, uint64_t fn)
{
	struct exm *m = c->m;
	size_t k = 0;
	bool had_uframe = r->frame != FRAME_NONE;
	const char *uname = had_uframe ? r->frame_name : NULL;

	while (k + 1 < m->n && escapes(r, m->live[m->n - 2 - k], fp, fn))
		k++;
	if (!k)
		return;
	close_unwind(c, r, "continued");
	for (size_t j = 0; j < k; j++) {
		struct exr *b = m->live[m->n - 2 - j];

		finish(c, b, replaced(b, r), "abandoned");
	}
	m->live[m->n - 1 - k] = r;
	m->n -= k;
	out_flag(c, r, EV_EXCEPTION_UNWIND, PH_BEGIN, "resumed");
	if (had_uframe) {
		out_fn(c, r, EV_EXCEPTION_UNWIND_FRAME, PH_BEGIN, uname, "resumed");
		r->frame = FRAME_OPEN;
	}
}

/* The record whose open handler of phase P matches FRAME (0: any), or -1. */
static ssize_t find_handler_at(struct exm *m, enum phase p, uint64_t frame)
{
	for (size_t k = m->n; k > 0; k--) {
		struct exr *r = m->live[k - 1];

		if (in_handler(r, p) && (!frame || !r->handler_fp || r->handler_fp == frame))
			return (ssize_t)(k - 1);
	}
	return -1;
}

/* Match by frame first; a frame seen nowhere falls back to the innermost. */
static ssize_t find_handler(struct exm *m, enum phase p, uint64_t frame)
{
	ssize_t i = find_handler_at(m, p, frame);

	return i >= 0 || !frame ? i : find_handler_at(m, p, 0);
}

/* Records above index I whose Leave never came: their stories end here. */
static void drop_above(struct ctx *c, size_t i, enum ct_outcome o, const char *flag)
{
	while (c->m->n > i + 1) {
		struct exr *r = top(c->m);

		pop(c, r->phase == CATCH && o == OUTCOME_UNKNOWN ? OUTCOME_CAUGHT : o, flag);
	}
}

/* Open a handler span (filter/finally/catch) on R. */
static void enter_handler(struct ctx *c, struct exr *r, enum phase p, const struct exm_input *in)
{
	set_phase(c, r, p);
	r->handler_fn = in->fn;
	r->handler_fp = in->frame;
	r->handler_pc = in->pc;
	r->handler_name = in->function;
	r->handler_runtime = p == FILTER && in->runtime;
	out_fn(c, r, handler_event[p], PH_BEGIN, in->function, r->handler_runtime ? "runtime" : NULL);
}

/* May R, thrown as IN, be error ERR's object?  Exact when the glue gave
 * IN a handle (exm_errors_identify compared it with every open error's of
 * its type): it names ERR, or ERR has a handle and IN's is another (so an
 * address of ERR's that another object took since must not match).
 * Otherwise yes: its address, or what moved_rethrow compares, decides. */
static bool may_be(const struct exr *r, const struct exm_input *in, uint64_t err)
{
	if (r->h_err)
		return r->h_err == err;
	return !in->handle || !err_has_handle(err);
}

/* B's search ended at a native boundary, and R is the next throw on the
 * thread: the same object raised again (its journey goes on as R), a
 * wrapper of it (TargetInvocationException, TypeInitializationException),
 * or something the tracer cannot relate to it. */
static void settle_boundary(struct ctx *c, struct exr *b, struct exr *r, const struct exm_input *in)
{
	enum ct_outcome o = OUTCOME_UNKNOWN;
	bool maybe = may_be(r, in, b->error);

	if ((r->h_err && r->h_err == b->error) || (!r->h_err && maybe && in->object && in->object == b->object)) {
		/* a sampled B's id goes in no record: R inherits it sampled */
		r->rethrow_of = followed(b) ? b->id : 0;
		o = OUTCOME_RETHROWN;
	} else if (wraps(in->inner, in->inner_handle, in->inner_checked, b)) {
		b->superseded_by = b->superseded_error = r->id;
		b->wrapped = true;
		o = OUTCOME_SUPERSEDED;
	}
	if (o == OUTCOME_UNKNOWN && maybe && followed(b) && in->traced && b->t.type.len && in->type &&
	    strcmp(b->t.type.s, in->type) == 0) {
		r->rethrow_of = b->id; /* the same type, thrown before: a GC moved it */
		o = OUTCOME_RETHROWN;
	}
	if (o == OUTCOME_RETHROWN) {
		b->superseded_by = r->id;
		r->origin = b->origin ? b->origin : b->id;
		r->sampled = b->sampled;
		r->hop_boundary = true;
	}
	c->m->n--;
	finish(c, b, o, NULL);
}

/* Nest the new story R in PARENT, the one in flight on this thread when it was thrown. */
static void nest_in(struct exr *r, struct exr *parent)
{
	r->parent_id = id_of(parent);
	r->context = context_names[parent->phase];
	r->parent_handler_fn = parent->handler_fn;
	if (told(parent) && told(r) && parent->t.searched.on && grow(&parent->nested, parent->n_nested, sizeof(uint64_t)))
		parent->nested[parent->n_nested++] = r->id;
	else if (told(parent) && told(r) && parent->t.searched.on)
		parent->lost_items++; /* said with its summary */
}

/* Is IN, thrown inside the catch block of PARENT (the story R nests in),
 * PARENT's object after a GC moved it?  The fallback for an object known
 * by its address only (no weak handle: see may_be and ident.c): where
 * clrtrace does not pin exception objects (pin.c: .NET 11, and .NET 8's
 * legacy exception handling), a compacting collection that runs in the
 * catch block gives `throw;` an object the machine has never seen.  So R
 * is taken for PARENT's object when everything the throw shows of it
 * matches: the same type, message and HRESULT, an InnerException or none
 * as PARENT had, and a stack trace already set (traced), which a new
 * object does not have.  What could match falsely is another exception
 * object thrown before, of that type and with that message, raised in
 * that catch block (an ExceptionDispatchInfo.Throw of a stored one;
 * `throw stored;` clears the trace before the callback on .NET 9+) whose
 * address the machine no longer knows: that too is a rethrow, but of
 * another story, which this would name wrongly. */
static bool moved_rethrow(const struct exr *parent, const struct exr *r, const struct exm_input *in)
{
	return parent && parent->phase == CATCH && followed(parent) && in->traced && in->object && may_be(r, in, parent->error) &&
	       parent->object != in->object && parent->t.type.len && in->type &&
	       strcmp(parent->t.type.s, in->type) == 0 && parent->msg_hash == r->msg_hash &&
	       parent->no_message == in->no_message && parent->has_hresult == in->has_hresult &&
	       (!in->has_hresult || parent->hresult == in->hresult) && !parent->inner == !in->inner;
}

/* Is R a rethrow: of the open error its handle names, or the same object
 * in flight here, or caught recently anywhere, or PARENT's moved by a GC
 * (moved_rethrow)?  An address match counts only where the handles allow
 * it (may_be). */
static void find_rethrow(struct exm *m, struct exr *r, struct exr *parent, const struct exm_input *in)
{
	uint64_t origin = 0, id;
	bool sampled = false;

	if (r->h_err) {
		r->rethrow_of = r->h_last;
		r->origin = r->h_err;
		r->sampled = r->h_sampled;
		return;
	}
	for (size_t k = m->n; k > 0 && !r->rethrow_of; k--)
		if (m->live[k - 1]->object == in->object && in->object && followed(m->live[k - 1]) &&
		    may_be(r, in, m->live[k - 1]->error)) {
			r->rethrow_of = m->live[k - 1]->id;
			r->sampled = m->live[k - 1]->sampled;
			r->origin = m->live[k - 1]->origin ? m->live[k - 1]->origin : r->rethrow_of;
		}
	if (r->rethrow_of)
		return;
	id = recent_find(in, r->type_hash, &origin, &sampled);
	if (id && !may_be(r, in, origin))
		id = origin = 0;
	/* an address seen on an exception thrown after PARENT is taken as
	 * exact (a younger object: a compaction moves PARENT's towards older
	 * places).  One thrown before PARENT may be a dead object whose place
	 * the collection gave to PARENT's: a loop that catches and rethrows
	 * the same type, as tests/webapp.sh does */
	if (moved_rethrow(parent, r, in) && (!id || id < parent->id)) {
		r->rethrow_of = parent->id;
		r->origin = parent->origin ? parent->origin : parent->id;
		r->sampled = parent->sampled;
		return;
	}
	r->rethrow_of = id;
	r->origin = origin;
	r->sampled = id && sampled;
}

/* R's exception object, {"id","type","message","hresult"}, written once
 * into r->t.exc (no message member when the runtime gave none; empty
 * when out of memory). */
static void exception_text(struct exr *r, const struct exm_input *in)
{
	static const char hex[] = "0123456789abcdef";
	struct jw *w = &r->t.exc;
	char hr[12] = "\"0x";

	jw_raw(w, "{\"id\":", 6);
	jw_u64(w, r->id);
	jw_key(w, "type");
	jw_str(w, in->type ? in->type : "?");
	if (!in->no_message) {
		jw_key(w, "message");
		if (in->message)
			jw_str(w, in->message);
		else
			jw_raw(w, "null", 4);
	}
	jw_key(w, "hresult");
	if (in->has_hresult) {
		for (int i = 0; i < 8; i++)
			hr[3 + i] = hex[((uint32_t)in->hresult >> (28 - 4 * i)) & 0xf];
		hr[11] = '"';
		jw_raw(w, hr, sizeof(hr));
	} else
		jw_raw(w, "null", 4);
	jw_raw(w, "}", 1);
	if (w->b.oom)
		jw_reset(w); /* empty: written as null */
}

/* R's type and "exception" member, which every record of it repeats. */
static void story_text(struct exr *r, const struct exm_input *in)
{
	strbuf_puts(&r->t.type, in->type ? in->type : "?");
	if (r->t.type.oom)
		strbuf_reset(&r->t.type);
	exception_text(r, in);
}

/* Open R's story: exception.throw, then the search begins. */
static void start_story(struct ctx *c, struct exr *r, const struct exm_input *in)
{
	story_text(r, in);
	/* the filters and nested lists are made on first use: most stories have none */
	r->t.searched.on = r->t.finally.on = r->t.unwound.on = true;
	if (told(r) && wanted(c, EV_EXCEPTION_THROW)) {
		JW_FIELDS(nested_in, 2);
		JW_FIELDS(f, 9);

		jwf_put(&f, exc_field(r));
		jwf_int(&f, "error", (int64_t)r->error);
		rethrow_fields(r, &f, &nested_in);
		if (r->origin)
			jwf_int(&f, "origin", (int64_t)r->origin);
		/* the inner chain, and the stack (category stacks) */
		jwf_text_members(&f, in->throw_fields);
		jwf_text_members(&f, in->story_fields);
		out_fields(c, r, EV_EXCEPTION_THROW, PH_INSTANT, &f);
	}
	if (in->story_fields)
		r->story_fields = jw_text_ref(in->story_fields);
	out_flag(c, r, EV_EXCEPTION_SEARCH, PH_BEGIN, NULL);
}

/* How R, a rethrow, goes on with its error: from the async machinery's
 * catch still open on this thread (the Task's continuation ran inline), or
 * past a native boundary, or as a rethrow.  (One the async machinery
 * stored already is an await: err_on_throw.) */
static enum hop hop_of(const struct exm *m, const struct exr *r)
{
	if (r->hop_boundary)
		return HOP_BOUNDARY;
	for (size_t k = m->n; k > 0; k--)
		if (m->live[k - 1]->id == r->rethrow_of)
			return m->live[k - 1]->phase == CATCH && m->live[k - 1]->hkind == HANDLER_ASYNC ? HOP_AWAIT
												   : HOP_RETHROW;
	return HOP_RETHROW;
}

/* IN's new handle, which no error took over, goes back to the glue. */
static void handle_drop(struct ctx *c, const struct exm_input *in)
{
	if (in->handle_new && in->handle && c->e->handle_free)
		c->e->handle_free(c->e->userdata, in->handle);
}

/* A throw: a new story, nested in the one in flight, perhaps a rethrow of an earlier one. */
static void on_thrown(struct ctx *c, const struct exm_input *in)
{
	struct exm *m = c->m;
	struct exr *parent, *r;

	if (m->n >= MAX_LIVE)
		reset(c, "too many nested exceptions", in);
	r = exr_new(m);
	if (!r) {
		report(c, "out of memory tracking an exception");
		handle_drop(c, in);
		return;
	}
	r->id = atomic_fetch_add(&next_id, 1);
	if (in->handle && !in->handle_new && !in->muted)
		r->h_err = err_by_handle(in->handle, &r->h_last, &r->h_sampled);
	/* a story stopped at a native boundary: this throw decides its end,
	 * and R is not nested in it */
	while ((parent = top(m)) && parent->boundary && parent->phase == UNWIND)
		settle_boundary(c, parent, r, in);
	r->object = in->object;
	r->inner = in->inner;
	r->inner_handle = in->inner_handle;
	r->inner_checked = in->inner_checked;
	r->type_id = in->type_id;
	exl_start(&r->lg, in);
	r->t0 = now(c);
	r->muted = in->muted;
	r->type_hash = hash_str(in->type);
	r->msg_hash = hash_str(in->message);
	r->hresult = in->hresult;
	r->has_hresult = in->has_hresult;
	r->no_message = in->no_message;
	find_rethrow(m, r, parent, in);
	m->live[m->n++] = r;
	/* a new error: kept or sampled out, once (its next throws inherit) */
	if (followed(r) && !r->origin && c->e->keep && !c->e->keep(c->e->userdata, in))
		r->sampled = true;
	if (parent)
		nest_in(r, parent);
	if (!followed(r)) {
		handle_drop(c, in);
		return;
	}
	r->error = r->origin ? r->origin : r->id;
	/* in flight: another thread may throw it again before any callback of
	 * this one says it was caught (an await's continuation can run while
	 * the CatcherEnter is still held back, see deferred.c) */
	if (in->object)
		recent_add(in->object, r->id, r->origin ? r->origin : r->id, in->inner, r->type_hash, r->sampled);
	if (r->sampled)
		story_text(r, in); /* for its error, and a verdict */
	else {
		atomic_fetch_add(&thrown_total, 1);
		start_story(c, r, in);
	}
	if (!err_on_throw(c, r, in, hop_of(m, r)))
		handle_drop(c, in);
}

static void on_search_enter(struct ctx *c, struct exr *r, const struct exm_input *in)
{
	if (r->phase != SEARCH) {
		reset(c, "a frame search outside the first pass", in);
		return;
	}
	close_frame(c, r, NULL, false); /* its Leave never came */
	exl_frame_entered(&r->lg);
	r->frames_entered++;
	if (followed(r)) {
		if (!r->thrown_in) {
			r->thrown_in = in->function;
			if (r->error && r->error == r->id)
				err_origin(r); /* its error began here: known before its fate */
		}
		names_add(&r->t.searched, in->function);
	}
	open_frame(c, r, in);
}

static void on_search_leave(struct ctx *c, struct exr *r, const struct exm_input *in)
{
	if (r->phase != SEARCH || r->frame == FRAME_NONE)
		return; /* stray */
	/* thrown in a funclet of this very function: its main frame may be
	 * reported next as a second Enter (.NET 9/10 before runtime#123564) */
	if (r->parent_id && !r->coalesced && r->frame_fn == r->parent_handler_fn)
		r->frame = FRAME_HELD;
	else
		close_frame(c, r, NULL, false);
	/* legacy EH: the runtime will not say that the search found nothing */
	if (!r->lg.on || r->has_catcher || filter_below(c->m, c->m->n - 1) >= 0)
		return;
	if (exl_frame_searched(&r->lg, in) == EXM_VERDICT_UNHANDLED) {
		close_search(c, r, NULL);
		unhandled(c, r);
	}
}

static void on_unwind_enter(struct ctx *c, struct exr *r, const struct exm_input *in)
{
	switch (r->phase) {
	case SEARCH:
		start_unwind(c, r, in);
		break;
	case FILTER:
	case FILTER_RETURNED:
		reset(c, "a frame unwind inside a filter", in);
		return;
	case FINALLY:
	case CATCH:
		close_handler(c, r, "abandoned"); /* its Leave never came */
		break;
	default:
		break;
	}
	close_frame(c, r, NULL, true);
	open_frame(c, r, in);
	/* an unhandled exception unwinds its last frame: the process dies
	 * after that frame's finally blocks, with no further callback; when
	 * it has some, one of them may still replace the exception, so the
	 * summary waits for the last of them to end (exception.unhandled is
	 * on disk already) */
	if (r->reported_unhandled && ++r->frames_unwound >= r->frames_entered && !r->last_finallys)
		summarize(c, r, OUTCOME_UNHANDLED);
}

static void on_unwind_leave(struct ctx *c, struct exr *r, const struct exm_input *in)
{
	if (r->phase == SEARCH) {
		start_unwind(c, r, in); /* the stray Leave that follows a failed search */
		return;
	}
	if (r->phase != UNWIND || r->frame == FRAME_NONE)
		return; /* stray */
	if (r->parent_id && !r->coalesced && r->frame_fn == r->parent_handler_fn)
		r->frame = FRAME_HELD;
	else
		close_frame(c, r, NULL, true);
}

/* A finally or catch handler begins: the second pass starts (or goes on past the handler
 * left), and stories below its frame are superseded.  False when it cannot be (WHY: inside
 * a filter), after a reset. */
static bool begin_handler(struct ctx *c, struct exr *r, const struct exm_input *in, const char *why)
{
	if (r->phase == SEARCH)
		start_unwind(c, r, in);
	else if (r->phase == FINALLY || r->phase == CATCH)
		close_handler(c, r, "abandoned");
	else if (in_filter(r)) {
		reset(c, why, in);
		return false;
	}
	supersede_below(c, r, in->frame, in->fn);
	return true;
}

static void on_finally_enter(struct ctx *c, struct exr *r, const struct exm_input *in)
{
	if (!begin_handler(c, r, in, "a finally inside a filter"))
		return;
	if (told(r))
		names_add(&r->t.finally, in->function);
	enter_handler(c, r, FINALLY, in);
}

static void on_catch_enter(struct ctx *c, struct exr *r, const struct exm_input *in)
{
	if (!begin_handler(c, r, in, "a catch inside a filter"))
		return;
	if (in->object)
		r->object = in->object; /* a GC may have moved it */
	/* caught: another thread may throw it again before this catch ends
	 * (an await's continuation) */
	if (r->t.type.len)
		recent_add(r->object, r->id, r->origin ? r->origin : r->id, r->inner, r->type_hash, r->sampled);
	if (followed(r))
		r->caught_in = in->function;
	r->hkind = in->handler_kind;
	r->hlabel = in->handler_label;
	r->hfinal = in->handler_final;
	enter_handler(c, r, CATCH, in);
}

static void on_filter_leave(struct ctx *c, const struct exm_input *in)
{
	ssize_t i = find_handler(c->m, FILTER, in->frame);
	bool threw;
	struct exr *r;

	if (i < 0)
		return; /* stray */
	threw = (size_t)i + 1 < c->m->n;
	drop_above(c, (size_t)i, OUTCOME_SWALLOWED, NULL);
	r = c->m->live[i];
	if (threw)
		close_filter(c, r, "threw", NULL);
	else
		set_phase(c, r, FILTER_RETURNED);
}

static void on_finally_leave(struct ctx *c, const struct exm_input *in)
{
	ssize_t i = find_handler(c->m, FINALLY, in->frame);
	struct exr *r;

	if (i < 0)
		return; /* stray */
	drop_above(c, (size_t)i, OUTCOME_UNKNOWN, "abandoned");
	r = c->m->live[i];
	close_handler(c, r, NULL);
	/* the last finally of an unhandled exception's last frame ran and
	 * did not replace it: the process dies now */
	if (last_frame_unwinds(r) && r->last_finallys && --r->last_finallys == 0)
		summarize(c, r, OUTCOME_UNHANDLED);
}

static void on_catch_leave(struct ctx *c, const struct exm_input *in)
{
	ssize_t i = find_handler(c->m, CATCH, in->frame);
	struct exr *b;
	uint64_t id;

	if (i < 0)
		return; /* stray */
	drop_above(c, (size_t)i, OUTCOME_UNKNOWN, "abandoned");
	decide_filter(c->m->live[i], in);
	close_handler(c, c->m->live[i], NULL);
	id = c->m->live[i]->id;
	pop(c, OUTCOME_CAUGHT, NULL);
	/* legacy EH: did this catch leave the handler below, in its frame? */
	b = top(c->m);
	if (b && exl_left_by_catch(&b->lg, id, in)) {
		b->superseded_by = id;
		pop(c, exl_left_outcome(&b->lg), "abandoned");
	}
}

/* The thread or the process ends: every open story ends with the outcome
 * it had reached (a catch that was entered is caught), saying WHY. */
static void end_all(struct ctx *c, const char *why)
{
	struct exm *m = c->m;

	while (m->n) {
		struct exr *r = top(m);
		enum ct_outcome o = r->phase == CATCH ? OUTCOME_CAUGHT : r->reported_unhandled ? OUTCOME_UNHANDLED : OUTCOME_UNKNOWN;

		r->interrupted = why;
		pop(c, o, r->phase == CATCH ? NULL : "abandoned");
	}
	m->dying = false;
}

/* Is an exception that the runtime reported unhandled still live, and not
 * replaced by another? */
static bool still_dying(const struct exm *m)
{
	for (size_t k = 0; k < m->n; k++)
		if (m->live[k]->reported_unhandled && !m->live[k]->superseded_by)
			return true;
	return false;
}

/* --- public ----------------------------------------------------------------- */

struct exm *exm_new(void)
{
	return calloc(1, sizeof(struct exm));
}

void exm_free(struct exm *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->n; i++)
		exr_free(m->live[i]);
	exr_free(m->spare);
	free(m);
}

bool exm_top_muted(const struct exm *m)
{
	return m && m->n && m->live[m->n - 1]->muted;
}

bool exm_dying(const struct exm *m)
{
	return m && m->dying;
}

bool exm_search_failed(const struct exm *m, uint64_t *last)
{
	const struct exr *r = m && m->n ? m->live[m->n - 1] : NULL;

	if (!r || r->has_catcher || !r->frames_entered || r->lg.on)
		return false;
	/* a filter of its own that has just returned counts as searched */
	if (r->phase != SEARCH && r->phase != FILTER_RETURNED)
		return false;
	for (size_t k = m->n - 1; k > 0; k--)
		if (in_filter(m->live[k - 1]))
			return false; /* it escapes a filter */
	*last = r->frame_fn;
	return true;
}

bool exm_search_frame(const struct exm *m, uint64_t *fn)
{
	const struct exr *r = m && m->n ? m->live[m->n - 1] : NULL;

	if (!r || !r->lg.on || r->has_catcher || r->phase != SEARCH || r->frame == FRAME_NONE)
		return false;
	*fn = r->frame_fn;
	return true;
}

bool exm_filter_waits(const struct exm *m, uint64_t fn, uint64_t *type_id)
{
	const struct exr *r = m && m->n ? m->live[m->n - 1] : NULL;

	if (!r || !told(r) || r->phase != FILTER_RETURNED || r->handler_fn != fn)
		return false;
	if (type_id)
		*type_id = r->type_id;
	return true;
}

bool exm_catch_decides(const struct exm *m)
{
	/* not tied to the catch state: the glue may feed a CatcherEnter it
	 * held back only with the Leave */
	for (size_t k = m ? m->n : 0; k > 0; k--)
		if (m->live[k - 1]->undecided)
			return true;
	return false;
}

bool exm_catch_within(const struct exm *m, uint64_t *outer_pc)
{
	const struct exr *r, *b;

	if (!m || m->n < 2)
		return false;
	r = m->live[m->n - 1];
	b = m->live[m->n - 2];
	if (r->phase != CATCH || b->lg.maybe_superseded_by != r->id || !b->handler_pc)
		return false;
	*outer_pc = b->handler_pc;
	return true;
}

size_t exm_depth(const struct exm *m)
{
	return m ? m->n : 0;
}

void exm_totals(uint64_t o[_OUTCOME_MAX])
{
	for (int i = 0; i < _OUTCOME_MAX; i++)
		o[i] = atomic_load(&totals[i]);
}

/* Start the counts anew (a new trace after a detach: no story is live). */
void exm_totals_reset(void)
{
	for (int i = 0; i < _OUTCOME_MAX; i++)
		atomic_store(&totals[i], 0);
	atomic_store(&thrown_total, 0);
	/* a rethrow in the new trace links to no story of the old one */
	for (size_t i = 0; i < RECENT; i++)
		atomic_store(&recent.v[i].object, 0);
	exm_errors_flush(NULL);
	pthread_mutex_lock(&errs_lock);
	errs_evicted = errs_untracked = 0;
	pthread_mutex_unlock(&errs_lock);
}

uint64_t exm_open(void)
{
	uint64_t ended = 0, thrown = atomic_load(&thrown_total);

	for (int i = 0; i < _OUTCOME_MAX; i++)
		ended += atomic_load(&totals[i]);
	return thrown > ended ? thrown - ended : 0;
}

/* Legacy EH: was R's catch or finally, which an inner exception may have
 * left, left (IN is not its own Leave)?  Returns the story on top after. */
static struct exr *settle_abandoned(struct ctx *c, struct exr *r, const struct exm_input *in)
{
	enum exm_input_kind leave = r->phase == CATCH ? EXM_CATCH_LEAVE : EXM_FINALLY_LEAVE;

	if (!exl_left_at(&r->lg, in, leave, r->handler_fp))
		return r;
	r->superseded_by = r->lg.maybe_superseded_by;
	pop(c, exl_left_outcome(&r->lg), "abandoned");
	return top(c->m);
}

/* Hand the callback IN to the step of the live story R it belongs to. */
static void dispatch(struct ctx *c, struct exr *r, const struct exm_input *in)
{
	switch (in->kind) {
	case EXM_SEARCH_ENTER:
		on_search_enter(c, r, in);
		break;
	case EXM_SEARCH_LEAVE:
		on_search_leave(c, r, in);
		break;
	case EXM_FILTER_ENTER:
		if (r->phase != SEARCH) {
			reset(c, "a filter outside the first pass", in);
			break;
		}
		enter_handler(c, r, FILTER, in);
		break;
	case EXM_FILTER_LEAVE:
		on_filter_leave(c, in);
		break;
	case EXM_CATCHER_FOUND:
		r->has_catcher = true;
		out_fn(c, r, EV_EXCEPTION_CATCHER_FOUND, PH_INSTANT, in->function, NULL);
		break;
	case EXM_UNWIND_ENTER:
		on_unwind_enter(c, r, in);
		break;
	case EXM_UNWIND_LEAVE:
		on_unwind_leave(c, r, in);
		break;
	case EXM_FINALLY_ENTER:
		on_finally_enter(c, r, in);
		break;
	case EXM_FINALLY_LEAVE:
		on_finally_leave(c, in);
		break;
	case EXM_CATCH_ENTER:
		on_catch_enter(c, r, in);
		break;
	case EXM_CATCH_LEAVE:
		on_catch_leave(c, in);
		break;
	default:
		break;
	}
}

/* Feed one input (see machine.h). */
void exm_feed(struct exm *m, const struct exm_input *in, const struct exm_emitter *e)
{
	struct ctx c = { m, e };
	struct exr *r;

	if (!m || !in || !e)
		return;
	r = top(m);
	if (r && r->lg.maybe_superseded_by && (r->phase == CATCH || r->phase == FINALLY))
		r = settle_abandoned(&c, r, in);
	if (r && settle_pending(&c, r, in))
		return;
	if (r && in->kind != EXM_FILTER_LEAVE)
		settle_filter(&c, r, in);

	if (in->kind == EXM_THROWN) {
		on_thrown(&c, in);
		return;
	}
	if (in->kind == EXM_THREAD_END || in->kind == EXM_EXIT) {
		end_all(&c, in->kind == EXM_EXIT ? "exit" : "thread_end");
		return;
	}
	if (!r)
		return; /* nothing live: a stray callback */
	dispatch(&c, r, in);
	if (m->dying)
		m->dying = still_dying(m);
}
