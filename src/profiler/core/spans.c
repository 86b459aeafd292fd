/* SPDX-License-Identifier: MIT */
/* Each thread's stack of open spans (spans.h). */
#include <stdatomic.h>
#include <stdlib.h>

#include "profiler/core/handoff.h"
#include "profiler/core/spans.h"
#include "profiler/core/thread.h"

#define MAX_SPAN_DEPTH 4096

#define SPAN_BLOCK 1024 /* ids a thread takes at a time */

static atomic_uint_fast64_t next_span_id = 1;

/* A new span id, unique in the process: T takes them in blocks, so that
 * threads do not share a counter's cache line record after record. */
uint64_t ct_span_next_id(struct ct_thread *t)
{
	if (t->span_next == t->span_end) {
		t->span_next = atomic_fetch_add(&next_span_id, SPAN_BLOCK);
		t->span_end = t->span_next + SPAN_BLOCK;
	}
	return t->span_next++;
}

/* Push a span; 0 or -ENOMEM/-E2BIG. */
int ct_span_push(struct ct_thread *t, const struct ct_span *s)
{
	if (t->n_spans >= MAX_SPAN_DEPTH)
		return -E2BIG;
	if (t->n_spans == t->cap_spans) {
		size_t cap = t->cap_spans ? t->cap_spans * 2 : 32;
		struct ct_span *n = realloc(t->spans, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		t->spans = n;
		t->cap_spans = cap;
	}
	t->spans[t->n_spans++] = *s;
	return 0;
}

/* Find the innermost open span (ev, key); -1 if none. */
ssize_t ct_span_find(const struct ct_thread *t, enum ct_event ev, uint64_t key)
{
	for (size_t i = t->n_spans; i > 0; i--)
		if (t->spans[i - 1].event == ev && t->spans[i - 1].key == key)
			return (ssize_t)(i - 1);
	return -1;
}

/* Find the open span with id ID; -1 if none. */
ssize_t ct_span_find_id(const struct ct_thread *t, uint64_t id)
{
	for (size_t i = t->n_spans; i > 0; i--)
		if (t->spans[i - 1].id == id)
			return (ssize_t)(i - 1);
	return -1;
}

/* Pop span I and those above it (they never ended: they stay open in the
 * trace); those in the handoff table leave it. */
void ct_span_cut(struct ct_thread *t, size_t i)
{
	while (t->n_spans > i) {
		struct ct_span *s = &t->spans[--t->n_spans];

		if (s->shared) {
			ct_handoff_forget(t, s);
			t->n_shared--;
		}
	}
}
