/* SPDX-License-Identifier: MIT */
/* The one escaper (see escape.h): record text for clrtrace view, stats and
 * export, values and messages in the error lines of the profiler and CLI. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/escape.h"

/* Length of the valid UTF-8 sequence at S (at most N bytes) and its code
 * point; 0 if S does not start one. */
static size_t utf8_len(const unsigned char *s, size_t n, uint32_t *cp)
{
	size_t len;
	uint32_t c, min;

	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2, c = s[0] & 0x1f, min = 0x80;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3, c = s[0] & 0x0f, min = 0x800;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4, c = s[0] & 0x07, min = 0x10000;
	else
		return 0;
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0; /* overlong, out of range, or a surrogate */
	*cp = c;
	return len;
}

/* Is code point C one a terminal acts on: a control, or one that reorders or breaks lines? */
static bool unsafe_char(uint32_t c)
{
	return c < 0x20 || (c >= 0x7f && c <= 0x9f) || (c >= 0x202a && c <= 0x202e) ||
	       (c >= 0x2066 && c <= 0x2069) || c == 0x2028 || c == 0x2029 || c == 0x200e || c == 0x200f ||
	       c == 0x061c;
}

/* Write one byte as \xHH (or \xhh). */
static void put_hex(FILE *f, unsigned char b, unsigned flags)
{
	fprintf(f, flags & ESC_LOWER ? "\\x%02x" : "\\x%02X", b);
}

/* Write the escape of the character C (LEN bytes at P; LEN 0: one byte of invalid UTF-8). */
static void put_escape(FILE *f, const unsigned char *p, size_t len, uint32_t c, unsigned flags)
{
	static const char names[][3] = { ['\n'] = "\\n", ['\t'] = "\\t", ['\r'] = "\\r",
					 ['\v'] = "\\v", ['\f'] = "\\f", [0x1b] = "\\e" };

	if (len == 0)
		put_hex(f, p[0], flags);
	else if (len == 1 && c == '\\')
		fputs("\\\\", f);
	else if (len == 1 && (c == '\n' || c == '\t' || c == '\r'))
		fputs(names[c], f);
	else if (len == 1 && (c == '\v' || c == '\f' || c == 0x1b) && (flags & ESC_CNAMES))
		fputs(names[c], f);
	else if (len == 1 || (flags & ESC_BYTES))
		for (size_t k = 0; k < len; k++)
			put_hex(f, p[k], flags);
	else
		fprintf(f, "\\u{%04X}", (unsigned)c);
}

/* Write S escaped (see escape.h). */
size_t escape_fwrite(FILE *f, const char *s, size_t n, size_t max, unsigned flags)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t lim = max && n > max ? max : n, i = 0;

	while (i < lim) {
		size_t run = i, len;
		uint32_t c = 0;

		/* copy the longest run of safe characters in one write */
		while (run < lim && (len = utf8_len(p + run, n - run, &c)) && run + len <= lim && !unsafe_char(c) &&
		       !(c == '\\' && (flags & ESC_BACKSLASH)))
			run += len;
		if (run > i) {
			fwrite(p + i, 1, run - i, f);
			i = run;
			continue;
		}
		len = utf8_len(p + i, n - i, &c);
		if (i + len > lim)
			break; /* never cut a character in two */
		put_escape(f, p + i, len, c, flags);
		i += len ? len : 1;
	}
	return i;
}

/* S escaped into a new string (see escape.h). */
char *escape_str(const char *s, size_t max, unsigned flags)
{
	char *buf = NULL;
	size_t size = 0, n;
	FILE *f;

	if (!s || !(f = open_memstream(&buf, &size)))
		return NULL;
	n = strlen(s);
	if (escape_fwrite(f, s, n, max, flags) < n)
		fputs("…", f);
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}
