/* SPDX-License-Identifier: MIT */
/* The records of category startup (startup.c), called by the families
 * whose callbacks they share. */
#pragma once

#include <stdbool.h>

#include "profiler/abi/corprof.h"

struct ct_thread;

/* A JIT compile of FN began / ended with HR (DYNAMIC: a dynamic method or
 * IL stub, from the DynamicMethodJITCompilation callbacks). */
void ct_startup_jit_begin(struct ct_thread *t, FunctionID fn);
void ct_startup_jit_end(struct ct_thread *t, FunctionID fn, HRESULT hr, bool dynamic);
/* Module M's load ended with HR: startup.module; Hosting's load starts
 * the listening for ct_startup_hosting. */
void ct_startup_module(struct ct_thread *t, ModuleID m, HRESULT hr);
/* Hosting's event ID (aspnet.h) delivered to T: the first ServerReady or
 * RequestStop after Microsoft.AspNetCore.Hosting's load is startup.ready. */
void ct_startup_hosting(struct ct_thread *t, unsigned id);
/* startup.config, once, after runtime.init. */
void ct_startup_config(struct ct_thread *t);
/* At the runtime's end: the time run saw the program's ready line, read
 * from CLRTRACE_READY_FD, as startup.ready; the category's own cost as
 * startup.cost. */
void ct_startup_end(struct ct_thread *t);
