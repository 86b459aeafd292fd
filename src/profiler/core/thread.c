/* SPDX-License-Identifier: MIT */
/* The one TLS struct per OS thread, freed by a pthread key destructor;
 * the registry of threads that hold exception state. */
#include <pthread.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "profiler/abi/info.h"
#include "profiler/core/handoff.h"
#include "profiler/core/state.h"
#include "profiler/core/thread.h"

/* The exception machine's destructor: weak, so that the core does not
 * depend on the exceptions family (absent in the unit tests, which never
 * make a machine). */
__attribute__((weak)) void exm_free(struct exm *m);

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
	if (exm_free)
		exm_free(t->exm);
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

/* This thread's state, created on first use. */
struct ct_thread *ct_thread_get(void)
{
	struct ct_thread *t = thread_self;

	if (t)
		return t;
	pthread_once(&thread_once, thread_key_make);
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
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

/* List T in the registry (see thread.h). */
void ct_thread_register(struct ct_thread *t)
{
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
	pthread_mutex_lock(&registry_lock);
	for (struct ct_thread *t = registry; t; t = t->reg_next)
		fn(t, ud);
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
