/* SPDX-License-Identifier: MIT */
/*
 * The exception machine's rules for .NET 8's legacy exception handling;
 * machine.c holds the new ones (.NET 9 and later) and calls these only for
 * a story thrown under legacy EH.  Two things differ there.  The runtime
 * never says that a search found no catcher (no second pass follows), so
 * the stack snapshot at the throw (exm_input.stack_depth, native_depth)
 * counts the frames the search may take.  And a handler's frame is its
 * method's, so a handler of an inner exception in the frame of an outer
 * one's open catch or finally may be inside that block or past it: what
 * comes next tells.  Pure C, like the machine: it knows its own state and
 * the inputs, and machine.c acts on its answers.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "profiler/families/exceptions/machine.h"

/* The legacy-EH state of one story (all zero under new EH). */
struct exl {
	bool on;                  /* legacy EH handles it (exm_input.legacy) */
	unsigned stack_depth;     /* exm_input's, at the throw */
	unsigned native_depth;
	bool native_boundary;
	unsigned frames_searched; /* frames left without a catcher */
	bool boundary_pending;    /* the search stopped at a boundary, unless it goes on */
	/* an inner exception reached a handler in the frame of this story's
	 * open catch or finally: it may have left it (superseded, or rethrown
	 * when it is the same object); decided by what comes next; 0: none */
	uint64_t maybe_superseded_by;
	bool maybe_rethrown;
};

/* A story starts with the throw IN. */
void exl_start(struct exl *l, const struct exm_input *in);
/* A frame's search begins: the search went past any boundary. */
void exl_frame_entered(struct exl *l);
/* The search of a frame ended (IN: its SEARCH_LEAVE), no catcher found,
 * not inside a filter: UNKNOWN, the search goes on; BOUNDARY, it stopped
 * at the runtime's own native code (if the second pass starts next);
 * UNHANDLED, it ended there and the process dies. */
enum exm_verdict exl_frame_searched(struct exl *l, const struct exm_input *in);
/* The exception BY (REPEATED: the same object again) reached a handler in
 * the frame of this story's open handler. */
void exl_maybe_left(struct exl *l, uint64_t by, bool repeated);
/* With that pending, the next input IN: true when it means the handler was
 * left, false when it is the handler's own Leave (a LEAVE at HANDLER_FP). */
bool exl_left_at(struct exl *l, const struct exm_input *in, enum exm_input_kind leave, uint64_t handler_fp);
/* The catch of exception ID ended (IN: its CATCH_LEAVE, whose within_outer
 * the glue filled): did it leave this story's handler? */
bool exl_left_by_catch(struct exl *l, uint64_t id, const struct exm_input *in);
/* The outcome of a story whose handler was left. */
enum ct_outcome exl_left_outcome(const struct exl *l);
