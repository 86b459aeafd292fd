/* SPDX-License-Identifier: MIT */
/* The stacks category: the managed stack of the throwing thread, and the
 * inner exception chain, as the fields exception.throw gains. */
#pragma once

#include <jansson.h>

#include "profiler/families/exceptions/inspect.h"

/* {stack, stack_cut?, modules} of the calling thread's managed stack, up
 * to DEPTH frames, or NULL (the runtime would not walk it; ENOMEM).  Only
 * inside ExceptionThrown: it names functions and modules (dotnet/runtime
 * #132462: never from the filter- or catcher-enter callbacks). */
json_t *exc_stack_fields(unsigned depth);

/* {inner, inner_cut?, inner_loops?} of a chain from exc_inner_chain(), or
 * NULL when the chain is empty. */
json_t *exc_chain_fields(const struct exc_chain *c, bool with_messages);
