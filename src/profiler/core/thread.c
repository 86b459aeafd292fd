/* SPDX-License-Identifier: MIT */
/* The one TLS struct per OS thread, freed by a pthread key destructor;
 * the registry of threads that hold a family's state. */
#include <pthread.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "profiler/abi/info.h"
#include "profiler/core/family.h"
#include "profiler/core/handoff.h"
#include "profiler/core/state.h"
#include "profiler/core/thread.h"

static pthread_key_t thread_key;
static pthread_once_t thread_once = PTHREAD_ONCE_INIT;
static __thread struct ct_thread *thread_self;

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static struct ct_thread *registry;

/* Thread exit: free the state (records already went to the sinks).
 * Unlisted first, under the registry lock: the exit path walks the
 * registry holding it, so it never sees freed state. */
static void thread_free(void *p)
{
	struct ct_thread *t = p;

	if (t->registered) {
		pthread_mutex_lock(&registry_lock);
		if (t->reg_prev)
			t->reg_prev->reg_next = t->reg_next;
		else
			registry = t->reg_next;
		if (t->reg_next)
			t->reg_next->reg_prev = t->reg_prev;
		pthread_mutex_unlock(&registry_lock);
	}
	ct_families_thread_free(t);
	if (t->n_shared)
		ct_handoff_orphan(t);
	ct_sinks_thread_exit(&t->stage);
	free(t->spans);
	jw_free(&t->line);
	free(t->ids);
	free(t->name);
	free(t);
	thread_self = NULL;
}

static void thread_key_make(void)
{
	(void)pthread_key_create(&thread_key, thread_free);
}

/* Forget T's state of an ended trace (see thread.h). */
void ct_thread_forget(struct ct_thread *t)
{
	ct_families_thread_free(t);
	/* the handoff table forgot its spans (ct_handoff_reset) */
	t->n_spans = 0;
	t->n_shared = 0;
	atomic_store(&t->handoff_ended, 0);
	atomic_store_explicit(&t->gen, ct_trace_generation(), memory_order_relaxed);
}

/* T of an ended trace, its lock free: forget it. */
static void forget_stale(struct ct_thread *t)
{
	if (atomic_load_explicit(&t->gen, memory_order_relaxed) == ct_trace_generation() || !ct_thread_trylock(t))
		return;
	ct_thread_forget(t);
	ct_thread_unlock(t);
}

/* This thread's state, created on first use; what it kept of an ended
 * trace forgotten when first seen in the next (not inside a callback: its
 * entry did it). */
struct ct_thread *ct_thread_get(void)
{
	struct ct_thread *t = thread_self;

	if (t) {
		if (__builtin_expect(atomic_load_explicit(&t->gen, memory_order_relaxed) != ct_trace_generation(), 0) &&
		    !t->in_callback) {
			ct_thread_lock(t);
			ct_thread_forget(t);
			ct_thread_unlock(t);
		}
		return t;
	}
	pthread_once(&thread_once, thread_key_make);
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	atomic_init(&t->gen, ct_trace_generation());
	t->tid = (int)syscall(SYS_gettid);
	thread_self = t;
	(void)pthread_setspecific(thread_key, t);
	return t;
}

/* T is this thread's (see thread.h). */
bool ct_thread_is_mine(const struct ct_thread *t)
{
	return t && t == thread_self;
}

/* Give T a family's state (see thread.h). */
void ct_family_state_set(struct ct_thread *t, unsigned slot, void *s)
{
	t->family[slot] = s;
	if (s)
		t->has_family_state = true;
	if (t->registered)
		return;
	pthread_mutex_lock(&registry_lock);
	t->reg_prev = NULL;
	t->reg_next = registry;
	if (registry)
		registry->reg_prev = t;
	registry = t;
	t->registered = true;
	pthread_mutex_unlock(&registry_lock);
}

/* Walk the registry (see thread.h). */
void ct_threads_each(void (*fn)(struct ct_thread *t, void *ud), void *ud)
{
	unsigned gen = ct_trace_generation();

	pthread_mutex_lock(&registry_lock);
	for (struct ct_thread *t = registry; t; t = t->reg_next)
		if (atomic_load_explicit(&t->gen, memory_order_relaxed) == gen)
			fn(t, ud);
	pthread_mutex_unlock(&registry_lock);
}

/* Forget the ended trace's state where it can be done now (see thread.h). */
void ct_threads_forget_stale(void)
{
	pthread_mutex_lock(&registry_lock);
	for (struct ct_thread *t = registry; t; t = t->reg_next)
		forget_stale(t);
	pthread_mutex_unlock(&registry_lock);
}


/* The managed ThreadID's OS thread id, or 0. */
int ct_os_tid(ThreadID id)
{
	DWORD os = 0;

	if (!id || FAILED(info_GetThreadInfo(ct.info, id, &os)))
		return 0;
	return (int)os;
}
