/* SPDX-License-Identifier: MIT */
/*
 * Pinning each live exception object so that dotnet/runtime#132462 cannot
 * hand a filter or catch block a stale reference (pin.c).
 */
#pragma once

#include "profiler/core/tracer.h"

/* Does this runtime get the workaround (its version and exception
 * handling known: after ct_runtime_describe)? */
bool ct_pin_wanted(void);
/* In ExceptionThrown (cooperative mode: OBJ is valid): pin it. */
void ct_pin_thrown(struct ct_thread *t, ObjectID obj);
/* The thread follows LIVE exceptions now: unpin the ones above. */
void ct_pin_release(struct ct_thread *t, size_t live);
