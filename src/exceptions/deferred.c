/* SPDX-License-Identifier: MIT */
/*
 * The runtime calls ExceptionSearchFilterEnter (in preemptive mode) and
 * ExceptionCatcherEnter with the exception object in a local the GC does
 * not know about, until dotnet/runtime#132482: a GC during the callback
 * moves the object and the filter or catch funclet then gets a stale
 * reference.  Any time spent in those two callbacks widens that window, so
 * they only copy a few words into the thread's struct; the records are
 * built at the thread's next exception callback (the matching Leave, a
 * nested throw, the thread's end) or at Shutdown on that thread, in the
 * same order and with the time of the Enter.
 */
#include "deferred.h"
#include "machine.h"

typedef HRESULT (*get_clause_info_fn)(com_object *, COR_PRF_EX_CLAUSE_INFO *);

/* The clause's frame pointer and handler address (0 unknown).
 * GetNotifiedExceptionClauseInfo only reads the thread's exception state
 * (no lock, no GC). */
static void clause_info(uint64_t *frame, uint64_t *pc)
{
	COR_PRF_EX_CLAUSE_INFO ci = { 0 };

	*frame = *pc = 0;
	if (COM_CALL(ct.info, INFO_GetNotifiedExceptionClauseInfo, get_clause_info_fn, &ci) != S_OK)
		return;
	*frame = ci.framePointer;
	*pc = ci.programCounter;
}

/* Stash an Enter (see deferred.h). */
HRESULT ct_defer_enter(struct ct_thread *t, int kind, FunctionID f, ObjectID obj)
{
	if (!t->exm) /* nothing live: the machine would ignore it */
		return S_OK;
	if (t->n_deferred >= CT_DEFERRED_MAX) {
		t->deferred_lost++; /* said at the next replay */
		return S_OK;
	}
	t->deferred[t->n_deferred] = (struct ct_deferred){ .kind = kind, .fn = f, .object = obj, .ts = now_ns() };
	clause_info(&t->deferred[t->n_deferred].frame, &t->deferred[t->n_deferred].pc);
	t->n_deferred++;
	return S_OK;
}

/* Feed the stash (see deferred.h). */
void ct_deferred_replay(struct ct_thread *t)
{
	struct ct_deferred d[CT_DEFERRED_MAX];
	unsigned n = t->n_deferred, lost = t->deferred_lost;

	if (!n && !lost)
		return;
	memcpy(d, t->deferred, n * sizeof(d[0]));
	t->n_deferred = 0;
	t->deferred_lost = 0;
	for (unsigned i = 0; i < n; i++) {
		t->ts_replay = d[i].ts;
		ct_exceptions_feed_stashed(t, d[i].fn, d[i].object, d[i].frame, d[i].pc, d[i].kind);
		t->ts_replay = 0;
	}
	if (lost)
		ct_error(t, "%u exception handler callbacks lost: more than %d arrived with no other exception callback between them",
			 lost, CT_DEFERRED_MAX);
}
