/* SPDX-License-Identifier: MIT */
/* Each thread's stack of open spans (spans.c), for ct_emit. */
#pragma once

#include <stdint.h>
#include <sys/types.h>

#include "common/vocabulary.h"

struct ct_thread;
struct ct_span;

/* A new span id, unique in the process. */
uint64_t ct_span_next_id(struct ct_thread *t);
/* Push S on T's stack; 0 or -ENOMEM/-E2BIG. */
int ct_span_push(struct ct_thread *t, const struct ct_span *s);
/* The innermost open span (EV, KEY) on T's stack; -1 if none. */
ssize_t ct_span_find(const struct ct_thread *t, enum ct_event ev, uint64_t key);
/* The open span with id ID on T's stack; -1 if none. */
ssize_t ct_span_find_id(const struct ct_thread *t, uint64_t id);
/* Pop T's span I and those above it (the handoff table forgets them). */
void ct_span_cut(struct ct_thread *t, size_t i);
