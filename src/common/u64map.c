/* SPDX-License-Identifier: MIT */
/* The uint64 -> pointer map (linear probing, backward-shift deletion). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/u64map.h"

/* Fibonacci hashing: the multiply carries the bits of aligned pointers
 * (runtime ids) and of pid<<32|tid into the bits kept.  The CLI walks maps
 * in slot order, so this decides its output order: keep it. */
static inline size_t u64map_hash(uint64_t key)
{
	return (size_t)((key * 0x9e3779b97f4a7c15ull) >> 17);
}

/* Slot index of KEY (or of the empty slot where it would go). */
static size_t u64map_find(const struct u64map *m, uint64_t key)
{
	size_t i = u64map_hash(key) & (m->cap - 1);

	while (m->keys[i] != UINT64_MAX && m->keys[i] != key)
		i = (i + 1) & (m->cap - 1);
	return i;
}

/* Double the table; 0 or -ENOMEM. */
static int u64map_grow(struct u64map *m)
{
	struct u64map n = { .cap = m->cap ? m->cap * 2 : 64 };

	n.keys = malloc(n.cap * sizeof(*n.keys));
	n.vals = calloc(n.cap, sizeof(*n.vals));
	if (!n.keys || !n.vals) {
		free(n.keys);
		free(n.vals);
		return -ENOMEM;
	}
	memset(n.keys, 0xff, n.cap * sizeof(*n.keys));
	for (size_t i = 0; i < m->cap; i++)
		if (m->keys[i] != UINT64_MAX) {
			size_t j = u64map_find(&n, m->keys[i]);

			n.keys[j] = m->keys[i];
			n.vals[j] = m->vals[i];
			n.n++;
		}
	free(m->keys);
	free(m->vals);
	*m = n;
	return 0;
}

/* The value slot for KEY, created if new. */
void **u64map_slot(struct u64map *m, uint64_t key)
{
	size_t i;

	if (key == UINT64_MAX || ((m->n + 1) * 2 > m->cap && u64map_grow(m) < 0))
		return NULL;
	i = u64map_find(m, key);
	if (m->keys[i] == UINT64_MAX) {
		m->keys[i] = key;
		m->vals[i] = NULL;
		m->n++;
	}
	return &m->vals[i];
}

/* The value for KEY, or NULL. */
void *u64map_get(const struct u64map *m, uint64_t key)
{
	size_t i;

	if (!m->cap || key == UINT64_MAX)
		return NULL;
	i = u64map_find(m, key);
	return m->keys[i] == key ? m->vals[i] : NULL;
}

/* Remove KEY (backward-shift deletion); returns its value. */
void *u64map_del(struct u64map *m, uint64_t key)
{
	size_t i, j;
	void *v;

	if (!m->cap || key == UINT64_MAX)
		return NULL;
	i = u64map_find(m, key);
	if (m->keys[i] != key)
		return NULL;
	v = m->vals[i];
	m->keys[i] = UINT64_MAX;
	m->n--;
	for (j = (i + 1) & (m->cap - 1); m->keys[j] != UINT64_MAX; j = (j + 1) & (m->cap - 1)) {
		uint64_t k = m->keys[j];
		void *val = m->vals[j];
		size_t h;

		m->keys[j] = UINT64_MAX;
		h = u64map_find(m, k);
		m->keys[h] = k;
		m->vals[h] = val;
	}
	return v;
}

/* Free the map and its values. */
void u64map_done(struct u64map *m, void (*free_fn)(void *))
{
	for (size_t i = 0; free_fn && i < m->cap; i++)
		if (m->keys[i] != UINT64_MAX)
			free_fn(m->vals[i]);
	free(m->keys);
	free(m->vals);
	*m = (struct u64map){ 0 };
}
