/* SPDX-License-Identifier: MIT */
/*
 * Whose catch ended an error (exception.error's handler.kind and label):
 * ONE table of rules, tried in order after the user's (CLRTRACE_HANDLERS),
 * first match wins.  Before the table: the async machinery's own catch,
 * told from the handler's IL (clauses.c: it calls SetException on an async
 * method builder), which a framework's async method has too; after it: a
 * catch in System.Private.CoreLib is the runtime's; anything else is the
 * program's.  Asked when the stashed CatcherEnter is replayed (deferred.c),
 * never inside the callback; the answer is cached per FunctionID and
 * handler address.
 */
#include <pthread.h>
#include <string.h>

#include "common/util.h"
#include "profiler/abi/info.h"
#include "profiler/core/module-md.h"
#include "profiler/core/names.h"
#include "profiler/core/state.h"
#include "profiler/families/exceptions/clauses.h"
#include "profiler/families/exceptions/handlers.h"

/* THE table: a prefix of the catching method's full name, and whose. */
static const struct rule {
	const char *prefix;
	enum ct_handler_kind kind;
	const char *label;
	bool final; /* a last-chance handler: its catch decides (handlers.h) */
} rules[] = {
	{ "Microsoft.AspNetCore.Server.Kestrel.Core.Internal.Http.HttpProtocol", HANDLER_FRAMEWORK, "Kestrel (500)", true },
	{ "Microsoft.AspNetCore.Server.Kestrel", HANDLER_FRAMEWORK, "Kestrel", false },
	{ "Microsoft.AspNetCore.Diagnostics.ExceptionHandlerMiddleware", HANDLER_FRAMEWORK, "exception handler (500)", true },
	{ "Microsoft.Extensions.Hosting", HANDLER_FRAMEWORK, "Generic Host (background service)", true },
	/* xunit: the aggregator that makes a test's exception its failure
	 * (a test method's arrives wrapped in the TargetInvocationException
	 * of the reflection call); Assert.Throws's catch of the exception it
	 * expects, which waits (the wrong type is wrapped in the
	 * ThrowsException that fails the test); its other catches.  With the
	 * dot: the test project's own namespace may begin with "Xunit" */
	{ "Xunit.Sdk.ExceptionAggregator", HANDLER_FRAMEWORK, "xunit (test failed)", true },
	{ "Xunit.Assert", HANDLER_FRAMEWORK, "xunit (Assert.Throws)", false },
	{ "Xunit.", HANDLER_FRAMEWORK, "xunit", false },
	{ "Microsoft.AspNetCore", HANDLER_FRAMEWORK, "Microsoft.AspNetCore", false },
	{ "Microsoft.EntityFrameworkCore", HANDLER_FRAMEWORK, "Microsoft.EntityFrameworkCore", false },
	{ "Microsoft.Extensions", HANDLER_FRAMEWORK, "Microsoft.Extensions", false },
};

#define CACHE 512 /* (FunctionID, handler address) pairs; a collision recomputes */

static struct {
	pthread_mutex_t lock;
	struct { uint64_t fn, pc; struct ct_handler h; } v[CACHE];
} cache = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* The first rule of the user's, then of the table, that NAME begins with. */
static bool by_name(const char *name, struct ct_handler *h)
{
	for (size_t i = 0; name && i < ct.cfg.handlers.n; i++)
		if (strncmp(name, ct.cfg.handlers.items[i].prefix, strlen(ct.cfg.handlers.items[i].prefix)) == 0) {
			h->kind = ct.cfg.handlers.items[i].kind;
			h->label = ct.cfg.handlers.items[i].label;
			h->final = true; /* the user's word: its catch decides */
			return true;
		}
	for (size_t i = 0; name && i < ELEMENTSOF(rules); i++)
		if (strncmp(name, rules[i].prefix, strlen(rules[i].prefix)) == 0) {
			h->kind = rules[i].kind;
			h->label = rules[i].label;
			h->final = rules[i].final;
			return true;
		}
	return false;
}

struct ct_handler ct_handler_of(FunctionID f, uint64_t pc, const char *name)
{
	size_t slot = ((f >> 3) ^ (pc >> 2)) % CACHE;
	struct ct_handler h = { .kind = HANDLER_PROGRAM };
	ClassID cls = 0;
	ModuleID mod = 0;
	mdToken tok = 0;
	bool cacheable = true;

	if (!f)
		return h;
	pthread_mutex_lock(&cache.lock);
	if (cache.v[slot].fn == f && cache.v[slot].pc == pc) {
		h = cache.v[slot].h;
		pthread_mutex_unlock(&cache.lock);
		return h;
	}
	pthread_mutex_unlock(&cache.lock);
	switch (ct_catch_stores_task(f, pc)) { /* PC 0: by every catch of F */
	case EXM_KNOW_YES:
		h.kind = HANDLER_ASYNC;
		break;
	case EXM_KNOW_UNKNOWN:
		cacheable = false; /* the next one may tell */
		/* fall through */
	default:
		if (by_name(name, &h))
			break;
		if (SUCCEEDED(info_GetFunctionInfo(ct.info, f, &cls, &mod, &tok)) && mod && ct_module_is_corelib(mod))
			h.kind = HANDLER_RUNTIME;
		break;
	}
	if (cacheable) {
		pthread_mutex_lock(&cache.lock);
		cache.v[slot].fn = f;
		cache.v[slot].pc = pc;
		cache.v[slot].h = h;
		pthread_mutex_unlock(&cache.lock);
	}
	return h;
}
