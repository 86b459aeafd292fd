/* SPDX-License-Identifier: MIT */
/*
 * Until dotnet/runtime#132482 (.NET 11), CallFilterFunclet and
 * CallCatchFunclet keep the exception object in a local the GC does not
 * update while the FilterEnter and CatcherEnter callbacks run; the first
 * switches to preemptive mode, which is where a pending GC suspension
 * catches the thread.  A compacting GC then moves the object and the filter
 * or catch gets a stale pointer.  This happens with a profiler whose
 * callbacks return at once (bench/filter-load.sh), so stashing alone
 * (deferred.c) cannot prevent it.  What does: a pinned handle on each
 * exception object from its throw until the thread's state machine ends its
 * story (caught, swallowed, superseded, unhandled, thread end).  The GC then
 * never moves an exception object in flight.  ICorProfilerInfo13 offers
 * such handles; .NET 11, which has the fix, and the legacy exception
 * handling, which does not have the race, are left alone.
 */
#include "profiler/families/exceptions/pin.h"
#include "profiler/families/exceptions/exceptions.h"
#include "profiler/abi/info.h"


#define COR_PRF_HANDLE_TYPE_PINNED 3

/* Does this runtime need it, and can the profiler do it?  The funclet
 * helpers belong to the managed exception handling of .NET 9 and 10; the
 * legacy one (.NET 8, or DOTNET_LegacyExceptionHandling=1) did not lose the
 * object in 20 runs of tests/programs/FilterLoad under the old clrtrace,
 * and 11.0.0 has the fix (0 crashes in 25 stressed runs with a profiler
 * that does nothing, against 19 in 25 on 10.0.15).  No 9.0.x or 10.0.x
 * release has it so far: every one is pinned. */
bool ct_pin_wanted(void)
{
	return ct.info_version >= 13 && !ct.legacy_eh && ct.runtime_major >= 9 && ct.runtime_major < 11;
}

/* Pin OBJ for the story that starts now (see pin.h). */
void ct_pin_thrown(struct ct_thread *t, ObjectID obj)
{
	struct exc_thread *x = exc_thread(t);
	uintptr_t h = 0;

	if (!x || !obj || !ct_pin_wanted() || x->n_pins >= CT_PINS_MAX)
		return;
	if (FAILED(info_CreateHandle(ct.info, obj, COR_PRF_HANDLE_TYPE_PINNED, &h)))
		h = 0; /* keep the slot: one per live exception */
	x->pins[x->n_pins++] = h;
}

/* Unpin the exceptions whose stories ended (see pin.h). */
void ct_pin_release(struct ct_thread *t, size_t live)
{
	struct exc_thread *x = exc_thread(t);

	while (x && x->n_pins > live) {
		uintptr_t h = x->pins[--x->n_pins];

		if (h)
			(void)info_DestroyHandle(ct.info, h);
	}
}
