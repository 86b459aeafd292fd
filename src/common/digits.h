/* SPDX-License-Identifier: MIT */
/* Decimal digits of an unsigned integer, fast: every record carries a
 * 19-digit timestamp and a seq, so this is on the record path. */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <string.h>

extern const char digits_pairs[201];

/* Write the 8 digits of V (< 10^8, zero-padded) ending at END. */
static inline void digits8(char *end, uint32_t v)
{
	for (int i = 0; i < 4; i++) {
		uint32_t d = (v % 100) * 2;

		v /= 100;
		*--end = digits_pairs[d + 1];
		*--end = digits_pairs[d];
	}
}

/* Write the digits of V < 10^8 ending at END; their number. */
static inline size_t digits_small(char *end, uint32_t v)
{
	char *q = end;

	while (v >= 100) {
		uint32_t d = (v % 100) * 2;

		v /= 100;
		*--q = digits_pairs[d + 1];
		*--q = digits_pairs[d];
	}
	if (v >= 10) {
		*--q = digits_pairs[v * 2 + 1];
		*--q = digits_pairs[v * 2];
	} else
		*--q = (char)('0' + v);
	return (size_t)(end - q);
}

/* Write the digits of V ending at END (room for 20); their number.  Eight
 * digits at a time in 32-bit arithmetic, which is cheaper than 64-bit. */
static inline size_t digits_u64(char *end, uint64_t v)
{
	if (v < 100000000u)
		return digits_small(end, (uint32_t)v);
	uint64_t hi = v / 100000000u;

	digits8(end, (uint32_t)(v % 100000000u));
	if (hi < 100000000u)
		return 8 + digits_small(end - 8, (uint32_t)hi);
	digits8(end - 8, (uint32_t)(hi % 100000000u));
	return 16 + digits_small(end - 16, (uint32_t)(hi / 100000000u));
}
