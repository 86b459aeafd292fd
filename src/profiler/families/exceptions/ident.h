/* SPDX-License-Identifier: MIT */
/*
 * An exception object's identity that survives a compacting GC: a weak
 * handle per open error (ident.c; DESIGN.md, "Errors, not throws").
 */
#pragma once

#include "profiler/core/tracer.h"
#include "profiler/families/exceptions/machine.h"

/* Can the profiler make weak handles (ICorProfilerInfo13)? */
bool ct_ident_wanted(void);
/* In ExceptionThrown (cooperative mode: OBJ is valid), for an exception
 * the machine will follow: IN->handle names the open error whose object
 * OBJ is, or is a new weak handle on OBJ (IN->handle_new), or 0 when no
 * handle could be made (the address is all there is); IN->inner_handle
 * names the open error whose object its InnerException is. */
void ct_ident_thrown(ObjectID obj, struct exm_input *in);
/* exm_emitter.handle_free: destroy a handle no error holds any more
 * (nothing once the process exits: the handles go with it). */
void ct_ident_free(void *ud, uint64_t handle);
/* The process exits: handles are no longer destroyed one by one. */
void ct_ident_exiting(void);
