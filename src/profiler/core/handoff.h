/* SPDX-License-Identifier: MIT */
/* Spans another thread may end (handoff.c): a load the runtime finishes on
 * a thread that waited for it, not on the one that began it. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "common/vocabulary.h"

struct ct_thread;
struct ct_span;

/* A span of another thread that an end on this one closes. */
struct ct_handoff_end {
	uint64_t span, mono; /* its begin on the monotonic clock */
	int tid; /* the thread that began it */
};

/* Hold the table's lock for one record of T (emit.c: a record of a load, or
 * of a thread with spans in the table).  Nested records of T (a trace.error
 * said while placing) find it held. */
void ct_handoff_lock(struct ct_thread *t);
void ct_handoff_unlock(struct ct_thread *t);

/* The rest with the lock held. */
/* Put T's open span S in the table; 0 or -ENOMEM (S then stays T's alone). */
int ct_handoff_add(struct ct_thread *t, struct ct_span *s);
/* T popped its span S (its end, or an end below it): out of the table. */
void ct_handoff_forget(struct ct_thread *t, const struct ct_span *s);
/* An end on T of (EV, KEY) that T never began: the span another thread
 * began, now closed there (its owner pops it before its next record).
 * False when no thread has it open. */
bool ct_handoff_take(struct ct_thread *t, enum ct_event ev, uint64_t key, struct ct_handoff_end *out);
/* Pop from T's stack the spans other threads ended. */
void ct_handoff_settle(struct ct_thread *t);

/* T's thread exits: its spans in the table stay open for another thread to
 * end, with no stack to pop them from. */
void ct_handoff_orphan(struct ct_thread *t);
/* The detach: forget every span in the table. */
void ct_handoff_reset(void);
