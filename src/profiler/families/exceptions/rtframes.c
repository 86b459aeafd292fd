/* SPDX-License-Identifier: MIT */
/*
 * The runtime's own frames: methods of System.Private.CoreLib that the
 * runtime calls the program's code through, whose exception clauses the
 * profiling API reports like the program's.  .NET 11 calls Main through
 * System.Environment.CallEntryPoint, whose `catch when` filter runs for
 * every exception that goes unhandled on the main thread, and the runtime's
 * unhandled-exception report runs inside it; a Thread's start and the
 * thread pool's dispatch have such filters too (.NET 9 and later).
 *
 * Identity: the method's module is CoreLib and its MethodDef token is one
 * that the table below names.  The names are resolved to tokens once, in
 * CoreLib's metadata, the first time a CoreLib function is asked about;
 * each FunctionID's answer is cached.  The callers ask outside the
 * FilterEnter callback (deferred.c replays it later).
 */
#include <pthread.h>
#include <stdint.h>

#include "common/u64map.h"
#include "common/util.h"
#include "profiler/abi/info.h"
#include "profiler/core/module-md.h"
#include "profiler/core/names.h"
#include "profiler/core/say.h"
#include "profiler/core/state.h"
#include "profiler/families/exceptions/rtframes.h"

/* THE table of the runtime's frames: CoreLib's (namespace, type, method). */
static const struct {
	const char *ns, *type, *method;
} frames[] = {
	{ "System", "Environment", "CallEntryPoint" },             /* Main's caller (.NET 11) */
	{ "System.Threading", "Thread", "StartCallback" },         /* a Thread's start */
	{ "System.Threading", "ThreadPoolWorkQueue", "Dispatch" }, /* thread pool work items */
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
/* lock guards all four */
static int resolved;                           /* 0 not yet, 1 done, -errno failed */
static ModuleID corelib;                       /* where the tokens are */
static mdMethodDef tokens[ELEMENTSOF(frames)]; /* 0: not in this CoreLib */
static struct u64map answers;                  /* FunctionID -> ANSWER_YES / ANSWER_NO */

#define ANSWER_NO ((void *)1)
#define ANSWER_YES ((void *)2)

/* The table's tokens in CoreLib module MOD, into TOK.  0 or -errno. */
static int resolve(ModuleID mod, mdMethodDef tok[ELEMENTSOF(frames)])
{
	struct md md;
	int k = ct_module_md(mod, &md);

	if (k < 0)
		return k;
	for (size_t i = 0; i < ELEMENTSOF(frames); i++) {
		uint32_t type, method;

		tok[i] = 0;
		if (md_find_type(&md, frames[i].ns, frames[i].type, &type) == 0 &&
		    md_find_method(&md, type, frames[i].method, &method) == 0)
			tok[i] = MD_TOKEN(MD_METHODDEF, method);
	}
	return 0;
}

/* Is (MOD, TOK) a frame of the table?  Calls into the runtime: not under
 * the lock. */
static bool is_frame(ModuleID mod, mdToken tok)
{
	bool yes = false;

	pthread_mutex_lock(&lock);
	int state = resolved;
	pthread_mutex_unlock(&lock);
	if (!state && ct_module_is_corelib(mod)) {
		mdMethodDef found[ELEMENTSOF(frames)];
		int k = resolve(mod, found);

		if (k < 0)
			ct_say_once("rtframes", "System.Private.CoreLib's metadata does not read (%s); the runtime's own frames are not told apart",
				    strerror(-k));
		pthread_mutex_lock(&lock);
		if (!resolved) { /* or another thread did it first: the same */
			resolved = k < 0 ? k : 1;
			corelib = mod;
			memcpy(tokens, found, sizeof(tokens));
		}
		pthread_mutex_unlock(&lock);
	}
	pthread_mutex_lock(&lock);
	for (size_t i = 0; resolved > 0 && mod == corelib && i < ELEMENTSOF(frames); i++)
		yes |= tokens[i] && tokens[i] == tok;
	pthread_mutex_unlock(&lock);
	return yes;
}

bool ct_runtime_frame(FunctionID f)
{
	ClassID cls = 0;
	ModuleID mod = 0;
	mdToken tok = 0;
	void *a, **slot;

	if (!f)
		return false;
	pthread_mutex_lock(&lock);
	a = u64map_get(&answers, f);
	pthread_mutex_unlock(&lock);
	if (a)
		return a == ANSWER_YES;
	if (FAILED(info_GetFunctionInfo(ct.info, f, &cls, &mod, &tok)) || !mod)
		return false; /* not cached: the id may not be ready yet */
	a = is_frame(mod, tok) ? ANSWER_YES : ANSWER_NO;
	pthread_mutex_lock(&lock);
	slot = u64map_slot(&answers, f);
	if (slot)
		*slot = a;
	pthread_mutex_unlock(&lock);
	return a == ANSWER_YES;
}
