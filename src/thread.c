/* SPDX-License-Identifier: MIT */
/* The one TLS struct per OS thread, freed by a pthread key destructor. */
#include <pthread.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "exceptions/machine.h"
#include "tracer.h"

static pthread_key_t thread_key;
static pthread_once_t thread_once = PTHREAD_ONCE_INIT;
static __thread struct ct_thread *thread_self;

/* Thread exit: free the state (records already went to the sinks). */
static void thread_free(void *p)
{
	struct ct_thread *t = p;

	exm_free(t->exm);
	free(t->spans);
	jw_free(&t->line);
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
