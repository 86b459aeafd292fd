/* SPDX-License-Identifier: MIT */
/* Reading a thrown exception object: type, _message, _HResult,
 * _innerException. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "profiler/abi/corprof.h"

struct exc_info {
	ClassID class_id;
	const char *type;  /* cached by names.c; "?" when unknown */
	char *message;     /* malloc'd; NULL: none, or messages are off */
	int32_t hresult;
	bool has_hresult;
	bool traced;        /* _stackTrace is set: it was thrown before */
	ObjectID inner;     /* _innerException, 0: none */
};

/* Fill *out from OBJ; only valid inside the callback that received OBJ. */
void exc_inspect(ObjectID obj, bool with_message, struct exc_info *out);
void exc_info_done(struct exc_info *i);

/* The InnerException chain of a thrown exception: type and message of each
 * inner exception, outermost first, up to EXC_INNER_MAX deep; how many more
 * there are is counted (up to EXC_INNER_COUNT_MAX: a longer chain, or one
 * that loops, is "at least" that many). */
#define EXC_INNER_MAX 8
#define EXC_INNER_COUNT_MAX 1000u
struct exc_chain {
	struct exc_info v[EXC_INNER_MAX];
	unsigned n;
	unsigned more;     /* inner exceptions past the n kept */
	bool more_capped;  /* counting stopped at EXC_INNER_COUNT_MAX */
	bool loops;        /* the chain comes back to an exception already in it */
};

/* Walk the chain of THROWN from INNER (its _innerException, from
 * exc_inspect()).  Only inside ExceptionThrown, like exc_inspect(): never
 * from the filter- or catcher-enter callbacks (dotnet/runtime#132462: the
 * exception object is unprotected there; names, messages and allocation
 * widen that race into a crash of the host). */
void exc_inner_chain(ObjectID thrown, ObjectID inner, bool with_messages, struct exc_chain *out);
void exc_chain_done(struct exc_chain *c);
