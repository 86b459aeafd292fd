/* SPDX-License-Identifier: MIT */
/* A small JSON writer for the record hot path: appends to a growable
 * buffer, no allocation per value (jansson's dump is ten times slower). */
#pragma once

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct jw {
	char *p;
	size_t len, cap;
	bool oom; /* set once an allocation failed; the record is dropped */
};

void jw_reset(struct jw *w);
void jw_free(struct jw *w);
/* Grow for n more bytes; false when out of memory (slow path of jw_raw). */
bool jw_grow(struct jw *w, size_t n);

/* Append n raw bytes. */
static inline void jw_raw(struct jw *w, const char *s, size_t n)
{
	if (w->len + n > w->cap && !jw_grow(w, n))
		return;
	memcpy(w->p + w->len, s, n);
	w->len += n;
}

void jw_str(struct jw *w, const char *s);       /* "escaped" */
void jw_u64(struct jw *w, uint64_t v);
void jw_i64(struct jw *w, int64_t v);
void jw_hex(struct jw *w, uint64_t v);          /* "0x…" */
/* ,"key": — keys are trusted ASCII identifiers */
void jw_key(struct jw *w, const char *key);
/* A jansson value, compact, keys in insertion order. */
void jw_value(struct jw *w, const json_t *v);
/* The members of an object, each as ,"k":v (no braces). */
void jw_members(struct jw *w, const json_t *obj);
