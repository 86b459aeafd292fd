/* SPDX-License-Identifier: MIT */
/*
 * The event table against what must agree with it: the record schema
 * (event enum, one payload definition per event, its kind), the generated
 * message catalog, and the table's own rules (unique names and
 * MESSAGE_IDs, a describer and a journal template for every event).
 * With "journal": the table's priority and MESSAGE_ID of every event, for
 * tests/journal.sh and tests/fleet.sh.
 */
#include <ctype.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "common/vocabulary.h"
#include "unit.h"

/* The columns only the CLI and the catalog generator expand, as text. */
static const struct {
	const char *describe, *stats, *subject, *body;
} cli_columns[_EV_MAX] = {
#define EV(id, name, cat, kind, prio, msgid, desc, message, color, describe_fn, stats_fn, subj, text) \
	[EV_##id] = { #describe_fn, #stats_fn, subj, text },
#include "common/vocabulary.def"
#undef EV
};

/* A file under the source (or build) tree, from the test environment. */
static char *tree_path(const char *var, const char *rel)
{
	const char *top = getenv(var);
	char *p;

	if (asprintf(&p, "%s/%s", top && *top ? top : ".", rel) < 0)
		abort();
	return p;
}

/* Is S exactly 32 lowercase hex digits? */
static bool is_message_id(const char *s)
{
	size_t n = 0;

	for (; s && s[n]; n++)
		if (!isdigit((unsigned char)s[n]) && !(s[n] >= 'a' && s[n] <= 'f'))
			return false;
	return n == 32;
}

/* Is S a C identifier starting with PREFIX? */
static bool is_fn(const char *s, const char *prefix)
{
	if (strncmp(s, prefix, strlen(prefix)) != 0 || !s[strlen(prefix)])
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_')
			return false;
	return true;
}

/* Add to NAMES every property name reachable from schema node V,
 * following local $refs (DEFS) a few levels deep. */
static void collect_props(json_t *defs, json_t *v, json_t *names, int depth)
{
	const char *key, *ref;
	json_t *x;
	size_t i;

	if (depth > 8)
		return;
	if (json_is_array(v)) {
		json_array_foreach(v, i, x)
			collect_props(defs, x, names, depth + 1);
		return;
	}
	if (!json_is_object(v))
		return;
	ref = json_string_value(json_object_get(v, "$ref"));
	if (ref && strncmp(ref, "#/$defs/", 8) == 0)
		collect_props(defs, json_object_get(defs, ref + 8), names, depth + 1);
	json_object_foreach(json_object_get(v, "properties"), key, x)
		json_object_set_new(names, key, json_true());
	json_object_foreach(v, key, x)
		if (strcmp(key, "$ref") != 0)
			collect_props(defs, x, names, depth + 1);
}

/* Check a MESSAGE template: groups balanced and flat, every @path@ closed
 * and made of record property names the schema gives the event. */
static bool template_ok(const char *t, json_t *props, char *why, size_t whylen)
{
	bool in_group = false;

	for (const char *p = t; *p; p++) {
		if (*p == '[' || *p == ']') {
			if (in_group == (*p == '[')) {
				snprintf(why, whylen, "unbalanced [ ] at offset %td", p - t);
				return false;
			}
			in_group = *p == '[';
		} else if (*p == '@') {
			const char *end = strchr(p + 1, '@');
			char path[128], *save = NULL;

			if (!end || end == p + 1 || (size_t)(end - p) > sizeof(path)) {
				snprintf(why, whylen, "unclosed or empty @path@ at offset %td", p - t);
				return false;
			}
			memcpy(path, p + 1, (size_t)(end - p - 1));
			path[end - p - 1] = 0;
			/* @fn:path@: the method named at path */
			if (strncmp(path, CT_MESSAGE_METHOD, strlen(CT_MESSAGE_METHOD)) == 0)
				memmove(path, path + strlen(CT_MESSAGE_METHOD), strlen(path) - strlen(CT_MESSAGE_METHOD) + 1);
			for (char *c = strtok_r(path, ".", &save); c; c = strtok_r(NULL, ".", &save))
				if (!json_object_get(props, c)) {
					snprintf(why, whylen, "@%.*s@: no property \"%s\" in the schema",
						 (int)(end - p - 1), p + 1, c);
					return false;
				}
			p = end;
		}
	}
	if (in_group)
		snprintf(why, whylen, "a [ group is not closed");
	return !in_group;
}

/* The schema's event enum, payload definitions and dispatch, event by event. */
static void test_schema(void)
{
	_cleanup_free_ char *path = tree_path("top_srcdir", "schemas/record.schema.json");
	json_error_t err;
	json_t *schema = json_load_file(path, 0, &err), *en, *defs, *all, *phases, *v;
	size_t i;

	CHECK(schema, "schema %s loads (%s)", path, schema ? "ok" : err.text);
	if (!schema)
		return;
	en = json_object_get(json_object_get(json_object_get(schema, "properties"), "event"), "enum");
	defs = json_object_get(schema, "$defs");
	all = json_object_get(schema, "allOf");
	CHECK(json_array_size(en) == _EV_MAX, "schema event enum has %zu names, the table %d events",
	      json_array_size(en), _EV_MAX);
	for (int e = 0; e < _EV_MAX; e++) {
		const char *name = ct_events[e].name, *got = json_string_value(json_array_get(en, (size_t)e));
		_cleanup_free_ char *key = NULL, *desc = NULL;
		json_t *def, *props = json_object();
		const char *kind_ref, *want_ref;
		bool dispatched = false;
		char why[160] = "";

		CHECK(got && strcmp(got, name) == 0, "schema event enum[%d] is %s, the table's %s", e,
		      got ? got : "(none)", name);
		if (asprintf(&key, "event:%s", name) < 0 || asprintf(&desc, "payload of %s", name) < 0)
			abort();
		def = json_object_get(defs, key);
		CHECK(json_is_object(def), "%s: schema has $defs/%s", name, key);
		CHECK(json_is_string(json_object_get(def, "description")) &&
			      strcmp(json_string_value(json_object_get(def, "description")), desc) == 0,
		      "%s: its description is \"%s\"", name, desc);
		kind_ref = json_string_value(json_object_get(json_array_get(json_object_get(def, "allOf"), 0), "$ref"));
		want_ref = ct_events[e].kind == KIND_SPAN ? "#/$defs/span" : "#/$defs/instant";
		CHECK(kind_ref && strcmp(kind_ref, want_ref) == 0, "%s: schema kind %s, table %s", name,
		      kind_ref ? kind_ref : "(none)", want_ref);
		json_array_foreach(all, i, v) {
			const char *c = json_string_value(json_object_get(
				json_object_get(json_object_get(json_object_get(v, "if"), "properties"), "event"), "const"));
			const char *r = json_string_value(json_object_get(json_object_get(v, "then"), "$ref"));

			if (c && strcmp(c, name) == 0 && r && strcmp(r + strlen("#/$defs/"), key) == 0)
				dispatched = true;
		}
		CHECK(dispatched, "%s: the schema's allOf sends it to $defs/%s", name, key);
		collect_props(defs, def, props, 0);
		collect_props(defs, json_object_get(schema, "properties"), props, 0);
		CHECK(template_ok(ct_events[e].message ?: "", props, why, sizeof(why)),
		      "%s: MESSAGE template \"%s\" %s", name, ct_events[e].message ?: "(null)", why[0] ? why : "is well formed");
		json_decref(props);
	}
	phases = json_object_get(json_object_get(json_object_get(schema, "properties"), "phase"), "enum");
	CHECK(json_array_size(phases) == _PH_MAX, "schema has %zu phases, the table %d", json_array_size(phases), _PH_MAX);
	json_array_foreach(phases, i, v)
		CHECK(ct_phase_from_string(json_string_value(v)) != _PH_INVALID, "schema phase %s is a table phase",
		      json_string_value(v));
	en = json_object_get(json_object_get(json_object_get(json_array_get(json_object_get(json_object_get(
				defs, "event:exception.summary"), "allOf"), 1), "properties"), "outcome"), "enum");
	CHECK(json_array_size(en) == _OUTCOME_MAX, "schema has %zu outcomes, the table %d", json_array_size(en),
	      _OUTCOME_MAX);
	for (int o = 0; o < _OUTCOME_MAX; o++)
		CHECK(ct_outcome_from_string(json_string_value(json_array_get(en, (size_t)o))) == (enum ct_outcome)o,
		      "schema outcome %d is the table's %s", o, ct_outcome_to_string(o));
	json_decref(schema);
}

/* The table's own rules: the facts that used to drift between hand-kept lists. */
static void test_table(void)
{
	for (int e = 0; e < _EV_MAX; e++) {
		const struct ct_event_info *ev = &ct_events[e];
		const char *name = ev->name;
		bool unique_name = true, unique_id = true;

		for (int o = 0; o < e; o++) {
			unique_name &= strcmp(ct_events[o].name, name) != 0;
			unique_id &= strcmp(ct_events[o].message_id, ev->message_id) != 0;
		}
		CHECK(unique_name && ct_event_from_string(name) == (enum ct_event)e, "%s: a unique name", name);
		CHECK(ev->category >= 0 && ev->category < _CAT_MAX && (ev->kind == KIND_INSTANT || ev->kind == KIND_SPAN),
		      "%s: category %s, kind %s", name,
		      ev->category >= 0 && ev->category < _CAT_MAX ? ct_categories[ev->category].name : "?",
		      ev->kind == KIND_SPAN ? "span" : "instant");
		CHECK(ev->priority >= 0 && ev->priority <= 7, "%s: journal PRIORITY %d is a syslog level", name, ev->priority);
		CHECK(is_message_id(ev->message_id), "%s: MESSAGE_ID %s is 32 lowercase hex digits", name, ev->message_id);
		CHECK(unique_id, "%s: MESSAGE_ID %s is no other event's", name, ev->message_id);
		CHECK(ev->description && isupper((unsigned char)ev->description[0]) &&
			      ev->description[strlen(ev->description) - 1] != '.',
		      "%s: a description, capitalised, no full stop", name);
		CHECK(ev->message != NULL, "%s: a journal MESSAGE template", name);
		CHECK(ev->color >= 0 && ev->color < _COLOR_MAX, "%s: a view colour", name);
		CHECK(is_fn(cli_columns[e].describe, "d_"), "%s: a describer (%s)", name, cli_columns[e].describe);
		CHECK(strcmp(cli_columns[e].stats, "NULL") == 0 || is_fn(cli_columns[e].stats, "on_"),
		      "%s: stats use %s", name, cli_columns[e].stats);
		CHECK((!cli_columns[e].subject || cli_columns[e].subject[0]) && cli_columns[e].body &&
			      cli_columns[e].body[0] && cli_columns[e].body[strlen(cli_columns[e].body) - 1] == '\n',
		      "%s: catalog text (%s subject)", name, cli_columns[e].subject ? "its own" : "the plain");
	}
}

/* Does category C want event E: its own, and the gc spans for startup. */
static bool wanted_by(int e, int c)
{
	return ct_events[e].category == (enum ct_category)c || (e == EV_GC && c == CAT_STARTUP);
}

/* ct_event_mask: an event is wanted exactly when a category that wants it is on. */
static void test_event_mask(void)
{
	for (int c = 0; c < _CAT_MAX; c++) {
		uint64_t one = ct_event_mask(1u << c), others = ct_event_mask(~(1u << c));
		bool ok = true;

		for (int e = 0; e < _EV_MAX; e++) {
			bool by_others = false;

			for (int d = 0; d < _CAT_MAX; d++)
				by_others |= d != c && wanted_by(e, d);
			ok &= ((one >> e) & 1) == wanted_by(e, c) && ((others >> e) & 1) == by_others;
		}
		CHECK(ok, "event mask of category %s: its events and no other", ct_categories[c].name);
	}
	CHECK(ct_event_mask(0) == 0, "no category: no event");
}

/* The generated catalog: exactly one entry per event, with its Subject. */
static void test_catalog(void)
{
	_cleanup_free_ char *path = tree_path("top_builddir", "contrib/clrtrace.catalog");
	_cleanup_free_ char *text = NULL;
	size_t len = 0, entries = 0;
	FILE *f = fopen(path, "re");
	char line[512];

	CHECK(f, "generated catalog %s opens", path);
	if (!f)
		return;
	{
		FILE *m = open_memstream(&text, &len);

		while (fgets(line, sizeof(line), f)) {
			fputs(line, m);
			entries += strncmp(line, "-- ", 3) == 0;
		}
		fclose(m);
	}
	fclose(f);
	CHECK(entries == _EV_MAX, "catalog has %zu entries, the table %d events", entries, _EV_MAX);
	for (int e = 0; e < _EV_MAX; e++) {
		char head[64];
		const char *at, *subj;
		size_t n = 0;

		snprintf(head, sizeof(head), "\n-- %s\n", ct_events[e].message_id);
		for (at = strstr(text, head); at; at = strstr(at + 1, head))
			n++;
		at = strstr(text, head);
		subj = at ? at + strlen(head) : NULL;
		CHECK(n == 1 && strncmp(subj, "Subject: ", 9) == 0, "%s: one catalog entry, with a Subject",
		      ct_events[e].name);
	}
}

/* test-vocabulary journal: "EVENT PRIORITY MESSAGE_ID" for every event,
 * the journal columns of the table, for the shell tests to ask. */
static int print_journal(void)
{
	for (int i = 0; i < _EV_MAX; i++)
		printf("%s %d %s\n", ct_events[i].name, ct_events[i].priority, ct_events[i].message_id);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 2 && strcmp(argv[1], "journal") == 0)
		return print_journal();
	if (argc > 1) {
		fprintf(stderr, "usage: test-vocabulary [journal]\n");
		return 2;
	}
	test_table();
	test_event_mask();
	test_schema();
	test_catalog();
	printf("%s\n", failures ? "FAIL" : "PASS");
	return failures ? 1 : 0;
}
