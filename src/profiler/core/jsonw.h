/* SPDX-License-Identifier: MIT */
/* A small JSON writer for the record hot path: appends to the growable
 * string (common/strbuf.h), no allocation per value (jansson's dump is ten
 * times slower). */
#pragma once

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "common/record-head.h"
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

/* The values, as common/record-head.h writes them. */
static inline void jw_str(struct jw *w, const char *s) /* "escaped" */
{
	ct_json_str(&w->b, s);
}
static inline void jw_u64(struct jw *w, uint64_t v)
{
	ct_json_u64(&w->b, v);
}
static inline void jw_i64(struct jw *w, int64_t v)
{
	ct_json_i64(&w->b, v);
}
static inline void jw_hex(struct jw *w, uint64_t v) /* "0x…" */
{
	ct_json_hex(&w->b, v);
}
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

/*
 * A typed payload: the members of a record's payload as a small array the
 * caller keeps on its stack, written straight into the line (jw_fields)
 * with no object built, serialized and freed per record.  It is the only
 * way a record's payload reaches the writer (ct_emit).  Fields are added
 * through a builder (struct jw_fields, below) that knows its capacity.
 */
enum jw_kind {
	JW_STR,   /* s: a string; NULL writes null */
	JW_INT,   /* i */
	JW_BOOL,  /* b */
	JW_NULL,
	JW_IDREF, /* i: {"id":i} */
	JW_HEX,   /* u: "0x…", lower-case, no padding */
	JW_HEX32, /* u: "0x%08x" (an HRESULT) */
	JW_OBJ,   /* sub: a nested object of those fields; NULL writes null */
	JW_INLINE, /* sub: those fields' members written here (key unused) */
	JW_JSON,  /* s, len: a JSON value already written as text */
	JW_TEXT_MEMBERS, /* s, len: members ,"k":v already written, written here (key unused) */
};
struct jw_fields;
struct jw_field {
	const char *key; /* trusted ASCII identifier */
	enum jw_kind kind;
	union {
		const char *s;
		int64_t i;
		uint64_t u;
		bool b;
		const struct jw_fields *sub;
	};
	size_t len; /* of s, for JW_JSON and JW_TEXT_MEMBERS */
};
/* The members of FIELDS[0..n), each as ,"k":v (no braces). */
void jw_fields(struct jw *w, const struct jw_field *fields, size_t n);

/*
 * The builder: F[0..n) of an array of CAP the caller declares with
 * JW_FIELDS(name, cap).  Adding past CAP writes nothing past the array: the
 * field is left out and counted in LOST (the writer says so in a
 * trace.error record), or the program stops (jw_fields_strict).  OOM
 * counts the fields and list items left out or written as null for want
 * of memory (jwf_oom); the writer says those too.
 */
struct jw_fields {
	struct jw_field *f;
	uint32_t n, cap, lost, oom;
	struct jw_field spare; /* what a field past CAP is written to */
};
#define JW_FIELDS(name, capacity)                      \
	struct jw_field name##_at[capacity];           \
	struct jw_fields name = { .f = name##_at, .cap = (capacity) }

/* Stop (abort) at a field past a builder's capacity: set by the unit tests
 * and in the sanitizer build (CT_DEBUG_FIELDS); else counted only. */
extern bool jw_fields_strict;
/* A field past B's capacity: count it (or stop). */
void jwf_overflow(struct jw_fields *b, const char *key);

/* The next field of B (B's spare, not written, past its capacity). */
static inline struct jw_field *jwf_add(struct jw_fields *b, const char *key, enum jw_kind kind)
{
	struct jw_field *f = &b->spare;

	if (b->n < b->cap)
		f = &b->f[b->n++];
	else
		jwf_overflow(b, key);
	f->key = key;
	f->kind = kind;
	f->len = 0;
	return f;
}
/* A field made elsewhere, F (its key and value as they are). */
/* Something of B's record was left out for want of memory (see above). */
static inline void jwf_oom(struct jw_fields *b)
{
	if (b->oom < UINT32_MAX)
		b->oom++;
}

static inline void jwf_put(struct jw_fields *b, struct jw_field f)
{
	*jwf_add(b, f.key, f.kind) = f;
}
static inline void jwf_str(struct jw_fields *b, const char *key, const char *s)
{
	jwf_add(b, key, JW_STR)->s = s;
}
static inline void jwf_int(struct jw_fields *b, const char *key, int64_t i)
{
	jwf_add(b, key, JW_INT)->i = i;
}
static inline void jwf_bool(struct jw_fields *b, const char *key, bool v)
{
	jwf_add(b, key, JW_BOOL)->b = v;
}
static inline void jwf_null(struct jw_fields *b, const char *key)
{
	jwf_add(b, key, JW_NULL);
}
/* {"id":ID} */
static inline void jwf_idref(struct jw_fields *b, const char *key, int64_t id)
{
	jwf_add(b, key, JW_IDREF)->i = id;
}
/* "0x…" of an id that is a pointer in the runtime */
static inline void jwf_hex(struct jw_fields *b, const char *key, uint64_t v)
{
	jwf_add(b, key, JW_HEX)->u = v;
}
/* "0x%08x" of an HRESULT */
static inline void jwf_hr(struct jw_fields *b, const char *key, uint32_t hr)
{
	jwf_add(b, key, JW_HEX32)->u = hr;
}
/* A nested object of SUB's fields (borrowed; NULL writes null). */
static inline void jwf_obj(struct jw_fields *b, const char *key, const struct jw_fields *sub)
{
	jwf_add(b, key, JW_OBJ)->sub = sub;
}
/* SUB's members written here, in B's object (borrowed). */
static inline void jwf_inline(struct jw_fields *b, const struct jw_fields *sub)
{
	jwf_add(b, "", JW_INLINE)->sub = sub;
}
/* A JSON value already written as TEXT[0..len) (borrowed: an array, an
 * object whose keys are only known at run time); NULL writes null. */
static inline void jwf_raw(struct jw_fields *b, const char *key, const char *text, size_t len)
{
	struct jw_field *f = jwf_add(b, key, text ? JW_JSON : JW_NULL);

	f->s = text;
	f->len = len;
}
/* Members ,"k":v written once and shared, read only (the stack a throw and
 * its summary both carry, kept for the next throw from the same place):
 * counted references. */
struct jw_text {
	_Atomic unsigned refs;
	size_t len;
	char s[];
};
/* A new text of W's bytes (one reference), NULL on ENOMEM (or W's). */
struct jw_text *jw_text_new(const struct jw *w);
struct jw_text *jw_text_ref(struct jw_text *t);
void jw_text_unref(struct jw_text *t);
/* A new text, A's then B's (either may be NULL), or NULL when both are
 * or out of memory. */
struct jw_text *jw_text_cat(const struct jw_text *a, const struct jw_text *b);
/* T's members written here, in B's object (borrowed; NULL: none). */
static inline void jwf_text_members(struct jw_fields *b, const struct jw_text *t)
{
	struct jw_field *f;

	if (!t)
		return;
	f = jwf_add(b, "", JW_TEXT_MEMBERS);
	f->s = t->s;
	f->len = t->len;
}

/* A whole object {"k":v,...} of B's fields. */
void jw_object(struct jw *w, const struct jw_fields *b);
/* An array or object written by hand into W (empty at first), for what a
 * builder cannot hold (as many elements as there are, keys known at run
 * time).  PAIR is "[]" or "{}". */
/* Before each element (or "key":value): the opening for the first one, a
 * comma for the others. */
static inline void jw_item(struct jw *w, const char *pair)
{
	jw_raw(w, w->b.len ? "," : pair, 1);
}
/* Close W and add it to F as KEY (W borrowed until F is written). */
void jwf_collection(struct jw_fields *f, const char *key, struct jw *w, const char *pair);
