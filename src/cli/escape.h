/* SPDX-License-Identifier: MIT */
/* Record text made safe for a terminal: control characters, backslashes and
 * invalid UTF-8 escaped the way strace does (\n, \e, \x9b). */
#pragma once

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

/* Write the N bytes at S to F, escaped. */
void esc_fwrite(const char *s, size_t n, FILE *f);
/* Write the string S to F, escaped (NULL writes nothing). */
void esc_fputs(const char *s, FILE *f);
/* The escaped copy of S (malloc'd); NULL on ENOMEM or for a NULL S. */
char *esc_strdup(const char *s);
/* A deep copy of J whose every string value is escaped (object keys are
 * left alone: they are ours); NULL on ENOMEM. */
json_t *esc_json(json_t *j);
