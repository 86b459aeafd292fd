/* SPDX-License-Identifier: MIT */
/* A GUID as .NET prints it (Guid.ToString()) ↔ its 16 stored bytes: the
 * first three fields little-endian, the last eight bytes in order. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* The stored byte printed I-th. */
static inline int guid_at(int i)
{
	static const int order[16] = { 3, 2, 1, 0, 5, 4, 7, 6, 8, 9, 10, 11, 12, 13, 14, 15 };

	return order[i];
}

/* G as .NET prints it, and a newline. */
static inline void guid_print(const uint8_t g[16])
{
	for (int i = 0; i < 16; i++)
		printf("%s%02x", i == 4 || i == 6 || i == 8 || i == 10 ? "-" : "", g[guid_at(i)]);
	putchar('\n');
}

/* The 16 bytes of the GUID S as .NET prints it; false if S is not one. */
static inline bool guid_parse(const char *s, uint8_t g[16])
{
	for (int i = 0; i < 16; i++) {
		unsigned x;

		if (i == 4 || i == 6 || i == 8 || i == 10) {
			if (*s++ != '-')
				return false;
		}
		if (sscanf(s, "%2x", &x) != 1)
			return false;
		g[guid_at(i)] = (uint8_t)x;
		s += 2;
	}
	return *s == '\0';
}
