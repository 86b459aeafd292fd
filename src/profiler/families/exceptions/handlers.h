/* SPDX-License-Identifier: MIT */
/* Whose catch it is: the table of handlers.c. */
#pragma once

#include "common/vocabulary.h"
#include "profiler/abi/corprof.h"

struct ct_handler {
	enum ct_handler_kind kind;
	const char *label; /* static, or the configuration's: NULL none */
	/* its catch decides the error's fate (a last-chance handler: Kestrel
	 * answers 500); else a framework's catch waits, like the async
	 * machinery's, for a next throw of the object (EF Core's execution
	 * strategy catches and throws it again later) */
	bool final;
};

/* The catch handler at PC (the clause's handler address, 0 unknown) of
 * function F, named NAME (NULL: unknown).  Cached per F and PC. */
struct ct_handler ct_handler_of(FunctionID f, uint64_t pc, const char *name);
