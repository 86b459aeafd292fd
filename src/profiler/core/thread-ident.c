/* SPDX-License-Identifier: MIT */
/*
 * The managed thread id and the name of each thread.
 *
 * The runtime has no profiling call for Thread.ManagedThreadId, so it is
 * read the way Thread.CurrentThread finds it: the [ThreadStatic] field
 * System.Threading.Thread.t_currentThread, whose address on a thread
 * ICorProfilerInfo2::GetThreadStaticAddress gives, holds the thread's
 * Thread object, and its _managedThreadId sits where GetClassLayout says.
 * The field is set once code on the thread asked for Thread.CurrentThread
 * (Environment.CurrentManagedThreadId, ExecutionContext.Capture: tasks,
 * await, the thread pool); until then the id is unknown and looked for again
 * later.  Outside cooperative mode a garbage collection may move
 * the statics or the object between the reads: the reads go through the
 * kernel (ct_read_mem: a stale address is an error, not a crash) and the
 * result counts only if the addresses did not change meanwhile.  Finding
 * Thread and its field takes calls that may trigger a garbage collection
 * (EnumModules, GetClassFromToken): never inside exception dispatch, where
 * only the reads are done.
 *
 * Names come from ThreadNameChanged, which may run on another thread than
 * the renamed one: they are kept by ThreadID under a lock, and each thread
 * takes its own when the generation moves.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "common/u64map.h"
#include "profiler/abi/info.h"
#include "profiler/core/fields.h"
#include "profiler/core/module-md.h"
#include "profiler/core/names.h"
#include "profiler/core/say.h"
#include "profiler/core/state.h"
#include "profiler/core/thread-ident.h"

#define LAYOUT_RETRY_NS 10000000u /* CoreLib or Thread not loaded yet */

atomic_uint ct_names_gen;

static pthread_mutex_t names_lock = PTHREAD_MUTEX_INITIALIZER;
static struct u64map names; /* ThreadID → malloc'd UTF-8 name */

/* Where the id is: found once. */
static struct {
	pthread_mutex_t lock;
	int state;          /* 0: not yet (retry at retry_ns), 1: found, -1: never */
	uint64_t retry_ns;
	ClassID cls;        /* System.Threading.Thread */
	mdFieldDef current; /* its t_currentThread */
	ULONG id_off;       /* _managedThreadId's offset in the object */
	bool unsafe_reads;  /* the kernel refuses ct_read_mem: cooperative mode only */
} L = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* System.Private.CoreLib's ModuleID, or 0 while it is not loaded. */
static ModuleID corelib(void)
{
	com_object *e = NULL;
	ModuleID ids[32], found = 0;
	ULONG got = 0;
	HRESULT hr;

	if (FAILED(info_EnumModules(ct.info, &e)) || !e)
		return 0;
	do {
		hr = modenum_Next(e, ELEMENTSOF(ids), ids, &got);
		for (ULONG i = 0; SUCCEEDED(hr) && !found && i < got && i < ELEMENTSOF(ids); i++)
			if (ct_module_is_corelib(ids[i]))
				found = ids[i];
	} while (!found && hr == S_OK && got == ELEMENTSOF(ids));
	modenum_Release(e);
	return found;
}

/* Find Thread, t_currentThread and _managedThreadId: 1, 0 (not loaded
 * yet: try later) or -1 (this runtime has them not). */
static int layout_find(void)
{
	ModuleID mod = corelib();
	uint32_t type, field;
	mdTypeDef td;
	struct md md;

	if (!mod)
		return 0;
	if (ct_module_md(mod, &md) < 0)
		return -1;
	if (md_find_type(&md, "System.Threading", "Thread", &type) < 0 ||
	    md_find_field(&md, type, "t_currentThread", &field) < 0)
		return -1;
	td = MD_TOKEN(MD_TYPEDEF, type);
	L.current = MD_TOKEN(MD_FIELD, field);
	if (FAILED(info_GetClassFromToken(ct.info, mod, td, &L.cls)) || !L.cls)
		return 0;
	L.id_off = ct_field_offset(&md, td, L.cls, "_managedThreadId");
	return L.id_off ? 1 : -1;
}

/* Is the layout known?  Looked for at most every LAYOUT_RETRY_NS, and not
 * inside exception dispatch (MAY_TRIGGER false): EnumModules and
 * GetClassFromToken may trigger a garbage collection, which would move the
 * objects the runtime and the exception callbacks hold.  They also take
 * the runtime's own locks, which a thread that waited here could hold (a
 * class-load callback): one thread looks at a time, the others go on
 * without waiting. */
static bool layout_ready(uint64_t now, bool may_trigger)
{
	int state = __atomic_load_n(&L.state, __ATOMIC_ACQUIRE);

	if (state || !may_trigger)
		return state > 0;
	if (pthread_mutex_trylock(&L.lock) != 0)
		return false;
	if (!L.state && now >= L.retry_ns) {
		L.retry_ns = now + LAYOUT_RETRY_NS;
		state = layout_find();
		if (state < 0)
			ct_say_once("thread-layout", "System.Threading.Thread's layout is unknown; no managed thread ids");
		__atomic_store_n(&L.state, state, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&L.lock);
	return state > 0;
}

/* The address of thread ID's t_currentThread, or 0. */
static uintptr_t current_slot(ThreadID id)
{
	void *slot = NULL;

	if (FAILED(info_GetThreadStaticAddress(ct.info, L.cls, L.current, id, &slot)))
		return 0;
	return (uintptr_t)slot;
}

/* Thread ID's managed thread id read outside cooperative mode, or 0: the
 * statics and the object stayed where they were during the reads. */
static int32_t id_read_moving(ThreadID id)
{
	uintptr_t slot = current_slot(id), obj = 0, again = 0;
	int32_t v = 0;
	int r;

	if (!slot)
		return 0;
	r = ct_read_mem(slot, &obj, sizeof(obj));
	if (r == -ENOSYS || r == -EPERM) {
		__atomic_store_n(&L.unsafe_reads, true, __ATOMIC_RELAXED);
		return 0;
	}
	if (r < 0 || !obj || ct_read_mem(obj + L.id_off, &v, sizeof(v)) < 0)
		return 0;
	if (current_slot(id) != slot || ct_read_mem(slot, &again, sizeof(again)) < 0 || again != obj)
		return 0;
	return v;
}

/* Thread ID's managed thread id, or 0 while its Thread.CurrentThread is
 * not set. */
static int32_t managed_tid_read(ThreadID id, uint64_t now, bool coop, bool may_trigger)
{
	uintptr_t slot, obj;
	int32_t v;

	if (!layout_ready(now, may_trigger))
		return 0;
	if (!coop)
		return __atomic_load_n(&L.unsafe_reads, __ATOMIC_RELAXED) ? 0 : id_read_moving(id);
	/* nothing moves: plain reads */
	if (!(slot = current_slot(id)))
		return 0;
	memcpy(&obj, (const void *)slot, sizeof(obj));
	if (!obj)
		return 0;
	memcpy(&v, (const char *)obj + L.id_off, sizeof(v));
	return v;
}

/* Take T's name from the table if it changed. */
static void name_refresh(struct ct_thread *t)
{
	const char *n;

	pthread_mutex_lock(&names_lock);
	n = u64map_get(&names, t->managed_id);
	if (!(n && t->name && strcmp(n, t->name) == 0) && !(!n && !t->name)) {
		free(t->name);
		t->name = n ? strdup(n) : NULL;
		t->ids_len = 0;
	}
	pthread_mutex_unlock(&names_lock);
}

/* Bring T up to date (see thread-ident.h). */
void ct_thread_ident_update(struct ct_thread *t, uint64_t now, bool coop)
{
	unsigned gen = atomic_load_explicit(&ct_names_gen, memory_order_acquire);

	if (!ct_thread_is_mine(t))
		return;
	if (!t->managed_id && ct.info && FAILED(info_GetCurrentThreadID(ct.info, &t->managed_id)))
		t->managed_id = 0;
	if (!t->managed_id)
		return;
	if (t->ident_of != t->managed_id) { /* a new managed thread on this OS thread */
		t->ident_of = t->managed_id;
		t->managed_tid = 0;
		t->ident_retry_ns = 0;
		t->names_seen = gen - 1;
		t->ids_len = 0;
	}
	if (!t->managed_tid && (coop || now >= t->ident_retry_ns)) {
		int32_t v = ct.info ? managed_tid_read(t->managed_id, now, coop, !coop && !t->in_dispatch) : 0;

		t->ident_retry_ns = now + CT_IDENT_RETRY_NS;
		if (v > 0) {
			t->managed_tid = v;
			t->ids_len = 0;
		}
	}
	if (t->names_seen != gen) {
		name_refresh(t);
		t->names_seen = gen;
	}
}

/* Keep ID's name (see thread-ident.h). */
void ct_thread_name_set(ThreadID id, const char *name)
{
	char *copy = name && *name ? strdup(name) : NULL, *old = NULL;
	void **slot;
	bool changed = false;

	if (name && *name && !copy)
		return;
	pthread_mutex_lock(&names_lock);
	if (!copy) {
		changed = (old = u64map_del(&names, id)) != NULL;
	} else if ((slot = u64map_slot(&names, id)) && !(*slot && strcmp(*slot, copy) == 0)) {
		old = *slot;
		*slot = copy;
		copy = NULL;
		changed = true;
	}
	if (changed)
		atomic_fetch_add_explicit(&ct_names_gen, 1, memory_order_release);
	pthread_mutex_unlock(&names_lock);
	free(old);
	free(copy);
}
