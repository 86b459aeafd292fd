/* SPDX-License-Identifier: MIT */
/* Whose catch it is: the table of handlers.c. */
#pragma once

#include "common/vocabulary.h"
#include "profiler/abi/corprof.h"

struct ct_handler {
	enum ct_handler_kind kind;
	const char *label; /* static, or the configuration's: NULL none */
};

/* The catch handler at PC (the clause's handler address, 0 unknown) of
 * function F, named NAME (NULL: unknown).  Cached per F and PC. */
struct ct_handler ct_handler_of(FunctionID f, uint64_t pc, const char *name);
