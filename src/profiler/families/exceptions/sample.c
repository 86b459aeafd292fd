/* SPDX-License-Identifier: MIT */
/*
 * Which errors are written in full, decided once per error at its first
 * throw (the machine asks, exm_emitter.keep; its later throws inherit):
 *  - a CLRTRACE_EXCEPTIONS Type:N limit: N errors of the type a second;
 *  - the CLRTRACE_BUDGET, a token bucket of ERRORS tokens refilled at
 *    ERRORS per SECONDS: an error that finds a token is kept; one that
 *    finds none is kept when it is the first of its (type, site) seen so,
 *    else sampled out (so past the budget the bucket's refill is the
 *    sample: at most ERRORS per SECONDS on average, plus the firsts).
 * The site is the method that threw, the first managed frame of the
 * throwing thread's stack: one frame of a stack snapshot, taken only for
 * an error that found no token or went over its type's limit.
 * What is left out is counted by (type, site, reason), and said in
 * trace.left_out: at most every PERIOD_NS while errors are left out, and
 * at the end of the trace.  The machine still follows a sampled error and
 * writes its verdict and exception.error when it is fatal.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "profiler/abi/info.h"
#include "profiler/core/emit.h"
#include "profiler/core/names.h"
#include "profiler/core/say.h"
#include "profiler/core/tracer.h"
#include "profiler/families/exceptions/sample.h"

#define PERIOD_NS (10ull * 1000000000u) /* trace.left_out at most this often */
#define SEEN_MAX 4096u                  /* (type, site) pairs remembered */
#define LEFT_MAX 1024u                  /* (type, site, reason) counted apart */

enum reason { REASON_BUDGET, REASON_TYPE_LIMIT, _REASON_MAX };
static const char *const reason_names[_REASON_MAX] = { [REASON_BUDGET] = "budget",
						       [REASON_TYPE_LIMIT] = "type_limit" };

/* A Type:N limit's count for one type. */
struct type_count {
	char *type;
	uint64_t window; /* the second being counted */
	unsigned in_window;
	uint64_t suppressed;
};

/* What was left out of one (type, site, reason); type and site NULL: the
 * rest, once LEFT_MAX keys are taken. */
struct left {
	char *type, *site;
	enum reason reason;
	uint64_t count; /* since its last trace.left_out */
	uint64_t total;
};

/* lock guards everything below */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct type_count *counts;
static size_t n_counts;
static struct left *lefts;
static size_t n_lefts;
static uint64_t left_total, unsaid, last_said_ns;
/* the budget's bucket: tokens in millionths, refilled at each ask */
static uint64_t tokens, tokens_ns;
static bool tokens_init;
/* (type, site) pairs seen past the budget: hash of the type, FunctionID */
static struct {
	uint64_t type_hash, fn;
} seen[SEEN_MAX];
static size_t n_seen;

static uint64_t hash64(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	for (; s && *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

/* Under TYPE's limit this second?  Counts what it suppresses (locked). */
static bool type_limit_ok(const char *type, unsigned limit)
{
	uint64_t sec = now_ns() / 1000000000u;
	struct type_count *c = NULL;

	for (size_t i = 0; i < n_counts; i++)
		if (strcmp(counts[i].type, type) == 0) {
			c = &counts[i];
			break;
		}
	if (!c) {
		struct type_count *n = realloc(counts, (n_counts + 1) * sizeof(*n));
		char *dup = strdup(type);

		if (!n || !dup) {
			if (n)
				counts = n;
			free(dup);
			return true; /* cannot count: let it through */
		}
		counts = n;
		c = &counts[n_counts++];
		*c = (struct type_count){ .type = dup, .window = sec };
	}
	if (c->window != sec) {
		c->window = sec;
		c->in_window = 0;
	}
	if (c->in_window < limit) {
		c->in_window++;
		return true;
	}
	c->suppressed++;
	return false;
}

/* A token of the budget, if one is left (locked). */
static bool budget_take(void)
{
	const uint64_t unit = 1000000u, cap = (uint64_t)ct.cfg.budget_errors * unit;
	uint64_t now = mono_ns();

	if (!tokens_init) {
		tokens_init = true;
		tokens = cap;
		tokens_ns = now;
	} else if (now > tokens_ns) {
		uint64_t dt = now - tokens_ns, full = (uint64_t)ct.cfg.budget_interval_s * 1000000000u;
		/* ERRORS per SECONDS: errors * 1e6 / (seconds * 1e9) per ns;
		 * dt < full keeps the product below 2^64 */
		uint64_t add = dt >= full ? cap : dt / 1000u * ct.cfg.budget_errors / ct.cfg.budget_interval_s;

		tokens = add >= cap - tokens ? cap : tokens + add;
		tokens_ns = now;
	}
	if (tokens < unit)
		return false;
	tokens -= unit;
	return true;
}

/* The first managed frame of this thread's stack: DoStackSnapshot's
 * callback stops there. */
static HRESULT top_frame(FunctionID f, UINT_PTR ip, UINT_PTR frame, uint32_t n, uint8_t *ctx, void *data)
{
	if (!f)
		return S_OK; /* the runtime's own frames above the throw */
	*(FunctionID *)data = f;
	return 1; /* S_FALSE: stop the walk */
}

/* The method that threw, 0 when the runtime will not say. */
static FunctionID throw_site(void)
{
	FunctionID f = 0;

	(void)info_DoStackSnapshot(ct.info, 0, top_frame, 0, &f, NULL, 0);
	return f;
}

/* Is (TYPE_HASH, FN) seen for the first time past the budget?  Remembers
 * it (locked); a full table says no: a first occurrence is then sampled
 * like the rest. */
static bool first_seen(uint64_t type_hash, FunctionID fn)
{
	for (size_t i = 0; i < n_seen; i++)
		if (seen[i].type_hash == type_hash && seen[i].fn == fn)
			return false;
	if (n_seen == SEEN_MAX) {
		ct_say_once("sample-seen", "more than %u exception types and sites past CLRTRACE_BUDGET: the first "
			    "of each further one is sampled like the rest", SEEN_MAX);
		return false;
	}
	seen[n_seen].type_hash = type_hash;
	seen[n_seen].fn = fn;
	n_seen++;
	return true;
}

/* Count one error of TYPE thrown in SITE left out for REASON (locked). */
static void left_out(const char *type, const char *site, enum reason reason)
{
	struct left *l = NULL;

	for (size_t i = 0; i < n_lefts && !l; i++)
		if (lefts[i].reason == reason && lefts[i].type && strcmp(lefts[i].type, type) == 0 &&
		    strcmp(lefts[i].site, site) == 0)
			l = &lefts[i];
	if (!l && n_lefts < LEFT_MAX) {
		struct left *n = realloc(lefts, (n_lefts + 1) * sizeof(*n));
		char *t = strdup(type), *s = strdup(site);

		if (n)
			lefts = n;
		if (n && t && s) {
			l = &lefts[n_lefts++];
			*l = (struct left){ .type = t, .site = s, .reason = reason };
		} else {
			free(t);
			free(s);
		}
	}
	/* past LEFT_MAX keys (or out of memory): the rest, by reason */
	for (size_t i = 0; i < n_lefts && !l; i++)
		if (!lefts[i].type && lefts[i].reason == reason)
			l = &lefts[i];
	if (!l) {
		struct left *n = realloc(lefts, (n_lefts + 1) * sizeof(*n));

		if (!n) {
			ct_say_once("sample-oom", "out of memory counting the errors left out; "
				    "trace.left_out counts fewer than were");
			return;
		}
		lefts = n;
		l = &lefts[n_lefts++];
		*l = (struct left){ .reason = reason };
	}
	l->count++;
	l->total++;
	left_total++;
	unsaid++;
}

bool ct_sample_keep(void *ud, const struct exm_input *in)
{
	struct ct_thread *t = ud;
	const char *type = in->type ? in->type : "?", *name;
	unsigned limit = 0;
	enum reason why = REASON_BUDGET;
	FunctionID site;
	bool keep;

	if (ct.cfg.exceptions.n)
		(void)globs_match(&ct.cfg.exceptions, type, &limit);
	if (!limit && !ct.cfg.budget_errors)
		return true;
	pthread_mutex_lock(&lock);
	keep = !limit || type_limit_ok(type, limit);
	if (!keep)
		why = REASON_TYPE_LIMIT;
	else if (ct.cfg.budget_errors)
		keep = budget_take();
	pthread_mutex_unlock(&lock);
	if (keep)
		return true;
	/* left out, unless it is the first of its type and site past the
	 * budget: the site (and its name) asked of the runtime outside the
	 * lock */
	site = throw_site();
	name = site ? ct_function_name(site) : "?";
	pthread_mutex_lock(&lock);
	if (why == REASON_BUDGET && first_seen(hash64(type), site))
		keep = true;
	else
		left_out(type, name, why);
	pthread_mutex_unlock(&lock);
	if (!keep)
		ct_sample_report(t, false);
	return keep;
}

void ct_sample_report(struct ct_thread *t, bool all)
{
	uint64_t now = mono_ns();
	struct said { char *type, *site; int reason; uint64_t count, total; } *recs = NULL;
	size_t n = 0;

	if (!t)
		return;
	pthread_mutex_lock(&lock);
	/* the first left out is said at once, then at most every PERIOD_NS */
	if (!unsaid || (!all && last_said_ns && now - last_said_ns < PERIOD_NS)) {
		pthread_mutex_unlock(&lock);
		return;
	}
	last_said_ns = now;
	recs = calloc(n_lefts ? n_lefts : 1, sizeof(*recs));
	for (size_t i = 0; recs && i < n_lefts; i++) {
		struct left *l = &lefts[i];

		if (!l->count)
			continue;
		/* copies: a reset may free the table once the lock is let go */
		recs[n] = (struct said){ l->type ? strdup(l->type) : NULL, l->site ? strdup(l->site) : NULL, l->reason,
					 l->count, l->total };
		n++;
		l->count = 0;
	}
	if (recs)
		unsaid = 0;
	ct_trace_note_left_out(left_total);
	pthread_mutex_unlock(&lock);
	/* written outside the lock: a record may wait on a sink */
	for (size_t i = 0; i < n; i++) {
		JW_FIELDS(f, 5);

		jwf_str(&f, "type", recs[i].type);
		jwf_str(&f, "site", recs[i].site);
		jwf_str(&f, "reason", reason_names[recs[i].reason]);
		jwf_int(&f, "count", (int64_t)recs[i].count);
		jwf_int(&f, "total", (int64_t)recs[i].total);
		ct_emit(t, EV_TRACE_LEFT_OUT, PH_INSTANT, 0, &f);
		free(recs[i].type);
		free(recs[i].site);
	}
	free(recs);
}

void ct_sample_totals(struct jw_fields *f, struct jw *sup)
{
	pthread_mutex_lock(&lock);
	/* its keys are the types' names: an object written here */
	for (size_t i = 0; i < n_counts; i++)
		if (counts[i].suppressed) {
			jw_item(sup, "{}");
			jw_str(sup, counts[i].type);
			jw_raw(sup, ":", 1);
			jw_u64(sup, counts[i].suppressed);
		}
	if (left_total) /* only when so: the traces before sampling stay as they were */
		jwf_int(f, "left_out", (int64_t)left_total);
	pthread_mutex_unlock(&lock);
	jwf_collection(f, "suppressed", sup, "{}");
}

void ct_sample_reset(void)
{
	pthread_mutex_lock(&lock);
	for (size_t i = 0; i < n_counts; i++)
		free(counts[i].type);
	free(counts);
	counts = NULL;
	n_counts = 0;
	for (size_t i = 0; i < n_lefts; i++) {
		free(lefts[i].type);
		free(lefts[i].site);
	}
	free(lefts);
	lefts = NULL;
	n_lefts = 0;
	left_total = unsaid = last_said_ns = 0;
	tokens_init = false;
	n_seen = 0;
	pthread_mutex_unlock(&lock);
}
