/* SPDX-License-Identifier: MIT */
/* A small JSON writer for the record hot path: appends to the growable
 * string (common/strbuf.h), no allocation per value (jansson's dump is ten
 * times slower). */
#pragma once

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "common/strbuf.h"

/* The record being written: b.s, b.len; b.oom once an allocation failed
 * (the record is dropped). */
struct jw {
	struct strbuf b;
};

/* Start over, keeping the memory. */
static inline void jw_reset(struct jw *w)
{
	strbuf_reset(&w->b);
}

/* Free the memory. */
static inline void jw_free(struct jw *w)
{
	strbuf_free(&w->b);
}

/* Append n raw bytes. */
static inline void jw_raw(struct jw *w, const char *s, size_t n)
{
	strbuf_add(&w->b, s, n);
}

void jw_str(struct jw *w, const char *s);       /* "escaped" */
void jw_u64(struct jw *w, uint64_t v);
void jw_i64(struct jw *w, int64_t v);
void jw_hex(struct jw *w, uint64_t v);          /* "0x…" */
/* ,"key": — keys are trusted ASCII identifiers.  Inline: the length of a
 * literal key folds to a constant. */
static inline void jw_key(struct jw *w, const char *key)
{
	size_t n = strlen(key);
	struct strbuf *b = &w->b;
	char *q;

	if (b->len + n + 4 >= b->cap && !strbuf_grow(b, n + 4))
		return;
	q = b->s + b->len;
	*q++ = ',';
	*q++ = '"';
	memcpy(q, key, n);
	q += n;
	*q++ = '"';
	*q++ = ':';
	*q = '\0';
	b->len += n + 4;
}
/* A jansson value, compact, keys in insertion order. */
void jw_value(struct jw *w, const json_t *v);
/* The members of an object, each as ,"k":v (no braces). */
void jw_members(struct jw *w, const json_t *obj);

/*
 * A typed payload: the members of a record's payload as a small array the
 * caller keeps on its stack, written straight into the line (jw_fields)
 * with no jansson object built, serialized and freed per record.  What it
 * writes is what jw_members writes for the same members as jansson values.
 */
enum jw_kind {
	JW_STR,   /* s: a string; NULL writes null */
	JW_INT,   /* i */
	JW_BOOL,  /* b */
	JW_NULL,
	JW_IDREF, /* i: {"id":i} */
	JW_JSON,  /* j: a jansson value, borrowed (written as jw_value does);
		   * s, len: when s is set, a JSON value already written as text */
	JW_MEMBERS, /* j: a jansson object whose members are written here (key unused) */
};
struct jw_field {
	const char *key; /* trusted ASCII identifier */
	enum jw_kind kind;
	union {
		const char *s;
		int64_t i;
		bool b;
	};
	const json_t *j;
	size_t len; /* of s, for JW_JSON */
};
/* The members of FIELDS[0..n), each as ,"k":v (no braces). */
void jw_fields(struct jw *w, const struct jw_field *fields, size_t n);
