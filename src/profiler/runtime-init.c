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

/* The outputs as the configuration spells them. */
static json_t *outputs_json(const struct ct_config *c)
{
	json_t *outs = json_array();

	for (size_t i = 0; i < c->n_outputs; i++) {
		const struct ct_output *o = &c->outputs[i];
		char *s = NULL;

		if (o->kind == OUT_FILE && asprintf(&s, "file:%s", o->path) >= 0) {
			json_array_append_new(outs, json_string(s));
			free(s);
		} else
			json_array_append_new(outs, json_string(ct_output_kind_to_string(o->kind)));
	}
	return outs;
}

/* The patterns of G: "!" in front of an exclusion, ":N" after a limit
 * (LIMITS: the list has them). */
static json_t *globs_json(const struct ct_globs *g, bool limits)
{
	json_t *out = json_array();

	for (size_t i = 0; i < g->n; i++) {
		const struct ct_glob *p = &g->items[i];
		char *s = NULL;
		int r;

		if (limits && p->limit)
			r = asprintf(&s, "%s%s:%u", p->exclude ? "!" : "", p->pattern, p->limit);
		else
			r = asprintf(&s, "%s%s", p->exclude ? "!" : "", p->pattern);
		if (r >= 0) {
			json_array_append_new(out, json_string(s));
			free(s);
		}
	}
	return out;
}

/* The effective configuration, for runtime.init. */
static json_t *config_json(void)
{
	const struct ct_config *c = &ct.cfg;
	json_t *cats = json_array();
	json_t *o;

	for (int i = 0; i < _CAT_MAX; i++)
		if (ct_categories[i].optional && ct_on(i))
			json_array_append_new(cats, json_string(ct_categories[i].name));
	o = json_pack("{s:o,s:o,s:o,s:o,s:b,s:s,s:i,s:o}", "events", cats, "output", outputs_json(c),
		      "exceptions", globs_json(&c->exceptions, true), "processes", globs_json(&c->processes, false),
		      "messages", c->messages, "ident", c->ident ? c->ident : ct.program, "flush_ms", c->flush_ms,
		      "journal_ratelimit",
		      c->journal_burst ? json_pack("{s:i,s:i}", "burst", c->journal_burst, "interval_s",
						   c->journal_interval_s)
				       : json_null());
	/* only with the category, so that other traces stay as they were */
	if (o && ct_on(CAT_STACKS))
		json_object_set_new(o, "stack_depth", json_integer(c->stack_depth));
	return o;
}

/* Runtime version, for runtime.init; sets ct.runtime_major. */
static json_t *runtime_version(void)
{
	uint16_t inst = 0, major = 0, minor = 0, build = 0, qfe = 0;
	uint32_t type = 0;
	_cleanup_(utf16_name_done) struct utf16_name b = UTF16_NAME_INIT(b);
	char ver[64];
	HRESULT hr;

	do
		hr = info_GetRuntimeInformation(ct.info, &inst, &type, &major, &minor, &build, &qfe, b.cap, &b.len,
						b.v);
	while (utf16_name_retry(&b, com_name_answered(hr)));
	if (FAILED(hr))
		return json_null();
	ct.runtime_major = major;
	snprintf(ver, sizeof(ver), "%u.%u.%u", major, minor, build);
	_cleanup_free_ char *s = utf16_name_to_utf8(&b, true);
	return json_pack("{s:s,s:s?,s:i}", "version", ver, "build", s, "major", major);
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

/* The runtime object of runtime.init: version, build, major, legacy_eh,
 * pins_exceptions (sets ct.runtime_major and ct.legacy_eh). */
json_t *ct_runtime_json(void)
{
	json_t *runtime = runtime_version();

	ct.legacy_eh = legacy_exception_handling();
	if (json_is_object(runtime)) {
		json_object_set_new(runtime, "legacy_eh", json_boolean(ct.legacy_eh));
		json_object_set_new(runtime, "pins_exceptions", json_boolean(ct_pin_wanted()));
	}
	return runtime;
}

/* The names of the categories in the bit set CATS. */
static json_t *categories_json(unsigned cats)
{
	json_t *out = json_array();

	for (int i = 0; i < _CAT_MAX; i++)
		if (cats & (1u << i))
			json_array_append_new(out, json_string(ct_categories[i].name));
	return out;
}

/* Emit runtime.init with RUNTIME (stolen) and the command line CMD[0..len). */
void ct_emit_runtime_init(struct ct_thread *t, json_t *runtime, const char *cmd, size_t cmd_len)
{
	json_t *argv = json_array();

	for (const char *p = cmd; p && p < cmd + cmd_len; p += strlen(p) + 1)
		json_array_append_new(argv, json_string(p));
	ct_emit_json(t, EV_RUNTIME_INIT, PH_INSTANT, 0,
		json_pack("{s:o,s:o,s:s,s:s,s:o,s:s,s:o}", "runtime", runtime, "argv", argv, "program", ct.program,
			  "clrtrace", PACKAGE_VERSION, "config", config_json(), "loaded", ct_load_to_string(ct_loaded),
			  "not_enabled", categories_json(ct_not_enabled)));
}
