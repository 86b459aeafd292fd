/* SPDX-License-Identifier: MIT */
/* The one TLS struct per OS thread and the registry of threads that hold
 * a family's state (thread.c). */
#pragma once

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "common/spin.h"
#include "common/util.h"
#include "common/vocabulary.h"
#include "profiler/abi/corprof.h"
#include "profiler/core/family.h"
#include "profiler/core/jsonw.h"
#include "profiler/sinks/sinks.h"

#define CT_JIT_OPEN_MAX 4 /* nested JIT compiles a thread follows (startup.jit) */
#define CT_NAME_CACHE 64 /* entries of a thread's name cache (a power of two) */

/* One open span on a thread's stack. */
struct ct_span {
	uint64_t id;
	uint64_t key; /* what pairs begin and end (module id, function id…) */
	uint64_t mono; /* when it began (CLOCK_MONOTONIC): durations only */
	enum ct_event event;
	bool shared; /* in the handoff table: another thread may end it */
};

/* Everything the tracer keeps per OS thread. */
struct ct_thread {
	int tid;              /* gettid() */
	int in_callback;      /* re-entrancy guard */
	bool in_dispatch;     /* inside an exception callback: no GC-triggering call */
	ThreadID managed_id;  /* 0 until known */
	struct ct_span *spans;
	size_t n_spans, cap_spans;
	uint64_t span_next, span_end; /* the block of span ids it has taken */
	/* its spans in the handoff table (handoff.c), how many of them other
	 * threads ended since it last looked, and whether this thread holds
	 * the table's lock for the record it writes */
	unsigned n_shared;
	atomic_uint handoff_ended;
	bool in_handoff;
	/* each family's state of this thread (family.h: its slot), NULL
	 * until the family makes it; whether there is any */
	void *family[CT_FAMILY_MAX];
	bool has_family_state;
	atomic_uint gen;      /* the trace generation its state belongs to */
	uint64_t ts_replay;   /* nonzero: records take this time (a replay) */
	uint64_t ts_callback; /* the callback's time, read at its first record (0: not yet) */
	uint64_t mono_replay, mono_callback; /* the same on the monotonic clock */
	struct jw line;       /* the record being written */
	struct ct_stage_ref stage; /* where its records are staged (sinks) */
	/* names this thread looked up last (names.c): most lookups are
	 * answered here, without the names lock other threads take too */
	struct ct_name_hit {
		uint64_t id;
		const char *name;
		int kind;
	} names[CT_NAME_CACHE];
	/* ,"pid":P,"tid":T,"thread":… as last written (emit.c, malloc'd),
	 * for the pid and managed id it was made with: the same in every
	 * record; ids_len 0 makes it again */
	char *ids;
	size_t ids_len;
	/* the digits of ts / 10^8 last written (they change every 100 ms):
	 * a record's ts is written as them and eight more */
	struct ct_ts_cache ts_cache;
	int ids_pid;
	ThreadID ids_managed;
	/* Who the thread is to .NET (thread-ident.c), for the records:
	 * Thread.ManagedThreadId (0 until read) and Thread.Name (NULL: none),
	 * for the ThreadID ident_of; the next try at an unknown id; the
	 * ct_names_gen its name was looked up at. */
	ThreadID ident_of;
	int32_t managed_tid;
	char *name;
	uint64_t ident_retry_ns;
	unsigned names_seen;
	/* Held by this thread's callbacks (not the two that only stash), and
	 * with trylock by the exit path that ends this thread's stories from
	 * another thread (a family's exit hook): ct_thread_lock(). */
	atomic_bool lock;
	struct ct_thread *reg_next, *reg_prev; /* the registry of threads with family state */
	bool registered;
	/* set while a family's exit hook feeds this thread's state from
	 * another thread (records take the time of now) */
	bool fed_by_other;
	/* the JIT compiles open on this thread (category startup), innermost
	 * last: the function and when its compile began (monotonic) */
	struct ct_jit_open {
		uint64_t fn, mono;
	} jit_open[CT_JIT_OPEN_MAX];
	unsigned n_jit_open;
	/* the last MethodLoad event of the runtime on this thread: its
	 * MethodID and tier (families/startup-tier.c) */
	uint64_t tier_fn;
	uint8_t tier;
	/* the EventPipe activity id current on the thread, as the request
	 * probe read it last (families/requests.c) */
	GUID activity;
	bool activity_read;
};

/* Take T's lock (struct ct_thread.lock).  A flag, not a mutex
 * (common/spin.h): releasing it is a plain store, and a mutex's pair of
 * atomic operations was 18 % of the time spent following an exception.
 * Only the exit path and a detach hold it from another thread, briefly. */
static inline void ct_thread_lock(struct ct_thread *t)
{
	spin_lock(&t->lock);
}

/* Take T's lock if it is free. */
static inline bool ct_thread_trylock(struct ct_thread *t)
{
	return spin_trylock(&t->lock);
}

static inline void ct_thread_unlock(struct ct_thread *t)
{
	spin_unlock(&t->lock);
}

/* This thread's state; NULL only when out of memory. */
struct ct_thread *ct_thread_get(void);
/* Is T the calling thread's own state (not one the exit path feeds)? */
bool ct_thread_is_mine(const struct ct_thread *t);
/* The state of the family in SLOT (family.h) on T, or NULL. */
static inline void *ct_family_state(const struct ct_thread *t, unsigned slot)
{
	return t->family[slot];
}
/* Give T (its own thread, holding T->lock) the state S of the family in
 * SLOT, freed by the family's thread_free hook; T joins the registry of
 * threads with family state (unlisted when its thread exits). */
void ct_family_state_set(struct ct_thread *t, unsigned slot, void *s);
/* Call FN on every registered thread of the current trace, the registry
 * locked: a thread cannot free its state meanwhile.  FN must not block on
 * a thread's lock. */
void ct_threads_each(void (*fn)(struct ct_thread *t, void *ud), void *ud);
/* Forget what T (locked by the caller) kept of an ended trace: its
 * families' state, its open spans (see family.h ct_families_trace_end). */
void ct_thread_forget(struct ct_thread *t);
/* Forget the state of an ended trace on every registered thread whose lock
 * is free (the rest forget theirs when next seen). */
void ct_threads_forget_stale(void);

/* The time of the record being built on T: a replayed input's; inside a
 * callback, the callback's, read once (the records of one notification
 * share its time, and a read of the clock costs 25 ns on this VM); else
 * now. */
static inline uint64_t ct_now(struct ct_thread *t)
{
	if (!t)
		return now_ns();
	if (t->ts_replay)
		return t->ts_replay;
	if (!t->in_callback || t->fed_by_other) /* the exit path, on another thread */
		return now_ns();
	if (!t->ts_callback)
		t->ts_callback = now_ns();
	return t->ts_callback;
}

/* The same instant on the monotonic clock, for durations: a step of the
 * wall clock (ts) never makes one absurd. */
static inline uint64_t ct_mono(struct ct_thread *t)
{
	if (!t)
		return mono_ns();
	if (t->mono_replay)
		return t->mono_replay;
	if (!t->in_callback || t->fed_by_other)
		return mono_ns();
	if (!t->mono_callback)
		t->mono_callback = mono_ns();
	return t->mono_callback;
}

/* The managed ThreadID's OS thread id, or 0. */
int ct_os_tid(ThreadID id);
