/* SPDX-License-Identifier: MIT */
/* The growable string (see strbuf.h). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/strbuf.h"

/* Make room for N more bytes and the NUL; false (and oom) on failure. */
bool strbuf_grow(struct strbuf *b, size_t n)
{
	size_t need, cap;
	char *s;

	if (b->oom)
		return false;
	if (n > SIZE_MAX - b->len - 1) {
		b->oom = true;
		return false;
	}
	need = b->len + n + 1;
	if (need <= b->cap)
		return true;
	cap = b->cap ? b->cap : 128;
	while (cap < need)
		cap = cap > SIZE_MAX / 2 ? need : cap * 2;
	s = realloc(b->s, cap);
	if (!s) {
		b->oom = true;
		return false;
	}
	b->s = s;
	b->cap = cap;
	return true;
}

/* Append printf-style (va_list). */
void strbuf_vprintf(struct strbuf *b, const char *fmt, va_list ap)
{
	va_list copy;
	int n;

	va_copy(copy, ap);
	n = vsnprintf(b->s ? b->s + b->len : NULL, b->s ? b->cap - b->len : 0, fmt, copy);
	va_end(copy);
	if (n < 0 || b->oom)
		return;
	if (b->len + (size_t)n >= b->cap) {
		if (!strbuf_grow(b, (size_t)n))
			return;
		vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
	}
	b->len += (size_t)n;
}

/* Append printf-style. */
void strbuf_printf(struct strbuf *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	strbuf_vprintf(b, fmt, ap);
	va_end(ap);
}

/* Empty the string, keeping its memory; clears oom. */
void strbuf_reset(struct strbuf *b)
{
	b->len = 0;
	b->oom = false;
	if (b->s)
		b->s[0] = '\0';
}

/* Free the memory; the buffer is empty and usable again. */
void strbuf_free(struct strbuf *b)
{
	free(b->s);
	*b = (struct strbuf){ 0 };
}

/* Hand the string to the caller. */
char *strbuf_steal(struct strbuf *b)
{
	char *s = b->oom ? NULL : b->s ? b->s : strdup("");

	if (b->oom)
		free(b->s);
	*b = (struct strbuf){ 0 };
	return s;
}
