/* SPDX-License-Identifier: MIT */
/* UTF-16 strings from the runtime → UTF-8, and the buffer a runtime method
 * writes a name into. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <uchar.h>

/* UTF-16 (not NUL-terminated, n units) → malloc'd UTF-8; bad surrogates
 * become U+FFFD.  Never NULL unless out of memory. */
char *utf16_to_utf8(const uint16_t *s, size_t n);

#define UTF16_NAME_INLINE 512u  /* units on the stack: most names fit */
#define UTF16_NAME_MAX 65536u   /* the longest name asked for again */

/* The buffer of a method that writes at most CAP units of a name into V
 * and the units the whole name needs (NUL included) into LEN.  The one
 * pattern, never copied (V may point into it):
 *
 *	_cleanup_(utf16_name_done) struct utf16_name b = UTF16_NAME_INIT(b);
 *	do
 *		hr = method(..., b.cap, &b.len, b.v);
 *	while (utf16_name_retry(&b, com_name_answered(hr)));
 *	name = utf16_name_to_utf8(&b, SUCCEEDED(hr));
 */
struct utf16_name {
	char16_t *v;
	uint32_t cap, len;
	char16_t inline_v[UTF16_NAME_INLINE];
};
#define UTF16_NAME_INIT(b) { .v = (b).inline_v, .cap = UTF16_NAME_INLINE, .len = 0 }

/* After a call that ANSWERED (gave the length, even of a name that did not
 * fit): true if the name did not fit and B now has room for it, so call
 * again.  A name too long or out of memory stays cut (see to_utf8). */
bool utf16_name_retry(struct utf16_name *b, bool answered);
/* The name as malloc'd UTF-8, cut to the buffer if it did not fit; NULL if
 * not OK, empty (LEN 0) or out of memory. */
char *utf16_name_to_utf8(const struct utf16_name *b, bool ok);
/* Free a grown buffer (cleanup attribute). */
void utf16_name_done(struct utf16_name *b);
