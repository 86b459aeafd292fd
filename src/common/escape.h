/* SPDX-License-Identifier: MIT */
/* The one escaper: text from outside (record text, option and configuration
 * values, messages) made safe for a terminal line.  Every control character
 * (C0, DEL, C1), every character that reorders or breaks lines (bidi
 * controls, U+2028/9, U+061C) and every byte of invalid UTF-8 is escaped;
 * valid UTF-8 otherwise stays as it is.  The flags choose the form. */
#pragma once

#include <stddef.h>
#include <stdio.h>

enum {
	ESC_BACKSLASH = 1u << 0, /* \ becomes \\, so an escape in the output always means one */
	ESC_CNAMES = 1u << 1,    /* \v \f \e by name too (\n \t \r always are) */
	ESC_LOWER = 1u << 2,     /* \xhh, not \xHH */
	ESC_BYTES = 1u << 3,     /* an unsafe character as \xhh per byte, not \u{HHHH} */
};

/* Record text, as strace prints strings: \n, \e, \\, \xe2\x80\xae. */
#define ESC_RECORD (ESC_BACKSLASH | ESC_CNAMES | ESC_LOWER | ESC_BYTES)
/* Values in error lines: \n, \x1B, \u{202E}; backslashes only with ESC_BACKSLASH. */
#define ESC_MESSAGE 0u

/* Write the N bytes at S to F escaped by FLAGS; only the first MAX of them (0: all),
 * never cutting a character in two.  Returns the bytes of S written. */
size_t escape_fwrite(FILE *f, const char *s, size_t n, size_t max, unsigned flags);

/* The string S escaped by FLAGS, cut after MAX bytes of S with "…" (0: no cut).
 * malloc'd; NULL on ENOMEM or for a NULL S. */
char *escape_str(const char *s, size_t max, unsigned flags);
