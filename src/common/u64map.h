/* SPDX-License-Identifier: MIT */
/* A small open-addressing map from uint64 keys to pointers, shared by the
 * CLI (threads by pid<<32|tid, spans by id) and the profiler's name cache
 * (runtime ids).  Not thread-safe: a caller shared between threads locks. */
#pragma once

#include <stddef.h>
#include <stdint.h>

/* UINT64_MAX marks an empty slot and is never a key. */
struct u64map {
	uint64_t *keys;
	void **vals;
	size_t cap, n;
};
/* The value slot for KEY, created (NULL) if new; NULL on ENOMEM or for
 * the key UINT64_MAX. */
void **u64map_slot(struct u64map *m, uint64_t key);
/* The value for KEY, or NULL. */
void *u64map_get(const struct u64map *m, uint64_t key);
/* Remove KEY; returns its value (or NULL). */
void *u64map_del(struct u64map *m, uint64_t key);
/* Free the map, calling free_fn (may be NULL) on every value. */
void u64map_done(struct u64map *m, void (*free_fn)(void *));
#define u64map_foreach(m, i) for (size_t i = 0; i < (m)->cap; i++) if ((m)->keys[i] != UINT64_MAX)
