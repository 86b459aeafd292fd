/* SPDX-License-Identifier: MIT */
/* The hot-path JSON writer (see jsonw.h). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/digits.h"
#include "profiler/core/jsonw.h"

/* Append a JSON string: quotes, escapes; bytes that are not valid UTF-8
 * become U+FFFD so a line is always valid JSON. */
/* Bytes copied as they are: printable ASCII but the quote and backslash. */
static const bool plain[256] = {
	[0x20 ... 0x21] = 1, [0x23 ... 0x5b] = 1, [0x5d ... 0x7f] = 1,
};

/* Length of the run of plain bytes at P (N bytes to look at), eight at a
 * time: a word holds a byte to stop at when one is below 0x20 or above
 * 0x7f, or is the quote or the backslash (the bytes after it go one by
 * one). */
static size_t plain_run(const unsigned char *p, size_t n)
{
	const uint64_t ones = 0x0101010101010101u, high = 0x8080808080808080u;
	size_t i = 0;

	for (; i + 8 <= n; i += 8) {
		uint64_t x, stop;

		memcpy(&x, p + i, 8);
		stop = ((x - ones * 0x20) & ~x) | x | /* < 0x20, >= 0x80 */
		       (((x ^ (ones * '"')) - ones) & ~(x ^ (ones * '"'))) |
		       (((x ^ (ones * '\\')) - ones) & ~(x ^ (ones * '\\')));
		if (stop & high)
			break;
	}
	while (i < n && plain[p[i]])
		i++;
	return i;
}

void jw_str(struct jw *w, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)s;
	struct strbuf *b = &w->b;
	size_t slen = strlen(s), len = plain_run(p, slen);

	/* the common case, nothing to escape: one copy between the quotes */
	if (len == slen) {
		char *q;

		if (b->len + len + 2 >= b->cap && !strbuf_grow(b, len + 2))
			return;
		q = b->s + b->len;
		*q++ = '"';
		memcpy(q, p, len);
		q += len;
		*q++ = '"';
		*q = '\0';
		b->len += len + 2;
		return;
	}
	jw_raw(w, "\"", 1);
	while (*p) {
		const unsigned char *run = p;

		while (plain[*p])
			p++;
		if (p > run)
			jw_raw(w, (const char *)run, (size_t)(p - run));
		if (!*p)
			break;
		if (*p < 0x20 || *p == '"' || *p == '\\') {
			char esc[6] = { '\\', 0 };
			size_t n = 2;

			switch (*p) {
			case '"': esc[1] = '"'; break;
			case '\\': esc[1] = '\\'; break;
			case '\n': esc[1] = 'n'; break;
			case '\r': esc[1] = 'r'; break;
			case '\t': esc[1] = 't'; break;
			default:
				memcpy(esc + 1, "u00", 3);
				esc[4] = hex[*p >> 4];
				esc[5] = hex[*p & 15];
				n = 6;
			}
			jw_raw(w, esc, n);
			p++;
			continue;
		}
		/* a multi-byte UTF-8 sequence: copy if well formed */
		size_t n = (*p & 0xE0) == 0xC0 ? 2 : (*p & 0xF0) == 0xE0 ? 3 : (*p & 0xF8) == 0xF0 ? 4 : 0;
		bool good = n > 0 && !(*p == 0xC0 || *p == 0xC1 || *p > 0xF4);
		for (size_t i = 1; good && i < n; i++)
			good = (p[i] & 0xC0) == 0x80;
		if (good) {
			jw_raw(w, (const char *)p, n);
			p += n;
		} else {
			jw_raw(w, "\xEF\xBF\xBD", 3);
			p++;
		}
	}
	jw_raw(w, "\"", 1);
}

/* A timestamp is 19 digits, written in every record (digits.h).  The digits
 * go into a scratch whose 24 bytes after them are copied whole: a copy of
 * constant size is a few moves, where one of N bytes was a call to memcpy
 * (a tenth of the record writer's time on /boom).  The bytes past the
 * number are overwritten by whatever comes next. */
void jw_u64(struct jw *w, uint64_t v)
{
	struct strbuf *b = &w->b;
	char buf[48];
	size_t n;

	if (b->len + 24 >= b->cap && !strbuf_grow(b, 24))
		return;
	if (v < 10) { /* depth 0, most of the time */
		b->s[b->len++] = (char)('0' + v);
		b->s[b->len] = '\0';
		return;
	}
	memset(buf + 24, 0, 24); /* defined bytes after the number, for valgrind */
	n = digits_u64(buf + 24, v);
	memcpy(b->s + b->len, buf + 24 - n, 24);
	b->len += n;
	b->s[b->len] = '\0';
}

void jw_i64(struct jw *w, int64_t v)
{
	if (v < 0) {
		jw_raw(w, "-", 1);
		jw_u64(w, (uint64_t)0 - (uint64_t)v);
	} else
		jw_u64(w, (uint64_t)v);
}

/* "0x…" lower-case hex. */
void jw_hex(struct jw *w, uint64_t v)
{
	static const char hex[] = "0123456789abcdef";
	char buf[20];
	char *e = buf + sizeof(buf), *q = e;

	*--q = '"';
	do
		*--q = hex[v & 15];
	while (v >>= 4);
	*--q = 'x';
	*--q = '0';
	*--q = '"';
	jw_raw(w, q, (size_t)(e - q));
}

/* The members of an object, each as ,"k":v. */
void jw_members(struct jw *w, const json_t *obj)
{
	const char *k;
	json_t *v;

	json_object_foreach((json_t *)obj, k, v) {
		jw_raw(w, ",", 1);
		jw_str(w, k);
		jw_raw(w, ":", 1);
		jw_value(w, v);
	}
}

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

/* A jansson value, compact. */
void jw_value(struct jw *w, const json_t *v)
{
	char buf[32];
	int n;

	switch (json_typeof(v)) {
	case JSON_OBJECT: {
		size_t start = w->b.len;

		jw_members(w, v);
		braces(w, start);
		break;
	}
	case JSON_ARRAY: {
		size_t i;
		json_t *e;

		jw_raw(w, "[", 1);
		json_array_foreach((json_t *)v, i, e) {
			if (i)
				jw_raw(w, ",", 1);
			jw_value(w, e);
		}
		jw_raw(w, "]", 1);
		break;
	}
	case JSON_STRING:
		jw_str(w, json_string_value(v));
		break;
	case JSON_INTEGER:
		jw_i64(w, json_integer_value(v));
		break;
	case JSON_REAL:
		n = snprintf(buf, sizeof(buf), "%.17g", json_real_value(v));
		jw_raw(w, buf, (size_t)n);
		break;
	case JSON_TRUE:
		jw_raw(w, "true", 4);
		break;
	case JSON_FALSE:
		jw_raw(w, "false", 5);
		break;
	default:
		jw_raw(w, "null", 4);
	}
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
		if (f[i].kind == JW_MEMBERS) {
			if (f[i].j)
				jw_members(w, f[i].j);
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
			if (f[i].j) {
				jw_value(w, f[i].j);
				break;
			}
			/* fall through */
		case JW_NULL:
		case JW_MEMBERS:
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
