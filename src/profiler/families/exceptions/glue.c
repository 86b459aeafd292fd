/* SPDX-License-Identifier: MIT */
/*
 * The runtime's exception callbacks → the pure state machine → ct_emit.
 * Also: CLRTRACE_EXCEPTIONS filtering decided once at the throw (its
 * Type:N limits and the budget: sample.c), the stack snapshot that tells a native boundary from an
 * unhandled exception, the totals for runtime.shutdown, and CLRTRACE_EXC_RAWLOG,
 * which logs every resolved input as JSON Lines (the fixture format of
 * tests/unit/test-machine).
 */
#include <link.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "profiler/families/handlers.h"
#include "profiler/families/exceptions/clauses.h"
#include "profiler/abi/info.h"
#include "profiler/core/module-md.h"
#include "profiler/core/thread-ident.h"
#include "profiler/families/exceptions/deferred.h"
#include "profiler/families/exceptions/exceptions.h"
#include "profiler/families/requests.h"
#include "profiler/families/exceptions/handlers.h"
#include "profiler/families/exceptions/ident.h"
#include "profiler/families/exceptions/inspect.h"
#include "profiler/families/exceptions/machine.h"
#include "profiler/families/exceptions/pin.h"
#include "profiler/families/exceptions/rtframes.h"
#include "profiler/families/exceptions/sample.h"
#include "profiler/families/exceptions/stack.h"

/* The machine's records, written straight into the line. */
static void emit_record(void *ud, enum ct_event ev, enum ct_phase ph, uint64_t key, const struct jw_fields *f)
{
	ct_emit(ud, ev, ph, key, f);
}

/* Is the record wanted?  (frames is off by default.) */
static bool emit_wants(void *ud, enum ct_event ev)
{
	return ct_wants(ev);
}

static void emit_error(void *ud, const char *msg)
{
	ct_error(ud, "%s", msg);
}

static void emit_dying(void *ud)
{
	ct_sample_report(ud, true); /* what was left out: no runtime.shutdown follows */
	ct_flush_all(true);
}

/* The machine's clock, for its durations: monotonic. */
static uint64_t emit_now(void *ud)
{
	return ct_mono(ud);
}

static int64_t emit_tid(void *ud)
{
	return ((struct ct_thread *)ud)->tid;
}

/* --- raw input log (fixtures) ------------------------------------------ */

static pthread_once_t rawlog_once = PTHREAD_ONCE_INIT;
static int rawlog_fd = -1;

/* Open CLRTRACE_EXC_RAWLOG (appended to, never through a symlink). */
static void rawlog_open(void)
{
	const char *p = secure_getenv("CLRTRACE_EXC_RAWLOG");
	int fd;

	if (!p || !*p)
		return;
	fd = open_append_nofollow(p);
	if (fd < 0)
		ct_say_once("rawlog", "cannot open CLRTRACE_EXC_RAWLOG file %s: %s; no raw log", p, strerror(-fd));
	else
		rawlog_fd = fd;
}

/* One JSON line per input: {"tid":…,"in":"…",…}; what the fixtures hold. */
static void rawlog_write(const struct ct_thread *t, const struct exm_input *in)
{
	_cleanup_(jw_free) struct jw w = { 0 };
	JW_FIELDS(f, 32);

	jwf_int(&f, "tid", t->tid);
	jwf_str(&f, "in", exm_input_names[in->kind]);
	if (in->fn)
		jwf_hex(&f, "fn", in->fn);
	if (in->function)
		jwf_str(&f, "function", in->function);
	if (in->object)
		jwf_hex(&f, "object", in->object);
	if (in->frame)
		jwf_hex(&f, "frame", in->frame);
	if (in->kind == EXM_THROWN) {
		jwf_str(&f, "type", in->type ? in->type : "?");
		if (in->message)
			jwf_str(&f, "message", in->message);
		if (in->has_hresult)
			jwf_int(&f, "hresult", in->hresult);
		if (in->muted)
			jwf_bool(&f, "muted", true);
		if (in->traced)
			jwf_bool(&f, "traced", true);
		if (in->inner)
			jwf_hex(&f, "inner", in->inner);
		if (in->stack_depth)
			jwf_int(&f, "stack_depth", in->stack_depth);
		if (in->native_depth)
			jwf_int(&f, "native_depth", in->native_depth);
		if (in->native_boundary)
			jwf_bool(&f, "native_boundary", true);
		if (in->legacy)
			jwf_bool(&f, "legacy", true);
		if (in->type_id)
			jwf_hex(&f, "type_id", in->type_id);
		if (in->handle)
			jwf_hex(&f, "handle", in->handle);
		if (in->handle_new)
			jwf_bool(&f, "handle_new", true);
		if (in->inner_handle)
			jwf_hex(&f, "inner_handle", in->inner_handle);
		if (in->inner_checked)
			jwf_bool(&f, "inner_checked", true);
	}
	if (in->verdict)
		jwf_str(&f, "verdict", exm_verdict_names[in->verdict]);
	if (in->catch_after_filter)
		jwf_bool(&f, "catch_after_filter", in->catch_after_filter == EXM_KNOW_YES);
	if (in->ran_filter_handler)
		jwf_bool(&f, "ran_filter_handler", in->ran_filter_handler == EXM_KNOW_YES);
	if (in->runtime)
		jwf_bool(&f, "runtime", true);
	if (in->within_outer)
		jwf_bool(&f, "within_outer", in->within_outer == EXM_KNOW_YES);
	if (in->last_finallys)
		jwf_int(&f, "last_finallys", in->last_finallys);
	if (in->pc)
		jwf_hex(&f, "pc", in->pc);
	if (in->kind == EXM_CATCH_ENTER && in->function)
		jwf_str(&f, "handler_kind", ct_handler_kind_to_string(in->handler_kind));
	if (in->handler_label)
		jwf_str(&f, "handler_label", in->handler_label);
	if (in->handler_final)
		jwf_bool(&f, "handler_final", true);
	jw_object(&w, &f);
	jw_raw(&w, "\n", 1);
	if (!w.b.oom)
		(void)write_all(rawlog_fd, w.b.s, w.b.len);
}

/* The raw log of IN, when CLRTRACE_EXC_RAWLOG asks for one: at every
 * exception callback, so nothing more than a test when it does not. */
static inline void rawlog(const struct ct_thread *t, const struct exm_input *in)
{
	pthread_once(&rawlog_once, rawlog_open);
	if (__builtin_expect(rawlog_fd >= 0, 0))
		rawlog_write(t, in);
}

/* --- filters ------------------------------------------------------------ */

static atomic_uint_fast64_t excluded_total;

/* Is an exception of TYPE followed at all (not excluded by a !glob)?  Its
 * Type:N limit is the machine's question, once per error (sample.c). */
static bool type_wanted(const char *type)
{
	unsigned limit = 0;

	if (!globs_match(&ct.cfg.exceptions, type, &limit)) {
		atomic_fetch_add(&excluded_total, 1);
		return false;
	}
	return true;
}

/* Totals for runtime.shutdown: outcomes, excluded, open, suppressed per
 * type, as an object into W. */
void ct_exceptions_totals(struct jw *w)
{
	uint64_t tot[_OUTCOME_MAX], evicted, untracked;
	struct jw sup = { 0 };
	JW_FIELDS(f, _OUTCOME_MAX + 7);
	JW_FIELDS(req, 4);

	exm_totals(tot);
	for (int i = 0; i < _OUTCOME_MAX; i++)
		jwf_int(&f, ct_outcome_to_string(i), (int64_t)tot[i]);
	jwf_int(&f, "excluded", (int64_t)atomic_load(&excluded_total));
	/* stories still open on other threads: said, not silently lost */
	jwf_int(&f, "open", (int64_t)exm_open());
	exm_errors_counts(&evicted, &untracked);
	jwf_int(&f, "errors_evicted", (int64_t)evicted);
	jwf_int(&f, "errors_untracked", (int64_t)untracked);
	ct_sample_totals(&f, &sup);
	if (ct_on(CAT_REQUESTS)) {
		ct_requests_totals(&req);
		jwf_obj(&f, "requests", &req);
	}
	jw_object(w, &f);
	jw_free(&sup);
}

/* A new trace after a detach: every count starts anew (attach.c). */
void ct_exceptions_reset(void)
{
	exm_totals_reset();
	atomic_store(&excluded_total, 0);
	ct_sample_reset();
}

/* --- feeding the machine ------------------------------------------------- */

/* The frame pointer of the clause being notified, or 0; its handler's
 * address in *PC (0 unknown). */
static uint64_t clause_frame_pc(uint64_t *pc)
{
	COR_PRF_EX_CLAUSE_INFO ci = { 0 };

	*pc = 0;
	if (info_GetNotifiedExceptionClauseInfo(ct.info, &ci) != S_OK)
		return 0;
	*pc = ci.programCounter;
	return ci.framePointer;
}

/* The frame pointer of the clause being notified, or 0. */
static uint64_t clause_frame(void)
{
	uint64_t pc;

	return clause_frame_pc(&pc);
}

/* What a walk of this thread's stack found (FunctionID 0 in a snapshot
 * marks a run of native frames, with the IP of its first frame). */
struct walk {
	FunctionID after;    /* start counting below this frame (0: at the top) */
	bool found;          /* ... and it was seen */
	unsigned managed;    /* managed frames counted */
	unsigned before_native; /* managed frames before the first native run */
	UINT_PTR native_ip;  /* that run's first IP, 0: none yet */
	UINT_PTR after_ip;   /* the IP of frame AFTER (its call site) */
	bool managed_below;  /* a managed frame follows that run */
};

/* DoStackSnapshot's callback: one frame, innermost first. */
static HRESULT walk_frame(FunctionID f, UINT_PTR ip, UINT_PTR frame, uint32_t n, uint8_t *ctx, void *data)
{
	struct walk *w = data;

	if (!w->found) {
		if (w->after && f != w->after)
			return S_OK;
		w->found = true;
		w->after_ip = ip;
	}
	if (f) {
		w->managed++;
		if (w->native_ip)
			w->managed_below = true;
		else
			w->before_native++;
	} else if (!w->native_ip && w->managed) {
		w->native_ip = ip ? ip : 1;
	}
	return S_OK;
}

/* Walk this thread's stack; false if the runtime won't. */
static bool walk_stack(struct walk *w)
{
	return SUCCEEDED(info_DoStackSnapshot(ct.info, 0, walk_frame, 0, w, NULL, 0));
}

/* The address range of the runtime's loaded image, found once: the object
 * whose PT_LOAD segments hold the code of the ICorProfilerInfo object the
 * runtime gave us.  By that identity, not by name: libcoreclr.so for most
 * apps, but the executable itself in a single-file app, whose host has the
 * runtime linked in. */
static pthread_once_t coreclr_once = PTHREAD_ONCE_INIT;
static uintptr_t coreclr_lo, coreclr_hi;

static int coreclr_segments(struct dl_phdr_info *info, size_t size, void *data)
{
	uintptr_t mark = *(const uintptr_t *)data, lo = UINTPTR_MAX, hi = 0;
	bool holds = false;

	for (size_t i = 0; i < info->dlpi_phnum; i++) {
		uintptr_t start = info->dlpi_addr + info->dlpi_phdr[i].p_vaddr;
		uintptr_t end = start + info->dlpi_phdr[i].p_memsz;

		if (info->dlpi_phdr[i].p_type != PT_LOAD)
			continue;
		holds = holds || (mark >= start && mark < end);
		lo = start < lo ? start : lo;
		hi = end > hi ? end : hi;
	}
	if (!holds)
		return 0;
	coreclr_lo = lo;
	coreclr_hi = hi;
	return 1;
}

static void coreclr_find(void)
{
	/* QueryInterface of ICorProfilerInfo: the runtime's own code */
	uintptr_t mark = ct.info ? (uintptr_t)ct.info->vtbl[0] : 0;

	if (mark)
		dl_iterate_phdr(coreclr_segments, &mark);
}

/* Is IP inside the runtime's own native code (coreclr_segments)?  No lock
 * and no dladdr per call: .NET 8 asks at every throw. */
static bool runtime_code(UINT_PTR ip)
{
	pthread_once(&coreclr_once, coreclr_find);
	return ip >= coreclr_lo && ip < coreclr_hi;
}

/* A search that found no catcher ended at the native caller of LAST (the
 * last frame searched): is that the runtime's own code, which catches the
 * exception and raises it again or wraps it (a boundary), or the end of the
 * managed stack or a reverse P/Invoke, which is fatal on Linux? */
static enum exm_verdict search_end_verdict(FunctionID last, unsigned *finallys)
{
	struct walk w = { .after = last };

	*finallys = 0;
	if (!last || !walk_stack(&w) || !w.found)
		return EXM_VERDICT_UNKNOWN;
	if (w.native_ip && w.managed_below && runtime_code(w.native_ip))
		return EXM_VERDICT_BOUNDARY;
	/* the finally blocks of LAST that still run (and may replace it) */
	*finallys = ct_finallys_covering(last, w.after_ip);
	return EXM_VERDICT_UNHANDLED;
}

/* FunctionID | enum exm_know: is it an [UnmanagedCallersOnly] method?
 * (FunctionIDs are 8-aligned pointers; a collision just asks again.) */
#define UCO_CACHE 256
static _Atomic uint64_t uco_cache[UCO_CACHE];

/* Is F an [UnmanagedCallersOnly] method, the managed side of a reverse
 * P/Invoke, which no exception may leave?  On .NET 8 the first pass ends
 * there even when managed code called it through a delegate* unmanaged,
 * and the stack snapshot shows no native frame between the two. */
static enum exm_know reverse_entry(FunctionID f)
{
	size_t slot = (f >> 3) % UCO_CACHE;
	uint64_t v = atomic_load_explicit(&uco_cache[slot], memory_order_relaxed);
	ClassID cls = 0;
	ModuleID mod = 0;
	mdToken tok = 0;
	struct md md;
	enum exm_know k;
	int r;

	if (f && (v & ~(uint64_t)7) == f)
		return (enum exm_know)(v & 7);
	if (FAILED(info_GetFunctionInfo(ct.info, f, &cls, &mod, &tok)) || !mod)
		return EXM_KNOW_UNKNOWN;
	if (MD_TOKEN_TABLE(tok) != MD_METHODDEF)
		return EXM_KNOW_NO;
	if (ct_module_md(mod, &md) < 0)
		return EXM_KNOW_UNKNOWN; /* a dynamic module: no image to read */
	r = md_has_attribute(&md, tok, "System.Runtime.InteropServices", "UnmanagedCallersOnlyAttribute");
	if (r < 0)
		return EXM_KNOW_UNKNOWN;
	k = r ? EXM_KNOW_YES : EXM_KNOW_NO;
	if (!(f & 7))
		atomic_store_explicit(&uco_cache[slot], f | k, memory_order_relaxed);
	return k;
}

static const struct exm_emitter emitter_proto = {
	.record = emit_record,
	.wants = emit_wants,
	.error = emit_error,
	.dying = emit_dying,
	.now = emit_now,
	.tid = emit_tid,
	.keep = ct_sample_keep,
	.handle_free = ct_ident_free,
};

/* Is any exception event wanted (the stories, or their passes frame by
 * frame)? */
static inline bool exceptions_on(void)
{
	return ct_on(CAT_EXCEPTIONS) || ct_on(CAT_FRAMES);
}

/* Hand IN to this thread's machine (created on demand). */
static HRESULT feed(struct ct_thread *t, struct exm_input *in)
{
	struct exm_emitter e = emitter_proto;

	struct exm *m;

	if (!exceptions_on())
		return S_OK;
	if (!(m = exc_machine(t))) {
		if (in->kind != EXM_THROWN || !exc_thread_make(t)) {
			if (in->handle_new) /* no machine to hold it */
				ct_ident_free(t, in->handle);
			return S_OK; /* nothing live: a stray callback */
		}
		m = exc_machine(t);
	}
	e.userdata = t;
	/* new exception handling: the first unwind input after a search that
	 * found no catcher; decide here, while the stack is still intact */
	if (!ct.legacy_eh && (in->kind == EXM_UNWIND_ENTER || in->kind == EXM_UNWIND_LEAVE)) {
		uint64_t last;

		if (exm_search_failed(m, &last))
			in->verdict = search_end_verdict(last, &in->last_finallys);
	}
	/* legacy exception handling: a frame searched without a catcher that
	 * is a reverse P/Invoke's managed side is the last; nothing comes
	 * after it but the process's death */
	if (ct.legacy_eh && in->kind == EXM_SEARCH_LEAVE) {
		uint64_t fn;

		if (exm_search_frame(m, &fn) && reverse_entry(fn) == EXM_KNOW_YES)
			in->verdict = EXM_VERDICT_UNHANDLED;
	}
	rawlog(t, in);
	exm_feed(m, in, &e);
	if (!t->fed_by_other)
		ct_pin_release(t, exm_depth(m));
	if (exm_dying(m))
		ct_flush_all(true);
	return S_OK;
}

/* An input naming function F; the name only when someone will see it. */
static HRESULT feed_fn(struct ct_thread *t, enum exm_input_kind kind, FunctionID f, bool with_frame)
{
	struct exm_input in = { .kind = kind, .fn = f };

	ct_deferred_replay(t);
	if (!exceptions_on() || !exc_machine(t))
		return S_OK;
	if (!exm_top_muted(exc_machine(t)))
		in.function = ct_function_name(f);
	if (with_frame)
		in.frame = clause_frame_pc(&in.pc);
	return feed(t, &in);
}

static HRESULT feed_leave(struct ct_thread *t, enum exm_input_kind kind, bool with_frame)
{
	struct exm_input in = { .kind = kind };

	ct_deferred_replay(t);
	if (!exceptions_on() || !exc_machine(t))
		return S_OK;
	if (with_frame)
		in.frame = clause_frame();
	return feed(t, &in);
}

/* What exception.throw adds to the machine's fields: the inner chain, and
 * with the stacks category the stack.  Here, inside ExceptionThrown, and
 * nowhere else (dotnet/runtime#132462). */
static void throw_fields(ObjectID obj, const struct exc_info *info, struct exm_input *in)
{
	if (info->inner && ct_wants(EV_EXCEPTION_THROW)) {
		struct exc_chain chain;

		exc_inner_chain(obj, info->inner, ct.cfg.messages, &chain);
		in->throw_fields = exc_chain_fields(&chain, ct.cfg.messages);
		exc_chain_done(&chain);
	}
	if (ct_on(CAT_STACKS))
		in->story_fields = exc_stack_fields(ct.cfg.stack_depth);
}

HRESULT on_ExceptionThrown(struct ct_thread *t, ObjectID obj)
{
	struct exm_input in = { .kind = EXM_THROWN, .object = obj };
	struct exc_info info;

	if (!exceptions_on())
		return S_OK;
	/* cooperative mode: the thread's Thread object cannot move, its
	 * managed id is read whatever the retry time */
	if (!t->managed_tid)
		ct_thread_ident_update(t, now_ns(), true);
	exc_inspect(obj, ct.cfg.messages, &info);
	ct_deferred_replay(t); /* after reading the object: it may call into the runtime */
	in.type = info.type;
	in.message = info.message;
	in.no_message = !ct.cfg.messages;
	in.hresult = info.hresult;
	in.has_hresult = info.has_hresult;
	in.traced = info.traced;
	in.inner = info.inner;
	in.type_id = info.class_id;
	in.muted = !type_wanted(info.type);
	if (ct.legacy_eh) {
		struct walk w = { 0 };

		in.legacy = true;
		if (walk_stack(&w)) {
			in.stack_depth = w.managed;
			in.native_depth = w.native_ip ? w.before_native : 0;
			in.native_boundary = w.managed_below && runtime_code(w.native_ip);
		}
	}
	if (!in.muted)
		throw_fields(obj, &info, &in);
	/* which open error it is, by a handle that a GC does not move */
	ct_ident_thrown(obj, &in);
	/* which request it belongs to (category requests): on the throw's
	 * records and, when it begins an error, on exception.error */
	if (!in.muted && ct_on(CAT_REQUESTS) && (in.error_fields = ct_request_fields(t))) {
		struct jw_text *both = jw_text_cat(in.story_fields, in.error_fields);

		if (both) {
			jw_text_unref(in.story_fields);
			in.story_fields = both;
		}
	}
	/* pins of stories the exit path ended from another thread */
	if (exc_machine(t))
		ct_pin_release(t, exm_depth(exc_machine(t)));
	else
		(void)exc_thread_make(t); /* for the pin */
	ct_pin_thrown(t, obj);
	feed(t, &in);
	jw_text_unref(in.throw_fields);
	jw_text_unref(in.story_fields);
	jw_text_unref(in.error_fields);
	exc_info_done(&info);
	return S_OK;
}

HRESULT on_ExceptionSearchFunctionEnter(struct ct_thread *t, FunctionID f)
{
	return feed_fn(t, EXM_SEARCH_ENTER, f, false);
}

HRESULT on_ExceptionSearchFunctionLeave(struct ct_thread *t)
{
	return feed_leave(t, EXM_SEARCH_LEAVE, false);
}

/* The exception object is unprotected here: stash only (deferred.c). */
HRESULT on_ExceptionSearchFilterEnter(struct ct_thread *t, FunctionID f)
{
	return exceptions_on() ? ct_defer_enter(t, EXM_FILTER_ENTER, f, 0) : S_OK;
}

HRESULT on_ExceptionSearchFilterLeave(struct ct_thread *t)
{
	return feed_leave(t, EXM_FILTER_LEAVE, true);
}

HRESULT on_ExceptionSearchCatcherFound(struct ct_thread *t, FunctionID f)
{
	struct exm_input in = { .kind = EXM_CATCHER_FOUND, .fn = f };
	uint64_t type_id = 0;

	ct_deferred_replay(t);
	if (!exceptions_on() || !exc_machine(t))
		return S_OK;
	if (!exm_top_muted(exc_machine(t)))
		in.function = ct_function_name(f);
	/* a filter of F just said something: its clause table tells what */
	if (exm_filter_waits(exc_machine(t), f, &type_id))
		in.catch_after_filter = ct_catch_after_filter(f, (ClassID)type_id);
	return feed(t, &in);
}

HRESULT on_ExceptionUnwindFunctionEnter(struct ct_thread *t, FunctionID f)
{
	return feed_fn(t, EXM_UNWIND_ENTER, f, false);
}

HRESULT on_ExceptionUnwindFunctionLeave(struct ct_thread *t)
{
	return feed_leave(t, EXM_UNWIND_LEAVE, false);
}

HRESULT on_ExceptionUnwindFinallyEnter(struct ct_thread *t, FunctionID f)
{
	return feed_fn(t, EXM_FINALLY_ENTER, f, true);
}

HRESULT on_ExceptionUnwindFinallyLeave(struct ct_thread *t)
{
	return feed_leave(t, EXM_FINALLY_LEAVE, true);
}

/* The exception object is unprotected here: stash only (deferred.c). */
HRESULT on_ExceptionCatcherEnter(struct ct_thread *t, FunctionID f, ObjectID obj)
{
	return exceptions_on() ? ct_defer_enter(t, EXM_CATCH_ENTER, f, obj) : S_OK;
}

/* A FilterEnter or CatcherEnter that deferred.c stashed. */
void ct_exceptions_feed_stashed(struct ct_thread *t, uint64_t fn, uint64_t object, uint64_t frame, uint64_t pc,
				int kind)
{
	struct exm_input in = { .kind = kind, .fn = fn, .object = object, .frame = frame, .pc = pc };

	if (!exceptions_on() || !exc_machine(t))
		return;
	if (!exm_top_muted(exc_machine(t))) {
		in.function = ct_function_name(fn);
		/* the runtime's own filter (rtframes.c): a cached lookup, and
		 * here, not in FilterEnter */
		in.runtime = kind == EXM_FILTER_ENTER && ct_runtime_frame(fn);
		/* whose catch: one cached lookup, here, not in CatcherEnter */
		if (kind == EXM_CATCH_ENTER) {
			struct ct_handler h = ct_handler_of(fn, pc, in.function);

			in.handler_kind = h.kind;
			in.handler_label = h.label;
			in.handler_final = h.final;
		}
	}
	feed(t, &in);
}

HRESULT on_ExceptionCatcherLeave(struct ct_thread *t)
{
	struct exm_input in = { .kind = EXM_CATCH_LEAVE };
	uint64_t outer_pc;

	ct_deferred_replay(t); /* its CatcherEnter first */
	if (!exceptions_on() || !exc_machine(t))
		return S_OK;
	in.frame = clause_frame();
	/* which clause ran decides a filter's result (clause info is valid
	 * until this Leave returns) */
	if (exm_catch_decides(exc_machine(t)))
		in.ran_filter_handler = ct_catch_is_filter_handler();
	/* legacy EH: did this catch leave a catch or finally of its frame? */
	if (exm_catch_within(exc_machine(t), &outer_pc))
		in.within_outer = ct_catch_within(outer_pc);
	return feed(t, &in);
}

/* Called by on_ThreadDestroyed (src/events/threads.c) for the dying thread. */
void ct_exceptions_thread_end(struct ct_thread *t)
{
	struct exm_input in = { .kind = EXM_THREAD_END };

	if (t)
		ct_deferred_replay(t);
	if (t && exc_machine(t) && exm_depth(exc_machine(t)))
		feed(t, &in);
}

/* End the open stories of T, another thread, unless T is in a callback
 * (then they stay counted as open in runtime.shutdown's totals). */
static void exit_other(struct ct_thread *t, void *self)
{
	struct exm_input in = { .kind = EXM_EXIT };

	if (t == self || !exc_machine(t) || !ct_thread_trylock(t))
		return;
	t->fed_by_other = true;
	/* a catch block that T is in: its begin (T stashed it) */
	if (ct_deferred_take(t) && exm_depth(exc_machine(t)))
		feed(t, &in);
	t->fed_by_other = false;
	ct_thread_unlock(t);
}

/* Called by Shutdown and at exit() (src/profiler.c) on the exiting thread,
 * holding T->lock: the stories of every thread end, as far as it is safe. */
void ct_exceptions_exit(struct ct_thread *t)
{
	struct exm_input in = { .kind = EXM_EXIT };

	ct_ident_exiting(); /* the errors' handles go with the process */
	if (t)
		ct_deferred_replay(t); /* a catch block that calls exit: its begin */
	if (t && exc_machine(t) && exm_depth(exc_machine(t)))
		feed(t, &in);
	/* other threads may be inside a catch or finally: never wait for one */
	if (exceptions_on())
		ct_threads_each(exit_other, t);
	/* then the errors still waiting or open (the stories ended above
	 * decided theirs), written on this thread */
	if (t && exceptions_on()) {
		struct exm_emitter e = emitter_proto;

		e.userdata = t;
		exm_errors_flush(&e);
	}
	/* what sampling left out, before runtime.shutdown counts it */
	ct_sample_report(t, true);
}
