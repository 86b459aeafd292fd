/* SPDX-License-Identifier: MIT */
/* The exception clauses of running methods, asked of the runtime (clauses.c). */
#pragma once

#include "profiler/abi/corprof.h"
#include "profiler/families/exceptions/machine.h"

/* Can a plain catch of F take an exception of class EXC (0: of any class)
 * that one of its filters declined?  Not when every such catch is of a
 * type that is none of EXC's class and its parents. */
enum exm_know ct_catch_after_filter(FunctionID f, ClassID exc);

/* Called from a CatcherLeave: is the catch handler being left a filter
 * clause's handler (YES) or a plain catch's (NO)? */
enum exm_know ct_catch_is_filter_handler(void);

/* Called from a CatcherLeave: does the handler (catch or finally, of the
 * same method) that holds OUTER_PC also hold the catch being left? */
enum exm_know ct_catch_within(uint64_t outer_pc);

/* How many finally/fault clauses of F cover the call at return address IP
 * (0 also when unknown). */
unsigned ct_finallys_covering(FunctionID f, UINT_PTR ip);

/* Is the catch handler at PC in F (a CatcherEnter's clause) the one that
 * a compiler-generated async state machine stores the exception in its
 * Task with: its IL calls SetException on an async method builder?  A
 * catch the program wrote inside an async method does not.  When PC is 0
 * or maps to no IL, every catch of F answers if they all agree (a
 * MoveNext whose only catch is the builder's).  Not from the CatcherEnter
 * callback (deferred.c). */
enum exm_know ct_catch_stores_task(FunctionID f, uint64_t pc);
