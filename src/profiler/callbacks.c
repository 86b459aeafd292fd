/* SPDX-License-Identifier: MIT */
/*
 * The ICorProfilerCallback11 vtable, built from callbacks.def.  Each slot
 * gets a stub that saves errno, refuses re-entry and calls on_<Name>() when
 * some file defines it (a weak reference, so unhandled callbacks cost one
 * compare and return S_OK).
 */
#include "profiler/core/tracer.h"
#include "common/util.h"

HRESULT ct_callback_query_interface(com_object *self, const GUID *iid, void **out);
ULONG ct_callback_addref(com_object *self);
ULONG ct_callback_release(com_object *self);

#define CB_SELF(...) (com_object *self __VA_OPT__(,) __VA_ARGS__)
#define ON_PARAMS(...) (struct ct_thread *t __VA_OPT__(,) __VA_ARGS__)
#define ON_ARGS(...) (t_ __VA_OPT__(,) __VA_ARGS__)

/* Handlers: declared weak so that a missing one is NULL. */
#define CB(slot, name, params, args) \
	__attribute__((weak)) HRESULT on_##name ON_PARAMS params;
#include "profiler/abi/callbacks.def"
#undef CB

/* Each callback's vtable slot by name (SLOT_Initialize…). */
enum {
#define CB(slot, name, params, args) SLOT_##name = slot,
#include "profiler/abi/callbacks.def"
#undef CB
};

/* ExceptionSearchFilterEnter and ExceptionCatcherEnter run while the
 * runtime holds the exception object unprotected (dotnet/runtime#132462):
 * they only stash (exceptions/deferred.c) and take no lock.  Every other
 * callback holds its thread's lock, so that the exit path can tell, with a
 * trylock, that the thread is in none of them. */
static inline bool stash_only(int slot)
{
	return slot == SLOT_ExceptionSearchFilterEnter || slot == SLOT_ExceptionCatcherEnter;
}

/* The callbacks of exception dispatch (and the two COM vtable ones among
 * their slots, which clrtrace does not handle): the runtime may hold objects
 * there that a garbage collection would move, so the tracer makes no call
 * that may trigger one (ct_thread.in_dispatch). */
static inline bool in_dispatch(int slot)
{
	return slot >= SLOT_ExceptionThrown && slot <= SLOT_ExceptionCLRCatcherExecute;
}

/* EventPipeEventDelivered comes synchronously from inside the runtime's
 * event write, and clrtrace writes one itself, inside its exception
 * callbacks, to learn the thread's activity id (families/requests.c): that
 * one runs nested, without the thread's lock, and its handler calls nothing
 * back into the runtime on that path.  The program's own events (outside
 * any callback of clrtrace's) are callbacks like the others, and may write
 * records (families/startup.c: startup.ready). */
static inline bool nests(int slot)
{
	return slot == SLOT_EventPipeEventDelivered;
}

/* Initialize, Shutdown, InitializeForAttach, LoadAsNotificationOnly and
 * ProfilerDetachSucceeded run even when tracing is off; the rest only while
 * active. */
static inline bool always_called(int slot)
{
	return slot == SLOT_Initialize || slot == SLOT_Shutdown || slot == SLOT_InitializeForAttach ||
	       slot == SLOT_LoadAsNotificationOnly || slot == SLOT_ProfilerDetachSucceeded;
}

#define CB(slot, name, params, args) \
	static HRESULT cb_##name CB_SELF params \
	{ \
		struct ct_thread *t_; \
		HRESULT ret_; \
		PROTECT_ERRNO; \
		if (!on_##name) \
			return S_OK; \
		if (!always_called(slot) && !atomic_load_explicit(&ct.active, memory_order_relaxed)) \
			return S_OK; \
		t_ = ct_thread_get(); \
		if (t_ && t_->in_callback && nests(slot)) \
			return on_##name ON_ARGS args; \
		if (!t_ || t_->in_callback) \
			return S_OK; \
		t_->in_callback++; \
		t_->ts_callback = t_->mono_callback = 0; \
		t_->in_dispatch = in_dispatch(slot); \
		if (stash_only(slot)) { \
			ret_ = on_##name ON_ARGS args; \
		} else { \
			ct_thread_lock(t_); \
			ret_ = on_##name ON_ARGS args; \
			ct_thread_unlock(t_); \
		} \
		t_->in_dispatch = false; \
		t_->in_callback--; \
		return ret_; \
	}
#include "profiler/abi/callbacks.def"
#undef CB

static void *const callback_vtbl[98] = {
	[0] = (void *)ct_callback_query_interface,
	[1] = (void *)ct_callback_addref,
	[2] = (void *)ct_callback_release,
#define CB(slot, name, params, args) [slot] = (void *)cb_##name,
#include "profiler/abi/callbacks.def"
#undef CB
};

com_object ct_callback_object = { callback_vtbl };
