/* SPDX-License-Identifier: MIT */
/*
 * clrtrace startup TRACE [TRACE_B]: the audit of a program's start-up from
 * a trace made with category startup (-e +startup): its phases on one
 * clock from the exec, the JIT bill on the critical path and by module
 * with each module's ReadyToRun status, the settings in effect and where
 * each came from, and what else stood in the way (exceptions, failed
 * loads, type initializers, GCs, suspensions, threads).  With two traces,
 * what changed from A to B.  The report is built as one JSON object
 * (--json prints it) and the text is printed from it.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/args.h"
#include "cli/cli.h"
#include "cli/reader.h"
#include "cli/strpool.h"
#include "common/util.h"
#include "common/u64map.h"

#define TOP_METHODS 10

static const char startup_help[] =
	"Usage: clrtrace startup [--json] TRACE\n"
	"       clrtrace startup [--json] TRACE_A TRACE_B\n\n"
	"Audit the start-up of the program a trace recorded with the startup category\n"
	"(clrtrace run -e +startup): its phases from the exec, the JIT compiles on the\n"
	"critical path and by module with each module's ReadyToRun status, the runtime\n"
	"settings in effect and where each came from, and the exceptions, failed loads,\n"
	"type initializers, GCs and threads before the program was ready.  With two\n"
	"traces, what changed from A to B.  See clrtrace(1) for every figure.\n\n"
	"  -j, --json   the report as one JSON object\n"
	"  -h, --help   this help\n";

/* The tiers of startup.jit, in common/jit-tiers.def's order; the last
 * row counts the compiles whose tier is not known. */
static const struct tier {
	const char *name, *runtime;
	bool background;
} tiers[] = {
#define JIT_TIER(value, name, runtime, background) { name, runtime, background },
#include "common/jit-tiers.def"
#undef JIT_TIER
	{ "unknown", NULL, false },
};
#define TIER_UNKNOWN (ELEMENTSOF(tiers) - 1)

/* The row of tier NAME (TIER_UNKNOWN: none, or a name not in the table). */
static unsigned tier_of(const char *name)
{
	for (unsigned i = 0; name && i < TIER_UNKNOWN; i++)
		if (strcmp(name, tiers[i].name) == 0)
			return i;
	return TIER_UNKNOWN;
}

/* One JIT compile (startup.jit); the name is interned. */
struct jit {
	int64_t ts, ns;
	uint64_t mod;
	const char *fn;
	int64_t nth;
	unsigned tier;
	bool dynamic, failed, main_thread;
};

/* One loaded module (startup.module), by id. */
struct mod {
	int64_t ts; /* when it was loaded */
	char *path;
	json_t *r2r; /* true, false or null (unknown) */
	int64_t methods, ns, crit_methods, crit_ns;
};

/* Things that happened at a time, counted before ready once it is known
 * (the stdout line's startup.ready comes at the end): VAL a duration,
 * TYPE an interned name. */
struct stamp {
	int64_t ts, val;
	const char *type;
};
struct stamps {
	struct stamp *v;
	size_t n, cap;
};

struct audit {
	int64_t pid, exec, init, corelib, first_asm, main, ready, exit, last, mark;
	const char *ready_how; /* startup.ready's how, or "mark" (ClrtraceReady); NULL: none */
	bool mark_seen;
	char *program, *runtime, *framework_dir;
	json_t *config; /* the startup.config record */
	json_t *cost;   /* the startup.cost record, or NULL */
	struct jit *jits;
	size_t n_jits, cap_jits;
	struct u64map mods;
	size_t n_modules;
	struct stamps exceptions, gcs, suspends, threads;
	json_t *failed_loads;
	struct strpool *pool;
	bool oom;
};

static char *xstrdup(const char *s) { return s ? strdup(s) : NULL; }

/* The pool's copy of S ("?" for NULL); NULL (and A->oom) on ENOMEM. */
static const char *intern(struct audit *a, const char *s)
{
	const char *p;

	s = s ? s : "?";
	p = strpool_intern(a->pool, s, strlen(s));
	if (!p)
		a->oom = true;
	return p;
}

static void stamp(struct audit *a, struct stamps *v, int64_t ts, int64_t val, const char *type)
{
	if (v->n == v->cap) {
		size_t cap = v->cap ? v->cap * 2 : 64;
		struct stamp *w = realloc(v->v, cap * sizeof(*w));

		if (!w) {
			a->oom = true;
			return;
		}
		v->v = w;
		v->cap = cap;
	}
	v->v[v->n++] = (struct stamp){ ts, val, type };
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t l = strlen(s), m = strlen(suffix);

	return l >= m && strcmp(s + l - m, suffix) == 0;
}

static const char *base_name(const char *p)
{
	const char *s = p ? strrchr(p, '/') : NULL;

	return s ? s + 1 : p ? p : "?";
}

static uint64_t parse_id(const char *s)
{
	return s ? strtoull(s, NULL, 16) : 0;
}

static bool hr_failed(const char *hr)
{
	return hr && strcmp(hr, "0x00000000") != 0 && strtoul(hr, NULL, 16) >= 0x80000000ul;
}

/* The module record M: its ReadyToRun status; the first modules name the phases. */
static void add_module(struct audit *a, const struct rec *r, const char *path, json_t *r2r, uint64_t id)
{
	void **slot;
	struct mod *m;

	if (hr_failed(jstr(r->j, "hr"))) {
		json_array_append_new(a->failed_loads, json_pack("{s:I,s:s,s:s?,s:s?}", "ts", (json_int_t)r->ts, "what",
								 r->event, "name", path ? base_name(path) : NULL, "hr",
								 jstr(r->j, "hr")));
		return;
	}
	if (!path)
		return;
	if (a->corelib < 0 && ends_with(path, "/System.Private.CoreLib.dll")) {
		a->corelib = r->ts;
		a->framework_dir = strndup(path, (size_t)(strrchr(path, '/') - path + 1));
	} else if (a->first_asm < 0 && a->framework_dir && strncmp(path, a->framework_dir, strlen(a->framework_dir)) != 0)
		a->first_asm = r->ts;
	if (!id)
		return;
	slot = u64map_slot(&a->mods, id);
	if (!slot) {
		a->oom = true;
		return;
	}
	if (!*slot) {
		*slot = m = calloc(1, sizeof(*m));
		if (!m) {
			a->oom = true;
			return;
		}
		a->n_modules++;
	}
	m = *slot;
	if (!m->path) {
		m->path = xstrdup(path);
		m->ts = r->ts;
	}
	if (r2r) {
		json_decref(m->r2r);
		m->r2r = json_incref(r2r);
	}
}

static void add_jit(struct audit *a, const struct rec *r)
{
	const char *fn = jstr(r->j, "function");
	struct jit *j;

	if (a->n_jits == a->cap_jits) {
		size_t cap = a->cap_jits ? a->cap_jits * 2 : 1024;
		struct jit *v = realloc(a->jits, cap * sizeof(*v));

		if (!v) {
			a->oom = true;
			return;
		}
		a->jits = v;
		a->cap_jits = cap;
	}
	j = &a->jits[a->n_jits++];
	*j = (struct jit){ .ts = r->ts, .ns = jint(r->j, "dur_ns"), .mod = parse_id(jstr(r->j, "module")),
			   .fn = intern(a, fn), .nth = jint(r->j, "nth"), .tier = tier_of(jstr(r->j, "tier")),
			   .dynamic = json_is_true(json_object_get(r->j, "dynamic")),
			   .failed = json_object_get(r->j, "hr") != NULL && !json_is_null(json_object_get(r->j, "hr")),
			   .main_thread = r->tid == r->pid };
	if (j->ns < 0)
		j->ns = 0;
	if (!j->fn)
		a->n_jits--;
	/* the program's own mark: a method named ClrtraceReady, compiled
	 * when first called (ready is the first of it and startup.ready's) */
	if (fn && !a->mark_seen && ends_with(fn, ".ClrtraceReady")) {
		a->mark_seen = true;
		a->mark = r->ts;
	}
	if (a->main < 0 && !j->dynamic && fn &&
	    (ends_with(fn, ".Main") || ends_with(fn, ".<Main>") || ends_with(fn, ".<Main>$")))
		a->main = r->ts;
}

/* Take record R of the first process in the trace. */
static void audit_add(struct audit *a, const struct rec *r)
{
	if (r->pid < 0 || r->ts < 0)
		return;
	if (a->pid < 0 && r->ev == EV_RUNTIME_INIT)
		a->pid = r->pid;
	if (r->pid != a->pid)
		return;
	a->last = r->ts;
	switch (r->ev) {
	case EV_RUNTIME_INIT:
		a->init = r->ts;
		a->program = xstrdup(jstr(r->j, "program"));
		a->runtime = xstrdup(jstr2(r->j, "runtime", "version"));
		break;
	case EV_STARTUP_CONFIG:
		if (!a->config) {
			a->config = json_incref(r->j);
			if (jint(r->j, "exec_ns") > 0)
				a->exec = jint(r->j, "exec_ns");
		}
		break;
	case EV_STARTUP_MODULE:
		add_module(a, r, jstr2(r->j, "module", "path"), json_object_get(r->j, "ready_to_run"),
			   parse_id(jstr2(r->j, "module", "id")));
		break;
	case EV_MODULE_LOAD:
	case EV_ASSEMBLY_LOAD:
		if (r->ph == PH_END && hr_failed(jstr(r->j, "hr")))
			add_module(a, r, jstr2(r->j, r->ev == EV_MODULE_LOAD ? "module" : "assembly",
					       r->ev == EV_MODULE_LOAD ? "path" : "name"), NULL, 0);
		break;
	case EV_STARTUP_JIT:
		add_jit(a, r);
		break;
	case EV_EXCEPTION_THROW:
		stamp(a, &a->exceptions, r->ts, 0, intern(a, jstr2(r->j, "exception", "type")));
		break;
	case EV_GC:
		if (r->ph == PH_END)
			stamp(a, &a->gcs, r->ts, r->dur_ns > 0 ? r->dur_ns : 0, NULL);
		break;
	case EV_RUNTIME_SUSPEND:
		if (r->ph != PH_END)
			stamp(a, &a->suspends, r->ts, 0, NULL);
		break;
	case EV_THREAD_CREATE:
		stamp(a, &a->threads, r->ts, 0, NULL);
		break;
	case EV_RUNTIME_SHUTDOWN:
		a->exit = r->ts;
		break;
	case EV_STARTUP_COST:
		if (!a->cost)
			a->cost = json_pack("{s:I,s:I,s:I}", "own_ns", (json_int_t)jint(r->j, "own_ns"), "jit_records",
					    (json_int_t)jint(r->j, "jit_records"), "module_records",
					    (json_int_t)jint(r->j, "module_records"));
		break;
	case EV_STARTUP_READY:
		/* one record a source (the stdout line's comes at the end):
		 * the first counts */
		if (jint(r->j, "ready_ns") > 0 && (a->ready < 0 || jint(r->j, "ready_ns") < a->ready)) {
			a->ready = jint(r->j, "ready_ns");
			a->ready_how = intern(a, jstr(r->j, "how"));
		}
		break;
	default:
		break;
	}
}

static void audit_init(struct audit *a)
{
	*a = (struct audit){ .pid = -1, .exec = -1, .init = -1, .corelib = -1, .first_asm = -1, .main = -1,
			     .ready = -1, .exit = -1, .last = -1 };
	a->failed_loads = json_array();
	a->pool = strpool_new();
	if (!a->failed_loads || !a->pool)
		a->oom = true;
}

static void mod_free(void *p)
{
	struct mod *m = p;

	free(m->path);
	json_decref(m->r2r);
	free(m);
}

static void audit_done(struct audit *a)
{
	free(a->jits);
	u64map_done(&a->mods, mod_free);
	free(a->program);
	free(a->runtime);
	free(a->framework_dir);
	json_decref(a->config);
	json_decref(a->cost);
	json_decref(a->failed_loads);
	free(a->exceptions.v);
	free(a->gcs.v);
	free(a->suspends.v);
	free(a->threads.v);
	strpool_done(a->pool);
}

/* How many of V are before LIMIT; *SUM: their values added. */
static int64_t count_before(const struct stamps *v, int64_t limit, int64_t *sum)
{
	int64_t n = 0;

	if (sum)
		*sum = 0;
	for (size_t i = 0; i < v->n; i++)
		if (v->v[i].ts <= limit) {
			n++;
			if (sum)
				*sum += v->v[i].val;
		}
	return n;
}

/* The phases, each with its time from the exec (or from runtime.init) and the gap before it. */
static json_t *phases_json(const struct audit *a)
{
	const struct {
		const char *name;
		int64_t ts;
	} p[] = { { "exec", a->exec }, { "runtime.init", a->init }, { "corelib", a->corelib },
		  { "first_program_assembly", a->first_asm }, { "main", a->main }, { "ready", a->ready },
		  { "exit", a->exit } };
	int64_t base = a->exec >= 0 ? a->exec : a->init, prev = base;
	json_t *out = json_array();

	for (size_t i = 0; i < ELEMENTSOF(p); i++) {
		json_t *ph = json_pack("{s:s}", "name", p[i].name);

		if (p[i].ts >= 0 && base >= 0) {
			json_object_set_new(ph, "from_exec_ns", json_integer(p[i].ts - base));
			json_object_set_new(ph, "gap_ns", json_integer(p[i].ts - prev));
			prev = p[i].ts;
		} else {
			json_object_set_new(ph, "from_exec_ns", json_null());
			json_object_set_new(ph, "gap_ns", json_null());
		}
		json_array_append_new(out, ph);
	}
	return out;
}

/* The value of the runtime's variable NAME (after DOTNET_/COMPlus_, or whole after '='). */
static const char *env_value(json_t *env, const char *name, const char **var)
{
	static char buf[128];
	const char *v;

	if (name[0] == '=') {
		*var = name + 1;
		return jstr(env, name + 1);
	}
	snprintf(buf, sizeof(buf), "DOTNET_%s", name);
	if ((v = jstr(env, buf))) {
		*var = buf;
		return v;
	}
	snprintf(buf, sizeof(buf), "COMPlus_%s", name);
	*var = buf;
	return jstr(env, buf);
}

/* The settings of startup-settings.def. */
static const struct setting {
	const char *key, *label, *variable, *property, *def;
	char wins;
} settings[] = {
#define SETTING(key, label, variable, property, def, wins) { key, label, variable, property, def, wins },
#include "cli/startup-settings.def"
};

/* A runtimeconfig property's value as the runtime reads it: "1"/"0" for a
 * boolean, digits for a number, the string itself; NULL: not there. */
static json_t *property_value(json_t *pv)
{
	if (!pv || json_is_null(pv))
		return NULL;
	if (json_is_string(pv))
		return json_incref(pv);
	if (json_is_boolean(pv))
		return json_string(json_is_true(pv) ? "1" : "0");
	if (json_is_integer(pv))
		return json_sprintf("%" JSON_INTEGER_FORMAT, json_integer_value(pv));
	return json_string("?");
}

/* One setting: its value in effect, where it came from (environment,
 * runtimeconfig, both, default) and the variable or property that set it. */
static json_t *setting_json(const struct setting *st, json_t *env, json_t *props)
{
	const char *var = NULL, *v = st->variable[0] ? env_value(env, st->variable, &var) : NULL;
	json_t *p = st->property[0] ? property_value(json_object_get(props, st->property)) : NULL;
	json_t *o = json_pack("{s:s,s:s}", "key", st->key, "label", st->label);

	if (v && p && st->wins == 'B') {
		json_object_set_new(o, "value", json_sprintf("%s:%s", v, json_string_value(p)));
		json_object_set_new(o, "source", json_string("environment+runtimeconfig"));
		json_object_set_new(o, "from", json_sprintf("%s, %s", var, st->property));
	} else if (v && !(p && st->wins == 'P')) {
		json_object_set_new(o, "value", json_string(v));
		json_object_set_new(o, "source", json_string("environment"));
		json_object_set_new(o, "from", json_string(var));
	} else if (p) {
		json_object_set_new(o, "value", json_incref(p));
		json_object_set_new(o, "source", json_string("runtimeconfig"));
		json_object_set_new(o, "from", json_string(st->property));
	} else {
		json_object_set_new(o, "value", json_string(st->def));
		json_object_set_new(o, "source", json_string("default"));
	}
	json_decref(p);
	return o;
}

/* Each setting: value and where it came from. */
static json_t *settings_json(json_t *config)
{
	json_t *env = json_object_get(config, "environment");
	json_t *props = json_object_get(json_object_get(config, "runtimeconfig"), "properties");
	json_t *out = json_array();

	for (size_t i = 0; i < ELEMENTSOF(settings); i++)
		json_array_append_new(out, setting_json(&settings[i], env, props));
	return out;
}

static int by_ns_desc(const void *x, const void *y)
{
	int64_t a = json_integer_value(json_object_get(*(json_t *const *)x, "time_ns"));
	int64_t b = json_integer_value(json_object_get(*(json_t *const *)y, "time_ns"));

	return a < b ? 1 : a > b ? -1 : 0;
}

/* ARR sorted by time_ns, largest first, cut to N (0: all). */
static json_t *sorted(json_t *arr, size_t n)
{
	size_t k = json_array_size(arr);
	json_t **v = calloc(k ? k : 1, sizeof(*v)), *out = json_array();

	for (size_t i = 0; v && i < k; i++)
		v[i] = json_array_get(arr, i);
	if (v)
		qsort(v, k, sizeof(*v), by_ns_desc);
	for (size_t i = 0; v && i < k && (!n || i < n); i++)
		json_array_append(out, v[i]);
	free(v);
	json_decref(arr);
	return out;
}

/* Is compile J background work: the tiering worker's recompile of code
 * that already runs.  By its tier where known (a promotion tier off the
 * main thread: .NET 8 compiles a few CoreLib helpers at tier 1 on the main
 * thread, which waits for them); else a second compile of its function. */
static bool background(const struct jit *j)
{
	if (j->tier != TIER_UNKNOWN)
		return tiers[j->tier].background && !j->main_thread;
	return j->nth > 1;
}

/* Is compile J on the critical path: before LIMIT, not background work. */
static bool critical(const struct jit *j, int64_t limit)
{
	return j->ts <= limit && !background(j);
}

/* {TIER: {methods, time_ns}} of the tiers seen (and "unknown"). */
static json_t *by_tier_json(const struct audit *a)
{
	int64_t n[ELEMENTSOF(tiers)] = { 0 }, ns[ELEMENTSOF(tiers)] = { 0 };
	json_t *out = json_object();

	for (size_t i = 0; i < a->n_jits; i++)
		if (!a->jits[i].failed) {
			n[a->jits[i].tier]++;
			ns[a->jits[i].tier] += a->jits[i].ns;
		}
	for (size_t i = 0; i < ELEMENTSOF(tiers); i++)
		if (n[i])
			json_object_set_new(out, tiers[i].name,
					    json_pack("{s:s?,s:I,s:I,s:b}", "runtime_name", tiers[i].runtime, "methods",
						      (json_int_t)n[i], "time_ns", (json_int_t)ns[i], "background",
						      tiers[i].background));
	return out;
}

static json_t *jit_json(struct audit *a, int64_t limit)
{
	int64_t n = 0, ns = 0, cn = 0, cns = 0, dyn = 0, re = 0, failed = 0, main_n = 0, cctor_n = 0, cctor_ns = 0;
	int64_t before = 0;
	json_t *top = json_array(), *cctors = json_array(), *mods = json_array(), *il = json_array();

	for (size_t i = 0; i < a->n_jits; i++) {
		struct jit *j = &a->jits[i];
		struct mod *m = j->mod ? u64map_get(&a->mods, j->mod) : NULL;

		if (j->failed) {
			failed++;
			continue;
		}
		n++;
		ns += j->ns;
		dyn += j->dynamic;
		before += j->ts < limit;
		re += j->nth > 1;
		if (m) {
			m->methods++;
			m->ns += j->ns;
		}
		if (!critical(j, limit))
			continue;
		cn++;
		cns += j->ns;
		main_n += j->main_thread;
		if (m) {
			m->crit_methods++;
			m->crit_ns += j->ns;
		}
		json_array_append_new(top, json_pack("{s:s,s:I,s:s?}", "function", j->fn, "time_ns", (json_int_t)j->ns,
						     "module", m ? base_name(m->path) : NULL));
		if (ends_with(j->fn, "..cctor")) {
			cctor_n++;
			cctor_ns += j->ns;
			json_array_append_new(cctors, json_pack("{s:s,s:I}", "function", j->fn, "time_ns", (json_int_t)j->ns));
		}
	}
	u64map_foreach(&a->mods, i) {
		struct mod *m = a->mods.vals[i];

		if (!m->methods)
			continue;
		json_array_append_new(mods, json_pack("{s:s,s:s?,s:O,s:I,s:I,s:I,s:I}", "module", base_name(m->path), "path",
						      m->path, "ready_to_run", m->r2r ? m->r2r : json_null(), "methods",
						      (json_int_t)m->methods, "time_ns", (json_int_t)m->ns,
						      "critical_methods", (json_int_t)m->crit_methods, "critical_ns",
						      (json_int_t)m->crit_ns));
		if (m->crit_methods && json_is_false(m->r2r))
			json_array_append_new(il, json_pack("{s:s,s:I,s:I}", "module", base_name(m->path), "methods",
							    (json_int_t)m->crit_methods, "time_ns", (json_int_t)m->crit_ns));
	}
	return json_pack("{s:I,s:I,s:I,s:I,s:I,s:I,s:{s:I,s:I,s:I},s:{s:I,s:I},s:o,s:o,s:o,s:o,s:{s:I,s:I,s:o}}",
			 "methods_compiled", (json_int_t)n, "methods_before_ready", (json_int_t)before, "time_ns",
			 (json_int_t)ns, "dynamic", (json_int_t)dyn,
			 "recompiles", (json_int_t)re, "failed", (json_int_t)failed, "critical", "methods",
			 (json_int_t)cn, "time_ns", (json_int_t)cns, "main_thread_methods", (json_int_t)main_n,
			 "background", "methods", (json_int_t)(n - cn), "time_ns", (json_int_t)(ns - cns), "by_tier",
			 by_tier_json(a), "by_module",
			 sorted(mods, 0), "top", sorted(top, TOP_METHODS), "il_only_on_startup_path", sorted(il, 0),
			 "type_initializers", "count", (json_int_t)cctor_n, "time_ns", (json_int_t)cctor_ns, "list",
			 sorted(cctors, TOP_METHODS));
}

static int by_ts(const void *x, const void *y)
{
	int64_t a = json_integer_value(json_object_get(*(json_t *const *)x, "from_exec_ns"));
	int64_t b = json_integer_value(json_object_get(*(json_t *const *)y, "from_exec_ns"));

	return a < b ? -1 : a > b;
}

/* Every module loaded, in load order: name, path, ReadyToRun status, time from BASE. */
static json_t *modules_json(const struct audit *a, int64_t base)
{
	size_t n = 0, k = 0;
	json_t **v, *out = json_array();

	u64map_foreach(&a->mods, i)
		n++;
	v = calloc(n ? n : 1, sizeof(*v));
	if (!v)
		return out;
	u64map_foreach(&a->mods, i) {
		const struct mod *m = a->mods.vals[i];

		v[k++] = json_pack("{s:s,s:s?,s:O,s:I}", "module", base_name(m->path), "path", m->path, "ready_to_run",
				   m->r2r ? m->r2r : json_null(), "from_exec_ns", (json_int_t)(m->ts - base));
	}
	qsort(v, k, sizeof(*v), by_ts);
	for (size_t i = 0; i < k; i++)
		json_array_append_new(out, v[i]);
	free(v);
	return out;
}

/* The report of one trace, or NULL after saying why. */
static json_t *audit_json(struct audit *a, const char *name)
{
	int64_t limit, gc_ns = 0;
	json_t *types;

	if (a->pid < 0) {
		cli_error("startup: %s: no runtime.init record: not a trace of a program's start", name);
		return NULL;
	}
	if (!a->config) {
		cli_error("startup: %s: no startup records: record it with clrtrace run -e +startup", name);
		return NULL;
	}
	/* the program's own assembly, PROGRAM.dll, when it is there (a
	 * self-contained program has the framework beside it) */
	u64map_foreach(&a->mods, k) {
		const struct mod *m = a->mods.vals[k];
		const char *b = base_name(m->path);
		size_t l = a->program ? strlen(a->program) : 0;

		if (l && strncmp(b, a->program, l) == 0 && strcmp(b + l, ".dll") == 0) {
			a->first_asm = m->ts;
			break;
		}
	}
	if (a->mark_seen && (a->ready < 0 || a->mark < a->ready)) {
		a->ready = a->mark;
		a->ready_how = "mark";
	}
	limit = a->ready >= 0 ? a->ready : a->exit >= 0 ? a->exit : a->last;
	types = json_object();
	for (size_t i = 0; i < a->exceptions.n; i++)
		if (a->exceptions.v[i].ts <= limit) {
			const char *t = a->exceptions.v[i].type;

			json_object_set_new(types, t, json_integer(json_integer_value(json_object_get(types, t)) + 1));
		}
	int64_t n_gc = count_before(&a->gcs, limit, &gc_ns), mods_before = 0;
	json_t *failed = json_array(), *e;
	size_t i;

	json_array_foreach(a->failed_loads, i, e)
		if (jint(e, "ts") <= limit)
			json_array_append(failed, e);

	int64_t r2r_yes = 0, r2r_no = 0;

	u64map_foreach(&a->mods, k) {
		const struct mod *m = a->mods.vals[k];

		if (m->ts >= limit)
			continue;
		mods_before++;
		r2r_yes += json_is_true(m->r2r);
		r2r_no += json_is_false(m->r2r);
	}
	return json_pack("{s:s?,s:I,s:s?,s:s,s:s?,s:O,s:o,s:o,s:o,s:O,s:O,s:I,s:I,s:{s:I,s:I},s:o,"
			 "s:{s:{s:I,s:o},s:o,s:{s:I,s:I},s:I,s:I}}",
			 "program", a->program, "pid", (json_int_t)a->pid, "runtime", a->runtime, "until",
			 a->ready >= 0 ? "ready" : "exit", "ready_by", a->ready >= 0 ? a->ready_how : NULL, "cost",
			 a->cost ? a->cost : json_null(), "phases",
			 phases_json(a), "jit", jit_json(a, limit), "configuration", settings_json(a->config),
			 "environment", json_object_get(a->config, "environment"), "runtimeconfig",
			 json_object_get(a->config, "runtimeconfig"), "modules_loaded", (json_int_t)a->n_modules,
			 "modules_before_ready", (json_int_t)mods_before, "modules_before_ready_r2r", "yes",
			 (json_int_t)r2r_yes, "il_only", (json_int_t)r2r_no, "modules",
			 modules_json(a, a->exec >= 0 ? a->exec : a->init), "in_the_way", "exceptions", "count",
			 (json_int_t)count_before(&a->exceptions, limit, NULL),
			 "types", types, "failed_loads", failed, "gcs", "count", (json_int_t)n_gc, "time_ns",
			 (json_int_t)gc_ns, "suspensions", (json_int_t)count_before(&a->suspends, limit, NULL),
			 "threads_created", (json_int_t)count_before(&a->threads, limit, NULL));
}

/* Read TRACE into its report. */
static json_t *read_trace(char *path)
{
	struct audit a;
	struct rd *rd = NULL;
	struct rec rec;
	json_t *out = NULL;
	int r;

	audit_init(&a);
	r = rd_open(&rd, "startup", &path, 1, false);
	if (r < 0)
		goto done;
	while ((r = rd_record(rd, &rec)) > 0) {
		audit_add(&a, &rec);
		rec_done(&rec);
	}
	rd_warn_summary(rd); /* lines that were not records: said, and left out */
	if (r < 0)
		cli_error("startup: %s: %s", rd_name(rd), rd_strerror(rd, r));
	else if (a.oom)
		cli_error("startup: %s: out of memory", path);
	else
		out = audit_json(&a, path);
done:
	rd_free(rd);
	audit_done(&a);
	return out;
}

static double ms(json_t *v) { return (double)json_integer_value(v) / 1e6; }

/* The compiles by tier (jit.by_tier), or how to get the tiers when the
 * trace has none (category tiers off). */
static void print_by_tier(json_t *by_tier)
{
	const char *k;
	json_t *e;

	if (json_object_size(by_tier) == 1 && json_object_get(by_tier, "unknown")) {
		printf("\n  No compile tiers in the trace (trace with -e +startup,+tiers)\n");
		return;
	}
	printf("\n  By tier (the runtime's name)                          methods        ms\n");
	json_object_foreach(by_tier, k, e) {
		char label[64];

		snprintf(label, sizeof(label), "%s (%s)", k, jstr(e, "runtime_name") ?: "not said");
		printf("    %-50s %7" PRId64 " %9.1f%s\n", label, jint(e, "methods"), ms(json_object_get(e, "time_ns")),
		       json_is_true(json_object_get(e, "background")) ? "  background" : "");
	}
}

static void print_report(json_t *rep)
{
	json_t *jit = json_object_get(rep, "jit"), *w = json_object_get(rep, "in_the_way"), *e;
	const char *key;
	size_t i;

	printf("Start-up of %s (pid %" PRId64 ", .NET %s), until %s%s%s\n\n", jstr(rep, "program") ?: "?",
	       jint(rep, "pid"), jstr(rep, "runtime") ?: "?", jstr(rep, "until"),
	       jstr(rep, "ready_by") ? " by " : " (no server, request, ready line or mark seen)",
	       jstr(rep, "ready_by") ? jstr(rep, "ready_by") : "");
	printf("Phases                         from exec       gap\n");
	json_array_foreach(json_object_get(rep, "phases"), i, e) {
		if (json_is_null(json_object_get(e, "from_exec_ns")))
			printf("  %-26s %12s\n", jstr(e, "name"), "not seen");
		else
			printf("  %-26s %9.1f ms %7.1f ms\n", jstr(e, "name"), ms(json_object_get(e, "from_exec_ns")),
			       ms(json_object_get(e, "gap_ns")));
	}
	printf("\nJIT: %" PRId64 " methods compiled (%" PRId64 " before %s) in %.1f ms (%" PRId64
	       " dynamic methods and IL stubs, %" PRId64 " recompiles, %" PRId64 " failed)\n",
	       jint(jit, "methods_compiled"), jint(jit, "methods_before_ready"), jstr(rep, "until"),
	       ms(json_object_get(jit, "time_ns")), jint(jit, "dynamic"),
	       jint(jit, "recompiles"), jint(jit, "failed"));
	printf("  critical path (before %s, not background): %" PRId64 " methods, %.1f ms"
	       " (%" PRId64 " on the main thread)\n",
	       jstr(rep, "until"), jint2(jit, "critical", "methods"),
	       ms(json_object_get(json_object_get(jit, "critical"), "time_ns")),
	       jint2(jit, "critical", "main_thread_methods"));
	printf("  background (tier-up recompiles, or after %s): %" PRId64 " methods, %.1f ms\n", jstr(rep, "until"),
	       jint2(jit, "background", "methods"), ms(json_object_get(json_object_get(jit, "background"), "time_ns")));
	print_by_tier(json_object_get(jit, "by_tier"));
	printf("\n  By module                                 ReadyToRun  methods  critical        ms\n");
	json_array_foreach(json_object_get(jit, "by_module"), i, e) {
		json_t *r2r = json_object_get(e, "ready_to_run");

		printf("    %-40s %-10s %7" PRId64 " %9" PRId64 " %9.1f\n", jstr(e, "module"),
		       json_is_true(r2r) ? "yes" : json_is_false(r2r) ? "IL only" : "?", jint(e, "methods"),
		       jint(e, "critical_methods"), ms(json_object_get(e, "time_ns")));
	}
	printf("\n  Top methods on the critical path\n");
	json_array_foreach(json_object_get(jit, "top"), i, e)
		printf("    %8.2f ms  %s\n", ms(json_object_get(e, "time_ns")), jstr(e, "function"));
	if (json_array_size(json_object_get(jit, "il_only_on_startup_path"))) {
		printf("\n  IL-only assemblies on the start-up path (fix: publish with ReadyToRun,\n"
		       "  <PublishReadyToRun>true</PublishReadyToRun>)\n");
		json_array_foreach(json_object_get(jit, "il_only_on_startup_path"), i, e)
			printf("    %-40s %5" PRId64 " methods %8.1f ms\n", jstr(e, "module"), jint(e, "methods"),
			       ms(json_object_get(e, "time_ns")));
	}
	printf("\nConfiguration in effect\n");
	json_array_foreach(json_object_get(rep, "configuration"), i, e)
		printf("  %-26s %-8s %s%s%s\n", jstr(e, "label"), *jstr(e, "value") ? jstr(e, "value") : "(none)",
		       jstr(e, "source"), jstr(e, "from") ? ": " : "", jstr(e, "from") ?: "");
	printf("\nWhat else stood in the way (before %s)\n", jstr(rep, "until"));
	printf("  exceptions thrown: %" PRId64 "\n", jint2(w, "exceptions", "count"));
	json_t *v;
	json_object_foreach(json_object_get(json_object_get(w, "exceptions"), "types"), key, v)
		printf("    %" PRId64 " %s\n", (int64_t)json_integer_value(v), key);
	printf("  failed loads: %zu\n", json_array_size(json_object_get(w, "failed_loads")));
	json_array_foreach(json_object_get(w, "failed_loads"), i, e)
		printf("    %s %s hr %s\n", jstr(e, "what"), jstr(e, "name") ?: "?", jstr(e, "hr") ?: "?");
	printf("  type initializers compiled: %" PRId64 " (%.1f ms of JIT)\n",
	       jint2(jit, "type_initializers", "count"),
	       ms(json_object_get(json_object_get(jit, "type_initializers"), "time_ns")));
	printf("  GCs: %" PRId64 " (%.1f ms); runtime suspensions: %" PRId64
	       "; threads created: %" PRId64 "\n",
	       jint2(w, "gcs", "count"), ms(json_object_get(json_object_get(w, "gcs"), "time_ns")), jint(w, "suspensions"),
	       jint(w, "threads_created"));
	printf("  modules loaded: %" PRId64 " before %s (%" PRId64 " with ReadyToRun code, %" PRId64
	       " IL only), %" PRId64 " in the whole run\n",
	       jint(rep, "modules_before_ready"), jstr(rep, "until"), jint2(rep, "modules_before_ready_r2r", "yes"),
	       jint2(rep, "modules_before_ready_r2r", "il_only"), jint(rep, "modules_loaded"));
	if (json_is_object(json_object_get(rep, "cost")))
		printf("\nCost of looking: the startup category's handlers took %.1f ms inside the program\n"
		       "  (%" PRId64 " compiles and %" PRId64 " modules recorded); what the runtime's callbacks\n"
		       "  cost is bench/startup.sh's to measure\n",
		       ms(json_object_get(json_object_get(rep, "cost"), "own_ns")), jint2(rep, "cost", "jit_records"),
		       jint2(rep, "cost", "module_records"));
}

/* A then B of one figure. */
static json_t *pair(json_t *a, json_t *b)
{
	return json_pack("{s:O,s:O}", "a", a ? a : json_null(), "b", b ? b : json_null());
}

/* {TIER: {a, b}}: the compiles of each tier in JIT reports A and B (0:
 * none), the tiers seen in either. */
static json_t *by_tier_diff(json_t *ja, json_t *jb)
{
	json_t *out = json_object();

	for (size_t i = 0; i < ELEMENTSOF(tiers); i++) {
		json_t *x = json_object_get(json_object_get(ja, "by_tier"), tiers[i].name);
		json_t *y = json_object_get(json_object_get(jb, "by_tier"), tiers[i].name);

		if (x || y)
			json_object_set_new(out, tiers[i].name,
					    json_pack("{s:I,s:I}", "a", (json_int_t)(x ? jint(x, "methods") : 0), "b",
						      (json_int_t)(y ? jint(y, "methods") : 0)));
	}
	return out;
}

/* What changed from report A to report B. */
static json_t *diff_json(json_t *a, json_t *b)
{
	json_t *phases = json_array(), *mods = json_object(), *cfg = json_array(), *e;
	json_t *ja = json_object_get(a, "jit"), *jb = json_object_get(b, "jit");
	size_t i;

	json_array_foreach(json_object_get(a, "phases"), i, e) {
		json_t *f = json_array_get(json_object_get(b, "phases"), i);

		json_array_append_new(phases, json_pack("{s:s,s:o}", "name", jstr(e, "name"), "from_exec_ns",
							pair(json_object_get(e, "from_exec_ns"), json_object_get(f, "from_exec_ns"))));
	}
	for (int side = 0; side < 2; side++)
		json_array_foreach(json_object_get(side ? jb : ja, "by_module"), i, e) {
			const char *m = jstr(e, "module");
			json_t *o = json_object_get(mods, m);

			if (!o) {
				o = json_pack("{s:{},s:{},s:{}}", "methods", "time_ns", "ready_to_run");
				json_object_set_new(mods, m, o);
			}
			json_object_set(json_object_get(o, "methods"), side ? "b" : "a", json_object_get(e, "methods"));
			json_object_set(json_object_get(o, "time_ns"), side ? "b" : "a", json_object_get(e, "time_ns"));
			json_object_set(json_object_get(o, "ready_to_run"), side ? "b" : "a", json_object_get(e, "ready_to_run"));
		}
	json_t *loads = json_object();

	for (int side = 0; side < 2; side++)
		json_array_foreach(json_object_get(side ? b : a, "modules"), i, e) {
			const char *m = jstr(e, "module");
			json_t *o = json_object_get(loads, m);

			if (!o) {
				o = json_pack("{s:n,s:n,s:n,s:n}", "a", "b", "ready_to_run_a", "ready_to_run_b");
				json_object_set_new(loads, m, o);
			}
			json_object_set(o, side ? "b" : "a", json_object_get(e, "from_exec_ns"));
			json_object_set(o, side ? "ready_to_run_b" : "ready_to_run_a", json_object_get(e, "ready_to_run"));
		}
	json_t *only = json_pack("{s:[],s:[],s:[]}", "a", "b", "ready_to_run_changed");
	const char *key;
	json_object_foreach(loads, key, e) {
		if (json_is_null(json_object_get(e, "b")))
			json_array_append_new(json_object_get(only, "a"), json_string(key));
		else if (json_is_null(json_object_get(e, "a")))
			json_array_append_new(json_object_get(only, "b"), json_string(key));
		else if (!json_equal(json_object_get(e, "ready_to_run_a"), json_object_get(e, "ready_to_run_b")))
			json_array_append_new(json_object_get(only, "ready_to_run_changed"), json_string(key));
	}
	json_decref(loads);
	json_array_foreach(json_object_get(a, "configuration"), i, e) {
		json_t *f = json_array_get(json_object_get(b, "configuration"), i);

		if (!json_equal(json_object_get(e, "value"), json_object_get(f, "value")) ||
		    !json_equal(json_object_get(e, "source"), json_object_get(f, "source")))
			json_array_append_new(cfg, json_pack("{s:s,s:o,s:o}", "label", jstr(e, "label"), "value",
							     pair(json_object_get(e, "value"), json_object_get(f, "value")),
							     "source", pair(json_object_get(e, "source"), json_object_get(f, "source"))));
	}
	return json_pack("{s:o,s:{s:o,s:o,s:o,s:o,s:o},s:o,s:o,s:o,s:o}", "phases", phases, "jit", "methods_compiled",
			 pair(json_object_get(ja, "methods_compiled"), json_object_get(jb, "methods_compiled")), "time_ns",
			 pair(json_object_get(ja, "time_ns"), json_object_get(jb, "time_ns")), "critical_methods",
			 pair(json_object_get(json_object_get(ja, "critical"), "methods"),
			      json_object_get(json_object_get(jb, "critical"), "methods")),
			 "critical_ns",
			 pair(json_object_get(json_object_get(ja, "critical"), "time_ns"),
			      json_object_get(json_object_get(jb, "critical"), "time_ns")),
			 "by_tier", by_tier_diff(ja, jb), "modules_loaded", pair(json_object_get(a, "modules_loaded"), json_object_get(b, "modules_loaded")),
			 "by_module", mods, "configuration", cfg, "modules", only);
}

static void print_pair_ms(const char *label, json_t *p)
{
	json_t *a = json_object_get(p, "a"), *b = json_object_get(p, "b");

	if (json_is_integer(a) && json_is_integer(b))
		printf("  %-28s %9.1f ms %9.1f ms %+9.1f ms\n", label, ms(a), ms(b), ms(b) - ms(a));
	else
		printf("  %-28s %12s %12s\n", label, json_is_integer(a) ? "seen" : "not seen",
		       json_is_integer(b) ? "seen" : "not seen");
}

static void print_pair_n(const char *label, json_t *p)
{
	int64_t a = jint(p, "a"), b = jint(p, "b");

	printf("  %-28s %12" PRId64 " %12" PRId64 " %+12" PRId64 "\n", label, a, b, b - a);
}

static void print_diff(json_t *d, const char *na, const char *nb)
{
	json_t *e, *jit = json_object_get(d, "jit");
	const char *key;
	size_t i;

	printf("Start-up, A: %s\n          B: %s\n\n  %-28s %12s %12s %12s\n", na, nb, "Phase (from exec)", "A", "B", "B - A");
	json_array_foreach(json_object_get(d, "phases"), i, e)
		print_pair_ms(jstr(e, "name"), json_object_get(e, "from_exec_ns"));
	printf("\n");
	print_pair_n("JIT methods compiled", json_object_get(jit, "methods_compiled"));
	print_pair_ms("JIT time", json_object_get(jit, "time_ns"));
	print_pair_n("JIT critical methods", json_object_get(jit, "critical_methods"));
	print_pair_ms("JIT critical time", json_object_get(jit, "critical_ns"));
	json_object_foreach(json_object_get(jit, "by_tier"), key, e) {
		char label[48];

		snprintf(label, sizeof(label), "JIT %s methods", key);
		print_pair_n(label, e);
	}
	print_pair_n("modules loaded", json_object_get(d, "modules_loaded"));
	printf("\n  %-46s %8s %8s %8s %10s %10s\n", "By module (JIT)", "A", "B", "B - A", "A ms", "B ms");
	json_object_foreach(json_object_get(d, "by_module"), key, e) {
		int64_t a = jint2(e, "methods", "a"), b = jint2(e, "methods", "b");

		a = a < 0 ? 0 : a;
		b = b < 0 ? 0 : b;
		printf("    %-44s %8" PRId64 " %8" PRId64 " %+8" PRId64 " %10.1f %10.1f\n", key, a, b, b - a,
		       ms(json_object_get(json_object_get(e, "time_ns"), "a")),
		       ms(json_object_get(json_object_get(e, "time_ns"), "b")));
	}
	const char *const which[] = { "a", "b", "ready_to_run_changed" };
	const char *const what[] = { "Loaded in A only", "Loaded in B only", "ReadyToRun status changed" };

	for (size_t k = 0; k < ELEMENTSOF(which); k++) {
		json_t *l = json_object_get(json_object_get(d, "modules"), which[k]);

		printf("\n  %s: %zu\n", what[k], json_array_size(l));
		json_array_foreach(l, i, e)
			printf("    %s\n", json_string_value(e));
	}
	printf("\n  Configuration changed: %zu\n", json_array_size(json_object_get(d, "configuration")));
	json_array_foreach(json_object_get(d, "configuration"), i, e)
		printf("    %-26s %s (%s) -> %s (%s)\n", jstr(e, "label"), jstr2(e, "value", "a") ?: "?",
		       jstr2(e, "source", "a") ?: "?", jstr2(e, "value", "b") ?: "?", jstr2(e, "source", "b") ?: "?");
}

int cmd_startup(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	bool as_json = false;
	json_t *a = NULL, *b = NULL, *out = NULL;
	int opt, status = 1;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":jh", opts, NULL)) != -1)
		switch (opt) {
		case 'j':
			as_json = true;
			break;
		case 'h':
			fputs(startup_help, stdout);
			return 0;
		default:
			args_getopt_error("startup", opt, argv);
			return EXIT_USAGE;
		}
	if (argc - optind < 1 || argc - optind > 2) {
		cli_error("startup: give one trace, or two to compare (try 'clrtrace startup --help')");
		return EXIT_USAGE;
	}
	a = read_trace(argv[optind]);
	if (a && argc - optind == 2)
		b = read_trace(argv[optind + 1]);
	if (!a || (argc - optind == 2 && !b))
		goto done;
	out = b ? diff_json(a, b) : json_incref(a);
	if (as_json) {
		if (b) {
			json_object_set(out, "a", a);
			json_object_set(out, "b", b);
		}
		json_dumpf(out, stdout, JSON_COMPACT);
		putchar('\n');
	} else if (b)
		print_diff(out, argv[optind], argv[optind + 1]);
	else
		print_report(out);
	status = 0;
done:
	json_decref(a);
	json_decref(b);
	json_decref(out);
	return status;
}
