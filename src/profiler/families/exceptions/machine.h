/* SPDX-License-Identifier: MIT */
/*
 * The per-thread exception state machine: pure C, fed with already-resolved
 * inputs (names, types), emitting records through an emitter interface so
 * unit tests can replay callback sequences without a runtime.
 *
 * The records it writes (exception.throw, the pass and handler spans,
 * exception.unhandled, exception.summary) and every field of them are
 * described in clrtrace-records(5) (man/clrtrace-records.5) and
 * schemas/record.schema.json; that is their one description.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "common/vocabulary.h"
#include "profiler/core/jsonw.h"

enum exm_input_kind {
	EXM_THROWN,
	EXM_SEARCH_ENTER,
	EXM_SEARCH_LEAVE,
	EXM_FILTER_ENTER,
	EXM_FILTER_LEAVE,
	EXM_CATCHER_FOUND,
	EXM_UNWIND_ENTER,
	EXM_UNWIND_LEAVE,
	EXM_FINALLY_ENTER,
	EXM_FINALLY_LEAVE,
	EXM_CATCH_ENTER,
	EXM_CATCH_LEAVE,
	EXM_THREAD_END,
	EXM_EXIT,             /* the process exits (Shutdown, exit()) */
	_EXM_INPUT_MAX,
	_EXM_INPUT_INVALID = -1,
};

/* "thrown", "search_enter", … (the fixture vocabulary) */
extern const char *const exm_input_names[_EXM_INPUT_MAX];
enum exm_input_kind exm_input_from_string(const char *s);

/* Where a search that found no catcher ended (new exception handling),
 * decided by the glue from a stack snapshot before the first unwind input:
 * unknown is taken as unhandled. */
enum exm_verdict { EXM_VERDICT_UNKNOWN, EXM_VERDICT_UNHANDLED, EXM_VERDICT_BOUNDARY, _EXM_VERDICT_MAX };
extern const char *const exm_verdict_names[_EXM_VERDICT_MAX];
/* What the glue could learn from a method's clause table. */
enum exm_know { EXM_KNOW_UNKNOWN = 0, EXM_KNOW_NO, EXM_KNOW_YES };

/* One callback, resolved. */
struct exm_input {
	enum exm_input_kind kind;
	uint64_t fn;          /* function identity: enter kinds, catcher found */
	/* its name (NULL only for muted exceptions); kept, not copied: it
	 * must stay valid while the machine lives (the glue's names are
	 * cached for the whole process) */
	const char *function;
	uint64_t object;      /* THROWN, CATCH_ENTER: object identity */
	uint64_t frame;       /* handler enter/leave: clause frame pointer, 0 unknown */
	/* THROWN only: */
	const char *type;
	const char *message;  /* NULL: none */
	int32_t hresult;
	bool has_hresult;
	bool no_message;      /* leave the message field out entirely */
	bool traced;          /* the object already holds a stack trace */
	bool muted;           /* filtered out: follow it, emit nothing */
	uint64_t inner;       /* its InnerException's object identity, 0: none */
	uint64_t type_id;     /* its type's identity (a ClassID), 0: unknown */
	/* its identity that survives a compacting GC, when the glue has one
	 * (a weak handle, ident.c; 0: none, the address is all there is):
	 * the handle of the open error whose object this is
	 * (exm_errors_identify), or, with handle_new, a new handle on it that
	 * the machine takes over and gives back through
	 * exm_emitter.handle_free (at once when no error keeps it) */
	uint64_t handle;
	bool handle_new;
	/* ... and its InnerException's: the handle of the open error whose
	 * object that is (0: none), and whether the glue could ask
	 * (inner_checked: then an address match with an error that has a
	 * handle is another object at that address) */
	uint64_t inner_handle;
	bool inner_checked;
	/* fields the glue adds at the end of exception.throw (the inner
	 * chain), and at the end of both exception.throw and
	 * exception.summary (the stack); borrowed, NULL: none */
	struct jw_text *throw_fields; /* borrowed */
	struct jw_text *story_fields; /* borrowed; the machine keeps a reference */
	/* fields the glue adds at the end of exception.error when this throw
	 * begins an error (the request), as members text; borrowed, NULL:
	 * none */
	struct jw_text *error_fields;
	/* THROWN, legacy exception handling only (.NET 8): managed frames on
	 * the stack at the throw.  There the search pass of an unhandled
	 * exception is the last thing the runtime reports (no second pass):
	 * once it has left that many frames without a catcher, the verdict is
	 * unhandled.  0: unknown, or new exception handling. */
	unsigned stack_depth;
	/* ... and how many of them come before the first run of native frames
	 * (0: none), and whether that run is a boundary (the runtime's own
	 * code, with managed frames below it) rather than fatal (the end of
	 * the managed stack, or a reverse P/Invoke). */
	unsigned native_depth;
	bool native_boundary;
	/* THROWN: legacy exception handling, where a handler's frame is its
	 * method's, so a catch inside a catch block reports the outer catch's
	 * frame: whether the outer catch was left is only known later. */
	bool legacy;
	/* UNWIND_ENTER, UNWIND_LEAVE, new exception handling: the first
	 * unwind input after a search that found no catcher (exm_search_failed).
	 * SEARCH_LEAVE, legacy exception handling (exm_search_frame): UNHANDLED
	 * when the frame left is an [UnmanagedCallersOnly] method, the managed
	 * side of a reverse P/Invoke: the search ends there, fatally, whatever
	 * frames lie below (managed code that called it through a
	 * delegate* unmanaged has no native frame between). */
	enum exm_verdict verdict;
	/* ... when the verdict is unhandled: how many finally/fault clauses of
	 * the last frame searched cover its call site (0: none, or unknown).
	 * The process dies after they ran, unless one replaces the exception. */
	unsigned last_finallys;
	/* FINALLY_ENTER, CATCH_ENTER: the handler's code address (clause
	 * program counter), 0 unknown; the glue passes it back to ask
	 * exm_catch_within about it */
	uint64_t pc;
	/* CATCH_LEAVE, only when exm_catch_within asks (legacy EH): does the
	 * catch or finally still open below, in the same frame, hold the catch
	 * being left (YES: it goes on) or was it left (NO: superseded)? */
	enum exm_know within_outer;
	/* CATCHER_FOUND, only when a filter of the same function is waiting
	 * for its result (exm_filter_waits): can a plain catch of that method
	 * take an exception one of its filters declined?  NO: a catcher found
	 * right after the filter means it returned true. */
	enum exm_know catch_after_filter;
	/* CATCH_LEAVE, only when exm_catch_decides: is the handler that ran a
	 * filter clause's (the last filter of that frame returned true) or a
	 * plain catch's (it returned false)? */
	enum exm_know ran_filter_handler;
	/* CATCH_ENTER: whose catch it is (the glue's handlers.c table), and
	 * the label of a framework's (static or cached for the process;
	 * NULL: none).  Decides the fate of an error it ends (exception.error). */
	enum ct_handler_kind handler_kind;
	const char *handler_label;
	bool handler_final;   /* a framework's last-chance catch: it decides */
	/* FILTER_ENTER: the filter is the runtime's own, not the program's
	 * (a method the runtime calls the program through, such as .NET 11's
	 * System.Environment.CallEntryPoint; the glue's rtframes.c) */
	bool runtime;
};

/* The machine's records are the vocabulary's exception.* events
 * (EV_EXCEPTION_*), in its phases (PH_*), with its outcomes (OUTCOME_*). */

/* Where the machine's output goes.  Spans pair by (event, key). */
struct exm_emitter {
	void *userdata;
	/* One record with the typed payload F, borrowed and written before
	 * it returns. */
	void (*record)(void *ud, enum ct_event ev, enum ct_phase ph, uint64_t key, const struct jw_fields *f);
	/* Is EV written at all?  NULL: every event.  Lets the machine skip
	 * building payloads that would be thrown away. */
	bool (*wants)(void *ud, enum ct_event ev);
	void (*error)(void *ud, const char *msg);
	/* An exception went unhandled: the process is about to die. */
	void (*dying)(void *ud);
	uint64_t (*now)(void *ud);
	/* Optional: the OS thread id of the caller (exception.error's
	 * origin.tid); NULL: 0. */
	int64_t (*tid)(void *ud);
	/* Optional: IN, a THROWN input not muted, begins a new error (not a
	 * throw again of one already followed): are its records written?
	 * false samples it out: it is followed like the others, its later
	 * throws inherit the answer, and of all its records only
	 * exception.unhandled and an exception.error whose fate is unhandled
	 * or handled_by_framework are written, with "sampled": true.  Its
	 * stories are not in exm_totals.  NULL: every error is kept. */
	bool (*keep)(void *ud, const struct exm_input *in);
	/* Optional: destroy HANDLE (exm_input.handle), which no error holds
	 * any more; NULL: the handles are left to the process's end. */
	void (*handle_free)(void *ud, uint64_t handle);
};

struct exm;

/* A new, empty machine; NULL on ENOMEM. */
struct exm *exm_new(void);
/* Free without emitting anything (the thread is gone). */
void exm_free(struct exm *m);
/* Feed one input. */
void exm_feed(struct exm *m, const struct exm_input *in, const struct exm_emitter *e);
/* Is the innermost live exception muted (so names need not be resolved)? */
bool exm_top_muted(const struct exm *m);
/* Is an unhandled exception unwinding on this thread (flush after each)? */
bool exm_dying(const struct exm *m);
/* Did the innermost exception's search end with no catcher, so that the
 * next unwind input needs a verdict (exm_input.verdict)?  *LAST: the
 * function of the last frame searched. */
bool exm_search_failed(const struct exm *m, uint64_t *last);
/* Legacy EH: is the innermost exception searching a frame with no catcher
 * found yet, so that the glue may say its search ends with that frame
 * (exm_input.verdict on its SEARCH_LEAVE)?  *FN: that frame's function. */
bool exm_search_frame(const struct exm *m, uint64_t *fn);
/* Is a filter of function FN waiting for its result, which a catcher found
 * in FN decides (the glue then fills catch_after_filter)?  *TYPE_ID (may
 * be NULL): the type_id of the exception the filter saw. */
bool exm_filter_waits(const struct exm *m, uint64_t fn, uint64_t *type_id);
/* Does the next catch leave decide a filter's result (the glue then fills
 * ran_filter_handler)? */
bool exm_catch_decides(const struct exm *m);
/* Legacy EH: is the next catch leave that of a catch in the same frame as
 * a catch or finally still open below it, which it may have left (the glue
 * then fills within_outer)?  *OUTER_PC: that handler's pc. */
bool exm_catch_within(const struct exm *m, uint64_t *outer_pc);
/* How many live exceptions the thread has. */
size_t exm_depth(const struct exm *m);

/* Process-wide outcome counts (muted exceptions excluded). */
void exm_totals(uint64_t out[_OUTCOME_MAX]);
/* Exceptions thrown whose story has no summary yet (muted excluded). */
uint64_t exm_open(void);
/* Start the counts anew (a new trace after a detach: no story is live);
 * the errors still pending and the recently caught exceptions are
 * forgotten (exm_errors_flush first). */
void exm_totals_reset(void);

/* ERRORS.  An error is one exception object, from its first throw to its
 * fate (exception.error, see DESIGN.md "Exceptions").  The errors not yet
 * decided live in one process-wide table of EXM_ERRORS_MAX entries, not
 * in a thread's machine: an await's continuation throws the same object
 * again on another thread.  When the table is full, a new error evicts
 * the oldest one that waits in a Task or in the runtime's hands (stored,
 * handled_by_runtime): that one is written at once with the fate it had
 * then (counted as evicted); when none waits, the new error is not
 * followed (counted as untracked): its records carry "error", but no
 * exception.error is written for it. */
#define EXM_ERRORS_MAX 512
/* Write exception.error for every error still in the table (the exit, or a
 * detach): stored, handled_by_runtime, unhandled or open. */
void exm_errors_flush(const struct exm_emitter *e);
/* Errors evicted from the full table, and not followed at all. */
void exm_errors_counts(uint64_t *evicted, uint64_t *untracked);
/* IDENTITY.  The handle of the open error of type TYPE_ID whose handle
 * RESOLVE (the glue's: the object a handle holds now, 0: collected) says
 * holds OBJECT, or 0: none.  Only errors of that type are resolved (a
 * type identity does not move), and when OBJECT holds no stack trace
 * (!TRACED: a first throw, or `throw ex;`, which clears it on .NET 9+)
 * only those last seen at OBJECT's address: a thread that throws new
 * exceptions while hundreds of that type wait in Tasks would pay for them
 * all.  RESOLVE is called with the table locked, so that no handle is
 * destroyed meanwhile. */
uint64_t exm_errors_identify(uint64_t type_id, uint64_t object, bool traced, uint64_t (*resolve)(uint64_t handle));
