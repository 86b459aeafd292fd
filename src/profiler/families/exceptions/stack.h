/* SPDX-License-Identifier: MIT */
/* The stacks category: the managed stack of the throwing thread, and the
 * inner exception chain, as the fields exception.throw gains. */
#pragma once

#include "profiler/core/jsonw.h"
#include "profiler/families/exceptions/inspect.h"

/* The members stack, stack_cut?, modules of the calling thread's managed stack, up
 * to DEPTH frames, or NULL (the runtime would not walk it; ENOMEM).  Only
 * inside ExceptionThrown: it names functions and modules (dotnet/runtime
 * #132462: never from the filter- or catcher-enter callbacks). */
struct jw_text *exc_stack_fields(unsigned depth);

/* The members inner, inner_cut?, inner_cut_capped?, inner_loops? of a chain
 * from exc_inner_chain(), or NULL when the chain is empty (or ENOMEM). */
struct jw_text *exc_chain_fields(const struct exc_chain *c, bool with_messages);
