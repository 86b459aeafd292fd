/* SPDX-License-Identifier: MIT */
/* What the C unit tests share: CHECK prints "ok: …" or "FAIL: …" and
 * counts failures; main returns failures ? 1 : 0. */
#pragma once

#include <stdio.h>

static int failures;

#define CHECK(cond, ...) \
	do { \
		if (cond) { \
			printf("ok: "); \
		} else { \
			printf("FAIL: "); \
			failures++; \
		} \
		printf(__VA_ARGS__); \
		putchar('\n'); \
	} while (0)
