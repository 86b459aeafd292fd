/* SPDX-License-Identifier: MIT */
/*
 * The one flag lock: an atomic_bool taken with an exchange and released
 * with a plain store, for the short sections where a mutex's pair of
 * atomic operations costs too much (a thread's own callbacks, a staging
 * slot the writer visits now and then).  One back-off for all: a holder
 * is most often on another CPU and done within a few yields; one that
 * was preempted is waited for in 50 µs sleeps, not by spinning.
 */
#pragma once

#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "common/util.h"

#define SPIN_YIELDS 100     /* tries with a sched_yield() between them */
#define SPIN_SLEEP_NS 50000 /* then a sleep this long between tries */

/* Take L if it is free. */
static inline bool spin_trylock(atomic_bool *l)
{
	return !atomic_load_explicit(l, memory_order_relaxed) &&
	       !atomic_exchange_explicit(l, true, memory_order_acquire);
}

/* Wait after the Ith failed try. */
static inline void spin_backoff(unsigned i)
{
	if (i < SPIN_YIELDS)
		sched_yield();
	else
		nanosleep(&(struct timespec){ 0, SPIN_SLEEP_NS }, NULL);
}

static inline void spin_lock(atomic_bool *l)
{
	for (unsigned i = 0; !spin_trylock(l); i++)
		spin_backoff(i);
}

/* Take L within about MS milliseconds (a dying process must not hang on
 * a holder that will never run again); false if not. */
static inline bool spin_lock_within(atomic_bool *l, unsigned ms)
{
	uint64_t deadline = mono_ns() + (uint64_t)ms * 1000000u;

	for (unsigned i = 0; !spin_trylock(l); i++) {
		if (mono_ns() >= deadline)
			return false;
		spin_backoff(i);
	}
	return true;
}

static inline void spin_unlock(atomic_bool *l)
{
	atomic_store_explicit(l, false, memory_order_release);
}
