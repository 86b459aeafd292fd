/* SPDX-License-Identifier: MIT */
/* The tracer's own voice on stderr (say.c). */
#pragma once

/* One line on stderr, once per KEY ("clrtrace: " is prepended). */
void ct_say_once(const char *key, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
