/* SPDX-License-Identifier: MIT */
/* The exception clauses of running methods, asked of the runtime (clauses.c). */
#pragma once

#include "../corprof.h"
#include "machine.h"

/* Can a plain catch of F take an exception that one of its filters
 * declined?  Cached per FunctionID. */
enum exm_know ct_catch_after_filter(FunctionID f);

/* Called from a CatcherLeave: is the catch handler being left a filter
 * clause's handler (YES) or a plain catch's (NO)? */
enum exm_know ct_catch_is_filter_handler(void);
