/* SPDX-License-Identifier: MIT */
/*
 * The one growable string of clrtrace: the record writer (jsonw), the
 * journal field mapping and the CLI's descriptions all build on it.  Once
 * an allocation fails the buffer stays failed (oom) and appends do nothing,
 * so callers check once at the end.  The text is always NUL-terminated when
 * cap > 0.
 */
#pragma once

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

struct strbuf {
	char *s;
	size_t len, cap;
	bool oom;
};

/* Make room for N more bytes and the NUL; false (and oom) on failure. */
bool strbuf_grow(struct strbuf *b, size_t n);

/* Append N bytes. */
static inline void strbuf_add(struct strbuf *b, const char *p, size_t n)
{
	if (b->len + n >= b->cap && !strbuf_grow(b, n))
		return;
	memcpy(b->s + b->len, p, n);
	b->len += n;
	b->s[b->len] = '\0';
}

/* Append a NUL-terminated string. */
static inline void strbuf_puts(struct strbuf *b, const char *s)
{
	strbuf_add(b, s, strlen(s));
}

/* Append printf-style. */
void strbuf_printf(struct strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void strbuf_vprintf(struct strbuf *b, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
/* Empty the string, keeping its memory; clears oom. */
void strbuf_reset(struct strbuf *b);
/* Free the memory; the buffer is empty and usable again. */
void strbuf_free(struct strbuf *b);
/* Hand the string to the caller (malloc'd, never NULL unless oom). */
char *strbuf_steal(struct strbuf *b);
