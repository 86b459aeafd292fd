/* SPDX-License-Identifier: MIT */
/* The hot-path JSON writer (see jsonw.h). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profiler/core/jsonw.h"

/* Members written from START on become an object: the first one's comma
 * becomes the brace. */
static void braces(struct jw *w, size_t start)
{
	if (w->b.len > start && !w->b.oom)
		w->b.s[start] = '{';
	else
		jw_raw(w, "{", 1);
	jw_raw(w, "}", 1);
}

/* The members of a typed payload, each as ,"k":v (see jsonw.h). */
/* ,"key": for a key whose length is not known here: a payload's keys are
 * short, and copying one byte by byte costs less than strlen and memcpy
 * (3 % of the tracer's time on a throwing web service).  A longer key takes
 * jw_key. */
static void key_short(struct jw *w, const char *key)
{
	enum { SHORT = 32 };
	struct strbuf *b = &w->b;
	size_t i;
	char *q;

	if (b->len + SHORT + 4 >= b->cap && !strbuf_grow(b, SHORT + 4))
		return;
	q = b->s + b->len;
	for (i = 0; i < SHORT && key[i]; i++)
		q[2 + i] = key[i];
	if (key[i]) {
		jw_key(w, key);
		return;
	}
	q[0] = ',';
	q[1] = '"';
	q[2 + i] = '"';
	q[3 + i] = ':';
	q[4 + i] = '\0';
	b->len += i + 4;
}

void jw_fields(struct jw *w, const struct jw_field *f, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (f[i].kind == JW_TEXT_MEMBERS) {
			if (f[i].s)
				jw_raw(w, f[i].s, f[i].len);
			continue;
		}
		if (f[i].kind == JW_INLINE) {
			if (f[i].sub)
				jw_fields(w, f[i].sub->f, f[i].sub->n);
			continue;
		}
		key_short(w, f[i].key);
		switch (f[i].kind) {
		case JW_STR:
			if (f[i].s)
				jw_str(w, f[i].s);
			else
				jw_raw(w, "null", 4);
			break;
		case JW_INT:
			jw_i64(w, f[i].i);
			break;
		case JW_BOOL:
			if (f[i].b)
				jw_raw(w, "true", 4);
			else
				jw_raw(w, "false", 5);
			break;
		case JW_IDREF:
			jw_raw(w, "{\"id\":", 6);
			jw_i64(w, f[i].i);
			jw_raw(w, "}", 1);
			break;
		case JW_HEX:
			jw_hex(w, f[i].u);
			break;
		case JW_HEX32: {
			static const char hex[] = "0123456789abcdef";
			char buf[12] = "\"0x";

			for (int d = 0; d < 8; d++)
				buf[3 + d] = hex[(f[i].u >> (28 - 4 * d)) & 15];
			buf[11] = '"';
			jw_raw(w, buf, sizeof(buf));
			break;
		}
		case JW_OBJ:
			if (f[i].sub)
				jw_object(w, f[i].sub);
			else
				jw_raw(w, "null", 4);
			break;
		case JW_JSON:
			if (f[i].s) {
				jw_raw(w, f[i].s, f[i].len);
				break;
			}
			/* fall through */
		case JW_NULL:
		case JW_TEXT_MEMBERS:
		case JW_INLINE:
			jw_raw(w, "null", 4);
			break;
		}
	}
}

/* A whole object of B's fields (see jsonw.h). */
void jw_object(struct jw *w, const struct jw_fields *b)
{
	size_t start = w->b.len;

	jw_fields(w, b->f, b->n);
	braces(w, start);
}

/* A collection written by hand, closed, as a field (see jsonw.h). */
void jwf_collection(struct jw_fields *f, const char *key, struct jw *w, const char *pair)
{
	if (w->b.len)
		jw_raw(w, pair + 1, 1);
	else
		jw_raw(w, pair, 2);
	if (w->b.oom) /* written as null, and said */
		jwf_oom(f);
	jwf_raw(f, key, w->b.oom ? NULL : w->b.s, w->b.len);
}

/* the sanitizer build stops at the first one, as the unit tests do */
#ifdef CT_DEBUG_FIELDS
bool jw_fields_strict = true;
#else
bool jw_fields_strict;
#endif

/* A field past a builder's capacity (see jsonw.h). */
void jwf_overflow(struct jw_fields *b, const char *key)
{
	if (b->lost < UINT32_MAX)
		b->lost++;
	if (jw_fields_strict) {
		fprintf(stderr, "jw_fields: field \"%s\" past the capacity of %u\n", key ? key : "", b->cap);
		abort();
	}
}

/* A shared text (see jsonw.h). */
struct jw_text *jw_text_new(const struct jw *w)
{
	struct jw_text *t;

	if (w->b.oom || !(t = malloc(sizeof(*t) + w->b.len + 1)))
		return NULL;
	atomic_init(&t->refs, 1);
	t->len = w->b.len;
	if (w->b.len)
		memcpy(t->s, w->b.s, w->b.len);
	t->s[t->len] = '\0';
	return t;
}

struct jw_text *jw_text_ref(struct jw_text *t)
{
	if (t)
		atomic_fetch_add_explicit(&t->refs, 1, memory_order_relaxed);
	return t;
}

void jw_text_unref(struct jw_text *t)
{
	if (t && atomic_fetch_sub_explicit(&t->refs, 1, memory_order_acq_rel) == 1)
		free(t);
}

/* Two texts as one (see jsonw.h). */
struct jw_text *jw_text_cat(const struct jw_text *a, const struct jw_text *b)
{
	size_t la = a ? a->len : 0, lb = b ? b->len : 0;
	struct jw_text *t;

	if ((!a && !b) || la > SIZE_MAX - lb - sizeof(*t) - 1 || !(t = malloc(sizeof(*t) + la + lb + 1)))
		return NULL;
	atomic_init(&t->refs, 1);
	t->len = la + lb;
	if (la)
		memcpy(t->s, a->s, la);
	if (lb)
		memcpy(t->s + la, b->s, lb);
	t->s[t->len] = '\0';
	return t;
}
