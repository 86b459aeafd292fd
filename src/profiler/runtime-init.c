/* SPDX-License-Identifier: MIT */
/* The runtime.init record: the runtime, the command line, the program and
 * the effective configuration. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/utf16.h"
#include "profiler/abi/info.h"
#include "profiler/core/tracer.h"
#include "profiler/families/exceptions/pin.h"
#include "profiler/runtime-init.h"
#include "profiler/start.h"

/* The outputs as the configuration spells them, into the array A. */
static void outputs_list(struct jw *a, const struct ct_config *c)
{
	for (size_t i = 0; i < c->n_outputs; i++) {
		const struct ct_output *o = &c->outputs[i];
		char *s = NULL;

		if (o->kind == OUT_FILE && asprintf(&s, "file:%s", o->path) >= 0) {
			jw_item(a, "[]");
			jw_str(a, s);
			free(s);
		} else {
			jw_item(a, "[]");
			jw_str(a, ct_output_kind_to_string(o->kind));
		}
	}
}

/* The patterns of G into the array A: "!" in front of an exclusion, ":N"
 * after a limit (LIMITS: the list has them). */
static void globs_list(struct jw *a, const struct ct_globs *g, bool limits)
{
	for (size_t i = 0; i < g->n; i++) {
		const struct ct_glob *p = &g->items[i];
		char *s = NULL;
		int r;

		if (limits && p->limit)
			r = asprintf(&s, "%s%s:%u", p->exclude ? "!" : "", p->pattern, p->limit);
		else
			r = asprintf(&s, "%s%s", p->exclude ? "!" : "", p->pattern);
		if (r >= 0) {
			jw_item(a, "[]");
			jw_str(a, s);
			free(s);
		}
	}
}

/* The lists of runtime.init, written before its fields refer to them. */
struct init_lists {
	struct jw events, output, exceptions, processes, argv, not_enabled;
};

static void init_lists_done(struct init_lists *l)
{
	jw_free(&l->events);
	jw_free(&l->output);
	jw_free(&l->exceptions);
	jw_free(&l->processes);
	jw_free(&l->argv);
	jw_free(&l->not_enabled);
}

/* The effective configuration, for runtime.init, into C (at least 10),
 * RL (2) and BUDGET (2), its lists into L. */
static void config_fields(struct jw_fields *c, struct jw_fields *rl, struct jw_fields *budget, struct init_lists *l)
{
	const struct ct_config *cfg = &ct.cfg;

	for (int i = 0; i < _CAT_MAX; i++)
		if (ct_categories[i].optional && ct_on(i)) {
			jw_item(&l->events, "[]");
			jw_str(&l->events, ct_categories[i].name);
		}
	jwf_collection(c, "events", &l->events, "[]");
	outputs_list(&l->output, cfg);
	jwf_collection(c, "output", &l->output, "[]");
	globs_list(&l->exceptions, &cfg->exceptions, true);
	jwf_collection(c, "exceptions", &l->exceptions, "[]");
	globs_list(&l->processes, &cfg->processes, false);
	jwf_collection(c, "processes", &l->processes, "[]");
	jwf_bool(c, "messages", cfg->messages);
	jwf_str(c, "ident", cfg->ident ? cfg->ident : ct.program);
	jwf_int(c, "flush_ms", cfg->flush_ms);
	if (cfg->journal_burst) {
		jwf_int(rl, "burst", cfg->journal_burst);
		jwf_int(rl, "interval_s", cfg->journal_interval_s);
		jwf_obj(c, "journal_ratelimit", rl);
	} else
		jwf_null(c, "journal_ratelimit");
	/* the error budget only when on, so that other traces stay as they were */
	if (cfg->budget_errors) {
		jwf_int(budget, "errors", cfg->budget_errors);
		jwf_int(budget, "interval_s", cfg->budget_interval_s);
		jwf_obj(c, "budget", budget);
	}
	/* only with the category, so that other traces stay as they were */
	if (ct_on(CAT_STACKS))
		jwf_int(c, "stack_depth", cfg->stack_depth);
}

/* The runtime's version into D (D->known: it answered); sets
 * ct.runtime_major. */
static void runtime_version(struct ct_runtime_desc *d)
{
	uint16_t inst = 0, major = 0, minor = 0, build = 0, qfe = 0;
	uint32_t type = 0;
	_cleanup_(utf16_name_done) struct utf16_name b = UTF16_NAME_INIT(b);
	HRESULT hr;

	do
		hr = info_GetRuntimeInformation(ct.info, &inst, &type, &major, &minor, &build, &qfe, b.cap, &b.len,
						b.v);
	while (utf16_name_retry(&b, com_name_answered(hr)));
	if (FAILED(hr))
		return;
	d->known = true;
	ct.runtime_major = major;
	d->major = major;
	snprintf(d->version, sizeof(d->version), "%u.%u.%u", major, minor, build);
	d->build = utf16_name_to_utf8(&b, true);
}

/* Does this runtime handle exceptions the pre-.NET 9 way (no second pass
 * for an unhandled exception)? */
static bool legacy_exception_handling(void)
{
	static const char *const vars[] = { "DOTNET_LegacyExceptionHandling", "COMPlus_LegacyExceptionHandling" };

	if (ct.runtime_major && ct.runtime_major < 9)
		return true;
	if (ct.runtime_major != 9)
		return false;
	for (size_t i = 0; i < ELEMENTSOF(vars); i++) {
		const char *v = secure_getenv(vars[i]);

		if (v && strcmp(v, "1") == 0)
			return true;
	}
	return false;
}

/* The runtime of runtime.init into D: version, build, major, legacy_eh,
 * pins_exceptions (sets ct.runtime_major and ct.legacy_eh). */
void ct_runtime_describe(struct ct_runtime_desc *d)
{
	*d = (struct ct_runtime_desc){ 0 };
	runtime_version(d);
	ct.legacy_eh = legacy_exception_handling();
	d->legacy_eh = ct.legacy_eh;
	d->pins_exceptions = ct_pin_wanted();
}

void ct_runtime_desc_done(struct ct_runtime_desc *d)
{
	free(d->build);
	d->build = NULL;
}

/* The names of the categories in the bit set CATS into the array A. */
static void categories_list(struct jw *a, unsigned cats)
{
	for (int i = 0; i < _CAT_MAX; i++)
		if (cats & (1u << i)) {
			jw_item(a, "[]");
			jw_str(a, ct_categories[i].name);
		}
}

/* Emit runtime.init with the runtime D and the command line CMD[0..len). */
void ct_emit_runtime_init(struct ct_thread *t, const struct ct_runtime_desc *d, const char *cmd, size_t cmd_len)
{
	struct init_lists l = { 0 };
	JW_FIELDS(runtime, 5);
	JW_FIELDS(rl, 2);
	JW_FIELDS(budget, 2);
	JW_FIELDS(config, 10);
	JW_FIELDS(f, 7);

	if (d->known) {
		jwf_str(&runtime, "version", d->version);
		jwf_str(&runtime, "build", d->build);
		jwf_int(&runtime, "major", d->major);
		jwf_bool(&runtime, "legacy_eh", d->legacy_eh);
		jwf_bool(&runtime, "pins_exceptions", d->pins_exceptions);
	}
	jwf_obj(&f, "runtime", d->known ? &runtime : NULL);
	for (const char *p = cmd; p && p < cmd + cmd_len; p += strlen(p) + 1) {
		jw_item(&l.argv, "[]");
		jw_str(&l.argv, p);
	}
	jwf_collection(&f, "argv", &l.argv, "[]");
	jwf_str(&f, "program", ct.program);
	jwf_str(&f, "clrtrace", PACKAGE_VERSION);
	config_fields(&config, &rl, &budget, &l);
	jwf_obj(&f, "config", &config);
	jwf_str(&f, "loaded", ct_load_to_string(ct_loaded));
	categories_list(&l.not_enabled, ct_not_enabled);
	jwf_collection(&f, "not_enabled", &l.not_enabled, "[]");
	ct_emit(t, EV_RUNTIME_INIT, PH_INSTANT, 0, &f);
	init_lists_done(&l);
}
