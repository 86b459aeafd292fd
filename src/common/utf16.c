/* SPDX-License-Identifier: MIT */
/* UTF-16 strings from the runtime → UTF-8 for JSON. */
#include <stdlib.h>

#include "common/utf16.h"

/* Append code point cp to out as UTF-8; returns bytes written. */
static size_t put_utf8(char *out, uint32_t cp)
{
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xC0 | (cp >> 6));
		out[1] = (char)(0x80 | (cp & 0x3F));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (char)(0xE0 | (cp >> 12));
		out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
		out[2] = (char)(0x80 | (cp & 0x3F));
		return 3;
	}
	out[0] = (char)(0xF0 | (cp >> 18));
	out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
	out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
	out[3] = (char)(0x80 | (cp & 0x3F));
	return 4;
}

/* UTF-16 → malloc'd UTF-8; bad surrogates become U+FFFD, NUL stays. */
char *utf16_to_utf8(const uint16_t *s, size_t n)
{
	char *out = malloc(n * 3 + 1), *p = out;

	if (!out)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		uint32_t cp = s[i];

		if (cp >= 0xD800 && cp <= 0xDBFF && i + 1 < n && s[i + 1] >= 0xDC00 && s[i + 1] <= 0xDFFF) {
			cp = 0x10000 + ((cp - 0xD800) << 10) + (s[i + 1] - 0xDC00);
			i++;
		} else if (cp >= 0xD800 && cp <= 0xDFFF)
			cp = 0xFFFD;
		p += put_utf8(p, cp);
	}
	*p = 0;
	return out;
}

/* Make room for the whole name if it did not fit (see utf16.h). */
bool utf16_name_retry(struct utf16_name *b, bool answered)
{
	char16_t *big;

	if (!answered || b->len <= b->cap || b->len > UTF16_NAME_MAX || b->v != b->inline_v)
		return false;
	big = malloc((size_t)b->len * sizeof(*big));
	if (!big)
		return false;
	b->v = big;
	b->cap = b->len;
	return true;
}

/* The name as UTF-8: LEN counts the NUL; a name that did not fit is cut. */
char *utf16_name_to_utf8(const struct utf16_name *b, bool ok)
{
	if (!ok || b->len == 0)
		return NULL;
	return utf16_to_utf8((const uint16_t *)b->v, b->len <= b->cap ? b->len - 1 : b->cap - 1);
}

/* Free a grown buffer. */
void utf16_name_done(struct utf16_name *b)
{
	if (b->v != b->inline_v)
		free(b->v);
	b->v = b->inline_v;
	b->cap = UTF16_NAME_INLINE;
}
