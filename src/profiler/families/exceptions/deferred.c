/* SPDX-License-Identifier: MIT */
/*
 * The runtime calls ExceptionSearchFilterEnter (in preemptive mode) and
 * ExceptionCatcherEnter with the exception object in a local the GC does
 * not know about, until dotnet/runtime#132482: a GC during the callback
 * moves the object and the filter or catch funclet then gets a stale
 * reference.  Any time spent in those two callbacks widens that window, so
 * they only copy a few words into the thread's struct; the records are
 * built before the thread's next record of any kind (core/emit.c: a load or
 * a GC the filter starts nests inside it) or at its next exception callback (the matching Leave, a
 * nested throw, the thread's end) or at Shutdown on that thread, in the
 * same order and with the time of the Enter.
 */
#include "profiler/families/exceptions/deferred.h"
#include "profiler/families/exceptions/exceptions.h"
#include "profiler/families/exceptions/machine.h"
#include "profiler/abi/info.h"

/* The clause's frame pointer and handler address (0 unknown).
 * GetNotifiedExceptionClauseInfo only reads the thread's exception state
 * (no lock, no GC). */
static void clause_info(uint64_t *frame, uint64_t *pc)
{
	COR_PRF_EX_CLAUSE_INFO ci = { 0 };

	*frame = *pc = 0;
	if (info_GetNotifiedExceptionClauseInfo(ct.info, &ci) != S_OK)
		return;
	*frame = ci.framePointer;
	*pc = ci.programCounter;
}

/* Stash an Enter (see deferred.h).  The entry is written before the count
 * is published, so the exit path on another thread (ct_deferred_take)
 * only reads complete entries. */
HRESULT ct_defer_enter(struct ct_thread *t, int kind, FunctionID f, ObjectID obj)
{
	struct exc_thread *x = exc_thread(t);
	unsigned n;

	if (!x) /* nothing live: the machine would ignore it */
		return S_OK;
	n = atomic_load_explicit(&x->n_deferred, memory_order_relaxed);
	if (n >= CT_DEFERRED_MAX) {
		atomic_fetch_add_explicit(&x->deferred_lost, 1, memory_order_relaxed); /* said at the next replay */
		return S_OK;
	}
	x->deferred[n] = (struct ct_deferred){ .kind = kind, .fn = f, .object = obj, .ts = now_ns(), .mono = mono_ns() };
	clause_info(&x->deferred[n].frame, &x->deferred[n].pc);
	atomic_store_explicit(&x->n_deferred, n + 1, memory_order_release);
	return S_OK;
}

/* Feed the N entries of D, each at its own time, then say what was lost. */
static void replay(struct ct_thread *t, const struct ct_deferred *d, unsigned n, unsigned lost)
{
	for (unsigned i = 0; i < n; i++) {
		t->ts_replay = d[i].ts;
		t->mono_replay = d[i].mono;
		ct_exceptions_feed_stashed(t, d[i].fn, d[i].object, d[i].frame, d[i].pc, d[i].kind);
		t->ts_replay = t->mono_replay = 0;
	}
	if (lost)
		ct_error(t, "%u exception handler callbacks lost: more than %d arrived with no other exception callback between them",
			 lost, CT_DEFERRED_MAX);
}

/* Feed the stash (see deferred.h). */
void ct_deferred_replay(struct ct_thread *t)
{
	struct ct_deferred d[CT_DEFERRED_MAX];
	struct exc_thread *x = exc_thread(t);
	unsigned n, lost;

	if (!x)
		return;
	n = atomic_load_explicit(&x->n_deferred, memory_order_acquire);
	lost = atomic_load_explicit(&x->deferred_lost, memory_order_relaxed);
	if (!n && !lost)
		return;
	memcpy(d, x->deferred, n * sizeof(d[0]));
	atomic_store_explicit(&x->n_deferred, 0, memory_order_relaxed);
	atomic_store_explicit(&x->deferred_lost, 0, memory_order_relaxed);
	replay(t, d, n, lost);
}

/* Feed another thread's stash (see deferred.h). */
bool ct_deferred_take(struct ct_thread *t)
{
	struct ct_deferred d[CT_DEFERRED_MAX];
	struct exc_thread *x = exc_thread(t);
	unsigned n;

	if (!x)
		return true;
	n = atomic_load_explicit(&x->n_deferred, memory_order_acquire);
	if (n > CT_DEFERRED_MAX)
		return false;
	memcpy(d, x->deferred, n * sizeof(d[0]));
	/* the count moved: T is stashing right now (it is in a callback) */
	if (!atomic_compare_exchange_strong_explicit(&x->n_deferred, &n, 0, memory_order_acq_rel,
						     memory_order_relaxed))
		return false;
	replay(t, d, n, atomic_exchange_explicit(&x->deferred_lost, 0, memory_order_relaxed));
	return true;
}
