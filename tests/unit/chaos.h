/* SPDX-License-Identifier: MIT */
/*
 * Allocation failure, in the style of jansson's test_chaos.c: the test is
 * linked with --wrap for malloc, calloc, realloc, reallocarray, strdup,
 * strndup and free (chaos.c), and jansson allocates through the same
 * wrappers, so chaos_each() can fail the Nth allocation of an operation
 * for N = 1, 2, ... until a run where none failed.  Every allocation a run
 * makes and does not free is a leak (counted by chaos.c itself, and by
 * ASan's leak checker under make check-sanitizers).
 */
#pragma once

#include <stdbool.h>

/* The operation under test, run once per N.  It must end with everything
 * it made freed and return whether its result is clean: when an
 * allocation was failed (chaos_failed()), a plain -ENOMEM or the whole
 * result; else the whole result. */
typedef bool (*chaos_op)(void *ud);

/* Was an allocation failed in the run under way? */
bool chaos_failed(void);
/* Allocations the test makes for itself inside a run (a capture of
 * records): never failed, never counted. */
void chaos_pause(void);
void chaos_resume(void);

/* Run OP for N = 1, 2, ... (at most MAX runs); check (printed as CHECK
 * does) that each run said clean and leaked nothing, and that the last run
 * failed nothing.  Returns the number of failed checks (add them to the
 * caller's failures). */
int chaos_each(const char *name, chaos_op op, void *ud, long max);
