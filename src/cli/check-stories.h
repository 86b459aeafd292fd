/* SPDX-License-Identifier: MIT */
/* clrtrace check: the exception stories against themselves (check-stories.c). */
#pragma once

#include "cli/reader.h"

struct stories;

/* Where a problem goes: LINE of the trace, and what is wrong. */
typedef void (*stories_problem_fn)(void *ud, uint64_t line, const char *msg);

struct stories *stories_new(stories_problem_fn problem, void *ud);
void stories_free(struct stories *s);
/* Follow one record of the process run PROC (pid and run: a pid reused in
 * one file is several processes). */
void stories_feed(struct stories *s, const struct rec *r, uint64_t proc);
