/* SPDX-License-Identifier: MIT */
/*
 * Handler Enter callbacks that run while the runtime holds the exception
 * object in an unprotected local (dotnet/runtime#132462): stashed per
 * thread, fed to the state machine at the thread's next exception callback
 * or before the thread's next record of any kind (core/emit.c).
 */
#pragma once

#include "profiler/core/tracer.h"

/* Stash a FilterEnter or CatcherEnter: no lock, no allocation, no I/O, no
 * name lookup.  Always S_OK. */
HRESULT ct_defer_enter(struct ct_thread *t, int kind, FunctionID f, ObjectID obj);

/* Feed what T has stashed, in order, each record at its own time.  Call
 * before any other exception input on T, where doing work is safe. */
void ct_deferred_replay(struct ct_thread *t);

/* glue.c: feed one stashed Enter (its name resolved now). */
void ct_exceptions_feed_stashed(struct ct_thread *t, uint64_t fn, uint64_t object, uint64_t frame, uint64_t pc,
				int kind);

/* The exit path, on another thread, holding T->lock (so T is in none of
 * its locking callbacks): feed T's stash.  False, with nothing fed, when T
 * is stashing at this moment.  T may still finish a stash it had begun
 * just before: the machine then sees a stray Enter (no live exception,
 * ignored) at T's next replay. */
bool ct_deferred_take(struct ct_thread *t);
