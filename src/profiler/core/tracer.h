/* SPDX-License-Identifier: MIT */
/*
 * The profiler's internal API: global state, the per-thread TLS struct,
 * record emission with per-thread span nesting, names, sinks.
 */
#pragma once

#include <jansson.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/config.h"
#include "profiler/abi/corprof.h"
#include "common/vocabulary.h"
#include "profiler/core/jsonw.h"
#include "common/util.h"

struct exm; /* exceptions/machine.h */

/* A handler Enter stashed while the runtime held the exception object
 * unprotected (dotnet/runtime#132462), fed to the machine at the thread's
 * next exception callback (exceptions/deferred.c). */
struct ct_deferred {
	int kind;             /* enum exm_input_kind */
	uint64_t fn, object, frame, pc, ts;
};
#define CT_DEFERRED_MAX 4
#define CT_PINS_MAX 64 /* the machine follows at most 64 live exceptions a thread */

/* One open span on a thread's stack. */
struct ct_span {
	uint64_t id;
	uint64_t key; /* what pairs begin and end (module id, function id…) */
	uint64_t ts;
	enum ct_event event;
};

/* Everything the tracer keeps per OS thread. */
struct ct_thread {
	int tid;              /* gettid() */
	int in_callback;      /* re-entrancy guard */
	ThreadID managed_id;  /* 0 until known */
	struct ct_span *spans;
	size_t n_spans, cap_spans;
	struct exm *exm;      /* exception state machine, created on demand */
	struct ct_deferred deferred[CT_DEFERRED_MAX];
	atomic_uint n_deferred; /* atomic: the exit path may replay it (deferred.c) */
	atomic_uint deferred_lost; /* stashes that did not fit, said at the replay */
	uint64_t ts_replay;   /* nonzero: records take this time (a replay) */
	uintptr_t pins[CT_PINS_MAX]; /* pinned handles of the live exceptions, oldest first */
	unsigned n_pins;
	struct jw line;       /* the record being written */
	/* Held by this thread's callbacks (not the two that only stash), and
	 * with trylock by the exit path that ends this thread's stories from
	 * another thread (glue.c ct_exceptions_exit). */
	pthread_mutex_t lock;
	struct ct_thread *reg_next, *reg_prev; /* the registry of threads with a machine */
	bool registered;
	/* set while the exit path feeds this thread's machine from another
	 * thread: the pins stay (the thread may be inside CatcherEnter, the
	 * window they guard); the thread releases them itself later */
	bool fed_by_other;
};

/* Bytes kept in front of each record for {"v":1,"seq":N (13 + 20). */
#define CT_SEQ_ROOM 33

/* Process-wide state, set up in Initialize. */
struct ct_global {
	com_object *info;     /* ICorProfilerInfoN, highest N the runtime has */
	int info_version;
	struct ct_config cfg;
	uint64_t events;      /* bit per enum ct_event wanted (ct_wants) */
	char *program;        /* name for %n, SYSLOG_IDENTIFIER, processes filter */
	int pid;
	uint64_t start_ns;
	atomic_bool active;   /* false: every callback returns at once */
	atomic_bool shut_down;
	int runtime_major;
	bool legacy_eh;       /* .NET 8, or 9 with LegacyExceptionHandling */
};

extern struct ct_global ct;

/* This thread's state; NULL only when out of memory. */
struct ct_thread *ct_thread_get(void);
/* Put T in the registry of threads with exception state (once; T's own
 * thread, holding T->lock).  Unlisted when the thread's state is freed. */
void ct_thread_register(struct ct_thread *t);
/* Call FN on every registered thread, the registry locked: a thread cannot
 * free its state meanwhile.  FN must not block on a thread's lock. */
void ct_threads_each(void (*fn)(struct ct_thread *t, void *ud), void *ud);

/* The time of the record being built on T: now, or the replayed input's. */
static inline uint64_t ct_now(const struct ct_thread *t)
{
	return t && t->ts_replay ? t->ts_replay : now_ns();
}

static inline bool ct_on(enum ct_category c)
{
	return (ct.cfg.categories >> c) & 1u;
}

/* Is event EV wanted?  (ct.events is set once at Initialize.) */
static inline bool ct_wants(enum ct_event ev)
{
	return (ct.events >> ev) & 1u;
}

/*
 * Emit one record on the calling thread.  PAYLOAD is stolen (may be NULL).
 * PH_BEGIN pushes a span keyed by (event, key); PH_END pops the matching
 * span (spans above it that never ended are dropped from the stack, not
 * invented); an END with no matching BEGIN is reported as trace.error.
 * EXTRA_END_FIELDS on PH_END: hr etc. go in the payload as usual.
 * Returns the span id (begin/end), 0 for instants, or -errno.
 */
int64_t ct_emit(struct ct_thread *t, enum ct_event ev, enum ct_phase ph, uint64_t key, json_t *payload);

/* Report a problem of the tracer's own as a trace.error record. */
void ct_error(struct ct_thread *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Write everything buffered to every sink now; DYING: the process is about
 * to end abnormally, so do not wait on anything that may never come. */
void ct_flush_all(bool dying);

/* One line on stderr, once per KEY ("clrtrace: " is prepended). */
void ct_say_once(const char *key, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Names, cached; never NULL ("?" when unknown).  Valid until shutdown. */
const char *ct_function_name(FunctionID f);
const char *ct_class_name(ClassID c);
const char *ct_module_path(ModuleID m);
const char *ct_assembly_name(AssemblyID a);
/* JSON helpers for the common payload objects. */
json_t *ct_json_id(uint64_t id); /* "0x…" hex string */

/* Sinks (sink.c) */
int ct_sinks_open(void);
void ct_sinks_close(void);
struct ct_totals {
	uint64_t records;
	uint64_t dropped;
};
void ct_sinks_totals(struct ct_totals *out);

/* "0x%08x" of an HRESULT, for the hr field of end records. */
json_t *ct_json_hr(HRESULT hr);
/* The managed ThreadID's OS thread id, or 0. */
int ct_os_tid(ThreadID id);
