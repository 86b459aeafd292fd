/* SPDX-License-Identifier: MIT */
/* The interning pool: strings laid out in 1 MiB chunks, each after its
 * length, found through an open-addressing table of pointers (linear
 * probing; nothing is ever removed). */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli/strpool.h"

#define CHUNK_SIZE (1u << 20)

struct chunk {
	struct chunk *next;
	size_t used, size;
	char data[];
};

struct strpool {
	struct chunk *chunks; /* the newest first; a large string gets one of its own */
	const char **slots;   /* NULL: empty */
	size_t cap, n;
};

/* FNV-1a over the N bytes at S. */
static uint64_t hash(const char *s, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
	return h;
}

size_t strpool_len(const char *s)
{
	uint32_t n;

	memcpy(&n, s - sizeof(n), sizeof(n));
	return n;
}

/* The slot of S (or the empty one where it would go); the table has room. */
static size_t find(const struct strpool *p, const char *s, size_t n)
{
	size_t i = hash(s, n) & (p->cap - 1);

	while (p->slots[i] && !(strpool_len(p->slots[i]) == n && memcmp(p->slots[i], s, n) == 0))
		i = (i + 1) & (p->cap - 1);
	return i;
}

struct strpool *strpool_new(void)
{
	return calloc(1, sizeof(struct strpool));
}

const char *strpool_find(const struct strpool *p, const char *s, size_t n)
{
	return p && p->cap ? p->slots[find(p, s, n)] : NULL;
}

/* Double the table; false on ENOMEM. */
static bool grow(struct strpool *p)
{
	struct strpool q = { .cap = p->cap ? p->cap * 2 : 1024 };

	if (!(q.slots = calloc(q.cap, sizeof(*q.slots))))
		return false;
	for (size_t i = 0; i < p->cap; i++)
		if (p->slots[i])
			q.slots[find(&q, p->slots[i], strpool_len(p->slots[i]))] = p->slots[i];
	free(p->slots);
	p->slots = q.slots;
	p->cap = q.cap;
	return true;
}

/* Room for N bytes in a chunk (a chunk of its own past an eighth of one). */
static char *room(struct strpool *p, size_t n)
{
	struct chunk *c = p->chunks;

	if (!c || c->size - c->used < n) {
		size_t size = n > CHUNK_SIZE / 8 ? n : CHUNK_SIZE - sizeof(*c);

		if (!(c = malloc(sizeof(*c) + size)))
			return NULL;
		c->used = 0;
		c->size = size;
		if (n > CHUNK_SIZE / 8 && p->chunks) { /* behind the chunk still filling */
			c->next = p->chunks->next;
			p->chunks->next = c;
		} else {
			c->next = p->chunks;
			p->chunks = c;
		}
	}
	c->used += n;
	return c->data + c->used - n;
}

const char *strpool_intern(struct strpool *p, const char *s, size_t n)
{
	uint32_t len = (uint32_t)n;
	size_t i;
	char *at;

	if (!p || n > UINT32_MAX || ((p->n + 1) * 2 > p->cap && !grow(p)))
		return NULL;
	i = find(p, s, n);
	if (p->slots[i])
		return p->slots[i];
	if (!(at = room(p, sizeof(len) + n + 1)))
		return NULL;
	memcpy(at, &len, sizeof(len));
	memcpy(at + sizeof(len), s, n);
	at[sizeof(len) + n] = '\0';
	p->n++;
	return p->slots[i] = at + sizeof(len);
}

void strpool_done(struct strpool *p)
{
	if (!p)
		return;
	while (p->chunks) {
		struct chunk *c = p->chunks;

		p->chunks = c->next;
		free(c);
	}
	free(p->slots);
	free(p);
}
