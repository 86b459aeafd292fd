/* SPDX-License-Identifier: MIT */
/* Allocation failure injection and leak count (see chaos.h). */
#include <errno.h>
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chaos.h"
#include "unit.h"

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t n);
void *__real_reallocarray(void *p, size_t n, size_t size);
char *__real_strdup(const char *s);
char *__real_strndup(const char *s, size_t n);
void __real_free(void *p);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t n);
void *__wrap_reallocarray(void *p, size_t n, size_t size);
char *__wrap_strdup(const char *s);
char *__wrap_strndup(const char *s, size_t n);
void __wrap_free(void *p);
json_t *__real_json_loadb(const char *buf, size_t len, size_t flags, json_error_t *err);
json_t *__wrap_json_loadb(const char *buf, size_t len, size_t flags, json_error_t *err);

/* What one run did: the allocations it made, whether one was failed, and
 * how many of its allocations are still live. */
struct chaos_run {
	long allocs;
	bool failed;
	long live;
};

static long fail_at;  /* the allocation of the run to fail (1-based); 0: none */
static long count;    /* allocations in the run so far */
static bool failed, tracking;
static int paused;

/* The live allocations of the run: an open-addressed set of pointers. */
#define LIVE_SLOTS (1u << 16)
#define TOMB ((uintptr_t)1)
static uintptr_t live[LIVE_SLOTS];
static long n_live;

static size_t slot_of(uintptr_t p)
{
	return (size_t)((p >> 4) * 0x9E3779B97F4A7C15ull >> 48) & (LIVE_SLOTS - 1);
}

static void live_add(void *p)
{
	if (!p || !tracking || paused)
		return;
	for (size_t i = slot_of((uintptr_t)p), k = 0; k < LIVE_SLOTS; i = (i + 1) & (LIVE_SLOTS - 1), k++)
		if (live[i] == 0 || live[i] == TOMB) {
			live[i] = (uintptr_t)p;
			n_live++;
			return;
		}
}

static void live_del(void *p)
{
	if (!p || !n_live)
		return;
	for (size_t i = slot_of((uintptr_t)p), k = 0; k < LIVE_SLOTS && live[i]; i = (i + 1) & (LIVE_SLOTS - 1), k++)
		if (live[i] == (uintptr_t)p) {
			live[i] = TOMB;
			n_live--;
			return;
		}
}

/* Should this allocation fail? */
static bool fail_now(void)
{
	if (!tracking || paused)
		return false;
	if (++count != fail_at)
		return false;
	failed = true;
	return true;
}

void *__wrap_malloc(size_t n)
{
	void *p;

	if (fail_now()) {
		errno = ENOMEM;
		return NULL;
	}
	p = __real_malloc(n);
	live_add(p);
	return p;
}

void *__wrap_calloc(size_t n, size_t size)
{
	void *p;

	if (fail_now()) {
		errno = ENOMEM;
		return NULL;
	}
	p = __real_calloc(n, size);
	live_add(p);
	return p;
}

void *__wrap_realloc(void *old, size_t n)
{
	void *p;

	if (fail_now()) {
		errno = ENOMEM;
		return NULL;
	}
	p = __real_realloc(old, n);
	if (p || !n) {
		live_del(old);
		live_add(p);
	}
	return p;
}

void *__wrap_reallocarray(void *old, size_t n, size_t size)
{
	void *p;

	if (fail_now()) {
		errno = ENOMEM;
		return NULL;
	}
	p = __real_reallocarray(old, n, size);
	if (p) {
		live_del(old);
		live_add(p);
	}
	return p;
}

char *__wrap_strdup(const char *s)
{
	char *p;

	if (fail_now()) {
		errno = ENOMEM;
		return NULL;
	}
	p = __real_strdup(s);
	live_add(p);
	return p;
}

char *__wrap_strndup(const char *s, size_t n)
{
	char *p;

	if (fail_now()) {
		errno = ENOMEM;
		return NULL;
	}
	p = __real_strndup(s, n);
	live_add(p);
	return p;
}

void __wrap_free(void *p)
{
	live_del(p);
	__real_free(p);
}

/* jansson 2.14's parser does not survive a failed allocation (its lexer
 * ignores a failed append to the text it saves, then writes past it): a
 * parse is never failed, the rest of jansson is. */
json_t *__wrap_json_loadb(const char *buf, size_t len, size_t flags, json_error_t *err)
{
	json_t *j;

	paused++;
	j = __real_json_loadb(buf, len, flags, err);
	paused--;
	if (j && !json_is_null(j) && !json_is_boolean(j)) /* the singletons are never freed */
		live_add(j);
	return j;
}

bool chaos_failed(void)
{
	return failed;
}

void chaos_pause(void)
{
	paused++;
}

void chaos_resume(void)
{
	paused--;
}

/* jansson allocates through the wrappers too (its own calls to malloc are
 * in a shared library, out of --wrap's reach). */
static void *json_malloc(size_t n)
{
	return __wrap_malloc(n);
}

static void json_free(void *p)
{
	__wrap_free(p);
}

/* One run of OP with the Nth allocation failed (0: none). */
static struct chaos_run run(chaos_op op, void *ud, long n, bool *clean)
{
	struct chaos_run r;

	memset(live, 0, sizeof(live));
	n_live = 0;
	fail_at = n;
	count = 0;
	failed = false;
	tracking = true;
	*clean = op(ud);
	tracking = false;
	r = (struct chaos_run){ .allocs = count, .failed = failed, .live = n_live };
	return r;
}

/* Fail each allocation in turn (see chaos.h). */
int chaos_each(const char *name, chaos_op op, void *ud, long max)
{
	long n, bad = 0, leaky = 0, first_bad = 0, first_leak = 0, leaked = 0;
	struct chaos_run r = { 0 };
	int before = failures;
	bool clean;

	json_set_alloc_funcs(json_malloc, json_free);
	for (n = 1; n <= max; n++) {
		r = run(op, ud, n, &clean);
		if (!clean && !bad++)
			first_bad = n;
		if (r.live && !leaky++) {
			first_leak = n;
			leaked = r.live;
		}
		if (!r.failed)
			break;
	}
	CHECK(!r.failed, "%s: after %ld runs, one where no allocation failed (%ld allocations)", name, n - 1, r.allocs);
	if (bad)
		CHECK(0, "%s: %ld of %ld runs end uncleanly (neither -ENOMEM nor the whole result), the first failing "
		      "allocation %ld", name, bad, n, first_bad);
	else
		CHECK(1, "%s: each of the %ld runs ends cleanly", name, n);
	if (leaky)
		CHECK(0, "%s: %ld runs leak, the first failing allocation %ld (%ld left live)", name, leaky, first_leak,
		      leaked);
	else
		CHECK(1, "%s: no run leaks", name);
	return failures - before;
}
