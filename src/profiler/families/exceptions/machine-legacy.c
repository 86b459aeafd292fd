/* SPDX-License-Identifier: MIT */
/* The exception machine's legacy (.NET 8) exception handling rules: see machine-legacy.h. */
#include "profiler/families/exceptions/machine-legacy.h"

void exl_start(struct exl *l, const struct exm_input *in)
{
	l->on = in->legacy;
	l->stack_depth = in->stack_depth;
	l->native_depth = in->native_depth;
	l->native_boundary = in->native_boundary;
}

void exl_frame_entered(struct exl *l)
{
	l->boundary_pending = false;
}

/* The outermost frame searched without a catcher, or the last before a
 * reverse P/Invoke (native frames below it, or it is an
 * [UnmanagedCallersOnly] method: in->verdict), is the last callback before
 * the process dies; the last before the runtime's own native code may be
 * a boundary, known when the second pass starts. */
enum exm_verdict exl_frame_searched(struct exl *l, const struct exm_input *in)
{
	if (l->stack_depth) {
		l->frames_searched++;
		if (l->frames_searched == l->native_depth && l->native_boundary) {
			l->boundary_pending = true;
			return EXM_VERDICT_BOUNDARY;
		}
	}
	if (in->verdict == EXM_VERDICT_UNHANDLED ||
	    (l->stack_depth && (l->frames_searched >= l->stack_depth || l->frames_searched == l->native_depth)))
		return EXM_VERDICT_UNHANDLED;
	return EXM_VERDICT_UNKNOWN;
}

void exl_maybe_left(struct exl *l, uint64_t by, bool repeated)
{
	l->maybe_superseded_by = by;
	l->maybe_rethrown = repeated;
}

/* A catch or finally that an inner exception may have left ends with its
 * own Leave; anything else first means it was left. */
bool exl_left_at(struct exl *l, const struct exm_input *in, enum exm_input_kind leave, uint64_t handler_fp)
{
	if (in->kind == leave && (!in->frame || in->frame == handler_fp)) {
		l->maybe_superseded_by = 0;
		return false;
	}
	return true;
}

/* The clause table tells whether the catch or finally below, in the same
 * frame, holds the catch that ended (it goes on) or not (it was left). */
bool exl_left_by_catch(struct exl *l, uint64_t id, const struct exm_input *in)
{
	if (l->maybe_superseded_by != id || in->within_outer == EXM_KNOW_UNKNOWN)
		return false;
	if (in->within_outer == EXM_KNOW_YES) {
		l->maybe_superseded_by = 0;
		return false;
	}
	return true;
}

enum ct_outcome exl_left_outcome(const struct exl *l)
{
	return l->maybe_rethrown ? OUTCOME_RETHROWN : OUTCOME_SUPERSEDED;
}
