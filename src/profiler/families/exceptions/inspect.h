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
