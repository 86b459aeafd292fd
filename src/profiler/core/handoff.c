/* SPDX-License-Identifier: MIT */
/*
 * Spans another thread may end.  The runtime loads an assembly level by
 * level, each level done by whichever thread waiting for it takes the
 * file's load lock: AssemblyLoadStarted (and ModuleLoadStarted) can come on
 * the thread that began the load, and the Finished callbacks on another one
 * that waited for the same load.  Such spans are kept here too, by (event,
 * key), with the thread that began them: an end on another thread closes
 * the span there and says so (begin_tid), and the owner pops it from its
 * stack before its next record.  One lock, held by emit.c around a whole
 * record of a load or of a thread with spans here, orders that record
 * against the ends other threads write for it.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#include "profiler/core/handoff.h"
#include "profiler/core/spans.h"
#include "profiler/core/thread.h"

struct entry {
	uint64_t key, span, mono;
	enum ct_event ev;
	int tid;
	struct ct_thread *owner; /* NULL: its thread exited */
	bool ended;              /* by another thread; the owner pops it */
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct entry *table;
static size_t n_table, cap_table;

/* Hold the lock for one record of T. */
void ct_handoff_lock(struct ct_thread *t)
{
	pthread_mutex_lock(&lock);
	t->in_handoff = true;
}

/* Release it after T's record. */
void ct_handoff_unlock(struct ct_thread *t)
{
	t->in_handoff = false;
	pthread_mutex_unlock(&lock);
}

/* Remove entry I (the order of the table does not matter). */
static void remove_at(size_t i)
{
	table[i] = table[--n_table];
}

/* Put T's open span S in the table; 0 or -ENOMEM. */
int ct_handoff_add(struct ct_thread *t, struct ct_span *s)
{
	if (n_table == cap_table) {
		size_t cap = cap_table ? cap_table * 2 : 16;
		struct entry *n = realloc(table, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		table = n;
		cap_table = cap;
	}
	table[n_table++] = (struct entry){ .key = s->key, .span = s->id, .mono = s->mono, .ev = s->event,
					   .tid = t->tid, .owner = t };
	s->shared = true;
	t->n_shared++;
	return 0;
}

/* T popped its span S: out of the table. */
void ct_handoff_forget(struct ct_thread *t, const struct ct_span *s)
{
	for (size_t i = 0; i < n_table; i++)
		if (table[i].owner == t && table[i].span == s->id) {
			remove_at(i);
			return;
		}
}

/* An end on T of a span another thread began: close it there. */
bool ct_handoff_take(struct ct_thread *t, enum ct_event ev, uint64_t key, struct ct_handoff_end *out)
{
	for (size_t i = 0; i < n_table; i++) {
		struct entry *e = &table[i];

		if (e->ev != ev || e->key != key || e->ended || e->owner == t)
			continue;
		*out = (struct ct_handoff_end){ .span = e->span, .mono = e->mono, .tid = e->tid };
		if (!e->owner) {
			remove_at(i);
		} else {
			e->ended = true;
			atomic_fetch_add(&e->owner->handoff_ended, 1);
		}
		return true;
	}
	return false;
}

/* Pop from T's stack the spans other threads ended. */
void ct_handoff_settle(struct ct_thread *t)
{
	size_t i;

	if (!atomic_exchange(&t->handoff_ended, 0))
		return;
	/* a cut may forget other entries: look again from the start */
	for (i = 0; i < n_table; i++) {
		ssize_t at;

		if (table[i].owner != t || !table[i].ended)
			continue;
		at = ct_span_find_id(t, table[i].span);
		remove_at(i);
		if (at >= 0)
			ct_span_cut(t, (size_t)at);
		i = (size_t)-1;
	}
}

/* T's thread exits: its spans stay open for others to end. */
void ct_handoff_orphan(struct ct_thread *t)
{
	pthread_mutex_lock(&lock);
	for (size_t i = 0; i < n_table; i++)
		if (table[i].owner == t) {
			if (table[i].ended) {
				remove_at(i--);
				continue;
			}
			table[i].owner = NULL;
		}
	pthread_mutex_unlock(&lock);
}

/* The detach: forget every span in the table. */
void ct_handoff_reset(void)
{
	pthread_mutex_lock(&lock);
	n_table = 0;
	pthread_mutex_unlock(&lock);
}
