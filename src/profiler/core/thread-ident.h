/* SPDX-License-Identifier: MIT */
/*
 * Who a thread is to .NET developers, for the records' common prefix
 * (thread-ident.c): Environment.CurrentManagedThreadId and Thread.Name.
 */
#pragma once

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "profiler/abi/corprof.h"
#include "profiler/core/thread.h"

/* A thread whose managed thread id is not known yet looks again at most
 * this often (its Thread object may not exist yet). */
#define CT_IDENT_RETRY_NS 1000000u

/* Bumped at each thread name change: a thread whose names_seen differs
 * looks its own name up again. */
extern atomic_uint ct_names_gen;

/* Bring T's managed ThreadID, managed thread id and name up to date; T
 * must be the calling thread's.  COOP: the thread is in cooperative mode
 * (no garbage collection can move objects under the read), so the id is
 * looked up whatever the time. */
void ct_thread_ident_update(struct ct_thread *t, uint64_t now, bool coop);

/* ct_thread_ident_update when something may have changed: free in the
 * common case (all known, no thread renamed since). */
static inline void ct_thread_ident(struct ct_thread *t, uint64_t now)
{
	if (t->managed_id && t->ident_of == t->managed_id && (t->managed_tid || now < t->ident_retry_ns) &&
	    t->names_seen == atomic_load_explicit(&ct_names_gen, memory_order_relaxed))
		return;
	ct_thread_ident_update(t, now, false);
}

/* Thread ID is now named NAME (UTF-8; NULL: no name); any thread may say
 * so for any thread. */
void ct_thread_name_set(ThreadID id, const char *name);
