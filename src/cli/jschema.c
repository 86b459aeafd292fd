/* SPDX-License-Identifier: MIT */
/*
 * JSON Schema validation for the keywords clrtrace's schemas use: type,
 * const, enum, required, properties, additionalProperties, items, minimum,
 * minLength, pattern (POSIX ERE), $ref to "#/...", allOf, anyOf, oneOf,
 * not, if/then/else.  Annotations are ignored; anything else is refused
 * when the schema is loaded, so the subset cannot drift silently.
 */
#include <errno.h>
#include <regex.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/jschema.h"

struct pattern {
	json_t *node; /* the "pattern" string node (borrowed from root) */
	regex_t re;
};

struct jschema {
	json_t *root;
	struct pattern *patterns;
	size_t n_patterns;
};

struct vctx {
	struct jschema *s;
	jschema_report_fn report; /* NULL: count only */
	void *ud;
	char *path;
	size_t path_len, path_cap;
	int depth;
};

typedef int (*keyword_fn)(struct vctx *c, json_t *schema, json_t *value, json_t *inst);

static int validate(struct vctx *c, json_t *schema, json_t *inst);

/* Report one violation at the current path; returns 1. */
__attribute__((format(printf, 2, 3))) static int violation(struct vctx *c, const char *fmt, ...)
{
	char *msg = NULL;
	va_list ap;

	if (!c->report)
		return 1;
	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	c->report(c->ud, c->path_len ? c->path : "/", msg ? msg : "invalid");
	free(msg);
	return 1;
}

/* Push "/seg" on the path; returns the old length for path_pop. */
static size_t path_push(struct vctx *c, const char *seg)
{
	size_t old = c->path_len, need = old + 1 + strlen(seg) + 1;

	if (need > c->path_cap) {
		size_t cap = need * 2;
		char *p = realloc(c->path, cap);

		if (!p)
			return old; /* path stays shorter; messages still make sense */
		c->path = p;
		c->path_cap = cap;
	}
	c->path[old] = '/';
	strcpy(c->path + old + 1, seg);
	c->path_len = need - 1;
	return old;
}

/* Restore the path to length OLD. */
static void path_pop(struct vctx *c, size_t old)
{
	c->path_len = old;
	if (c->path)
		c->path[old] = '\0';
}

/* Name of an instance's JSON type. */
static const char *type_name(json_t *v)
{
	static const char *const names[] = {
		[JSON_OBJECT] = "object", [JSON_ARRAY] = "array", [JSON_STRING] = "string", [JSON_INTEGER] = "integer",
		[JSON_REAL] = "number", [JSON_TRUE] = "boolean", [JSON_FALSE] = "boolean", [JSON_NULL] = "null",
	};

	return names[json_typeof(v)];
}

/* Does INST have JSON Schema type NAME? */
static bool has_type(json_t *inst, const char *name)
{
	if (strcmp(name, "integer") == 0) {
		double d = json_is_real(inst) ? json_real_value(inst) : 0;

		/* a real is an integer when it has no fraction; the cast only
		 * for values a long long holds (2.9e38 is not UB-free) */
		return json_is_integer(inst) ||
		       (json_is_real(inst) && d >= -9.2e18 && d <= 9.2e18 && (double)(long long)d == d);
	}
	if (strcmp(name, "number") == 0)
		return json_is_number(inst);
	return strcmp(type_name(inst), name) == 0;
}

/* JSON Schema equality (1 == 1.0). */
static bool equal(json_t *a, json_t *b)
{
	if (json_is_number(a) && json_is_number(b))
		return json_number_value(a) == json_number_value(b);
	return json_equal(a, b);
}

static int kw_type(struct vctx *c, json_t *schema, json_t *value, json_t *inst)
{
	size_t i;
	json_t *t;

	if (json_is_string(value))
		return has_type(inst, json_string_value(value)) ? 0 :
			violation(c, "expected %s, got %s", json_string_value(value), type_name(inst));
	json_array_foreach(value, i, t)
		if (json_is_string(t) && has_type(inst, json_string_value(t)))
			return 0;
	return violation(c, "%s is not an allowed type", type_name(inst));
}

static int kw_const(struct vctx *c, json_t *schema, json_t *value, json_t *inst)
{
	char *want;
	int r;

	if (equal(value, inst))
		return 0;
	want = json_dumps(value, JSON_ENCODE_ANY | JSON_COMPACT);
	r = violation(c, "expected %s", want ? want : "a constant");
	free(want);
	return r;
}

static int kw_enum(struct vctx *c, json_t *schema, json_t *value, json_t *inst)
{
	size_t i;
	json_t *e;
	char *got;
	int r;

	json_array_foreach(value, i, e)
		if (equal(e, inst))
			return 0;
	got = json_dumps(inst, JSON_ENCODE_ANY | JSON_COMPACT);
	r = violation(c, "%.80s is not one of the allowed values", got ? got : "value");
	free(got);
	return r;
}

static int kw_required(struct vctx *c, json_t *schema, json_t *value, json_t *inst)
{
	size_t i;
	json_t *k;
	int n = 0;

	if (!json_is_object(inst))
		return 0;
	json_array_foreach(value, i, k)
		if (json_is_string(k) && !json_object_get(inst, json_string_value(k)))
			n += violation(c, "\"%s\" is required", json_string_value(k));
	return n;
}

static int kw_properties(struct vctx *c, json_t *schema, json_t *value, json_t *inst)
{
	const char *key;
	json_t *sub;
	int n = 0;

	if (!json_is_object(inst))
		return 0;
	json_object_foreach(value, key, sub) {
		json_t *v = json_object_get(inst, key);
		size_t old;

		if (!v)
			continue;
		old = path_push(c, key);
		n += validate(c, sub, v);
		path_pop(c, old);
		if (n && !c->report)
			break;
	}
	return n;
}

static int kw_additional(struct vctx *c, json_t *schema, json_t *value, json_t *inst)
{
	json_t *props = json_object_get(schema, "properties"), *v;
	const char *key;
	int n = 0;

	if (!json_is_object(inst))
		return 0;
	json_object_foreach(inst, key, v) {
		size_t old;

		if (json_object_get(props, key))
			continue;
		old = path_push(c, key);
		if (json_is_false(value))
			n += violation(c, "property not allowed");
		else if (json_is_object(value))
			n += validate(c, value, v);
		path_pop(c, old);
	}
	return n;
}

static int kw_items(struct vctx *c, json_t *schema, json_t *value, json_t *inst)
{
	size_t i;
	json_t *v;
	int n = 0;

	if (!json_is_array(inst))
		return 0;
	json_array_foreach(inst, i, v) {
		char idx[3 * sizeof(size_t) + 1];
		size_t old;

		snprintf(idx, sizeof(idx), "%zu", i);
		old = path_push(c, idx);
		n += validate(c, value, v);
		path_pop(c, old);
	}
	return n;
}

static int kw_minimum(struct vctx *c, json_t *schema, json_t *value, json_t *inst)
{
	if (!json_is_number(inst))
		return 0;
	if (json_is_integer(inst) && json_is_integer(value))
		return json_integer_value(inst) >= json_integer_value(value) ? 0 :
			violation(c, "%lld is below the minimum %lld", (long long)json_integer_value(inst),
				  (long long)json_integer_value(value));
	return json_number_value(inst) >= json_number_value(value) ? 0 : violation(c, "below the minimum");
}

static int kw_min_length(struct vctx *c, json_t *schema, json_t *value, json_t *inst)
{
	const unsigned char *s = (const unsigned char *)json_string_value(inst);
	json_int_t n = 0;

	if (!s)
		return 0;
	for (; *s; s++)
		n += (*s & 0xc0) != 0x80; /* count code points */
	return n >= json_integer_value(value) ? 0 : violation(c, "shorter than %lld", (long long)json_integer_value(value));
}

static int kw_pattern(struct vctx *c, json_t *schema, json_t *value, json_t *inst)
{
	const char *s = json_string_value(inst);

	if (!s)
		return 0;
	for (size_t i = 0; i < c->s->n_patterns; i++)
		if (c->s->patterns[i].node == value)
			return regexec(&c->s->patterns[i].re, s, 0, NULL, 0) == 0 ? 0 :
				violation(c, "\"%.80s\" does not match %s", s, json_string_value(value));
	return 0;
}

/* Resolve "#/a/b" against the root; NULL if it does not resolve. */
static json_t *resolve(json_t *root, const char *ref)
{
	json_t *node = root;
	const char *p;

	if (strncmp(ref, "#", 1) != 0)
		return NULL;
	for (p = ref + 1; node && *p == '/';) {
		size_t n = strcspn(p + 1, "/");
		char *seg = strndup(p + 1, n);

		if (!seg)
			return NULL;
		node = json_object_get(node, seg);
		free(seg);
		p += 1 + n;
	}
	return *p ? NULL : node;
}

static int kw_ref(struct vctx *c, json_t *schema, json_t *value, json_t *inst)
{
	json_t *target = resolve(c->s->root, json_string_value(value));

	return target ? validate(c, target, inst) : violation(c, "unresolvable $ref");
}

static int kw_all_of(struct vctx *c, json_t *schema, json_t *value, json_t *inst)
{
	size_t i;
	json_t *sub;
	int n = 0;

	json_array_foreach(value, i, sub) {
		n += validate(c, sub, inst);
		if (n && !c->report)
			break;
	}
	return n;
}

/* Does INST satisfy SCHEMA?  (No reports.) */
static bool valid_quietly(struct vctx *c, json_t *schema, json_t *inst)
{
	jschema_report_fn report = c->report;
	int n;

	c->report = NULL;
	n = validate(c, schema, inst);
	c->report = report;
	return n == 0;
}

/* How many subschemas of VALUE does INST satisfy (stops at LIMIT)? */
static size_t count_valid(struct vctx *c, json_t *value, json_t *inst, size_t limit)
{
	size_t i, ok = 0;
	json_t *sub;

	json_array_foreach(value, i, sub)
		if (valid_quietly(c, sub, inst) && ++ok >= limit)
			break;
	return ok;
}

static int kw_any_of(struct vctx *c, json_t *schema, json_t *value, json_t *inst)
{
	return count_valid(c, value, inst, 1) ? 0 : violation(c, "matches none of anyOf");
}

static int kw_one_of(struct vctx *c, json_t *schema, json_t *value, json_t *inst)
{
	size_t n = count_valid(c, value, inst, 2);

	return n == 1 ? 0 : violation(c, n ? "matches more than one of oneOf" : "matches none of oneOf");
}

static int kw_not(struct vctx *c, json_t *schema, json_t *value, json_t *inst)
{
	json_t *req = json_object_get(value, "required");

	if (!valid_quietly(c, value, inst))
		return 0;
	if (json_object_size(value) == 1 && json_array_size(req) == 1)
		return violation(c, "\"%s\" is not allowed here", json_string_value(json_array_get(req, 0)) ?: "?");
	return violation(c, "matches a schema it must not match");
}

static int kw_if(struct vctx *c, json_t *schema, json_t *value, json_t *inst)
{
	json_t *branch = json_object_get(schema, valid_quietly(c, value, inst) ? "then" : "else");

	return branch ? validate(c, branch, inst) : 0;
}

static const struct keyword {
	const char *name;
	keyword_fn fn; /* NULL: annotation or handled by another keyword */
} keywords[] = {
	/* most frequent first: the lookup is linear */
	{ "if", kw_if },
	{ "then", NULL },
	{ "properties", kw_properties },
	{ "required", kw_required },
	{ "const", kw_const },
	{ "$ref", kw_ref },
	{ "type", kw_type },
	{ "allOf", kw_all_of },
	{ "enum", kw_enum },
	{ "additionalProperties", kw_additional },
	{ "items", kw_items },
	{ "minimum", kw_minimum },
	{ "minLength", kw_min_length },
	{ "pattern", kw_pattern },
	{ "anyOf", kw_any_of },
	{ "oneOf", kw_one_of },
	{ "not", kw_not },
	{ "else", NULL },
	{ "$schema", NULL },
	{ "$id", NULL },
	{ "$defs", NULL },
	{ "$comment", NULL },
	{ "title", NULL },
	{ "description", NULL },
	{ "default", NULL },
	{ "examples", NULL },
};

/* The keyword table entry for NAME, or NULL. */
static const struct keyword *keyword_find(const char *name)
{
	for (size_t i = 0; i < sizeof(keywords) / sizeof(keywords[0]); i++)
		if (strcmp(keywords[i].name, name) == 0)
			return &keywords[i];
	return NULL;
}

/* Validate INST against SCHEMA; number of violations. */
static int validate(struct vctx *c, json_t *schema, json_t *inst)
{
	const char *key;
	json_t *value;
	int n = 0;

	if (json_is_true(schema))
		return 0;
	if (json_is_false(schema))
		return violation(c, "not allowed");
	if (++c->depth > 64) {
		c->depth--;
		return violation(c, "schema nests too deeply");
	}
	json_object_foreach(schema, key, value) {
		const struct keyword *k = keyword_find(key);

		if (k && k->fn)
			n += k->fn(c, schema, value, inst);
		if (n && !c->report)
			break;
	}
	c->depth--;
	return n;
}

/* Validate INST (see jschema.h). */
int jschema_validate(struct jschema *s, json_t *inst, jschema_report_fn report, void *userdata)
{
	struct vctx c = { .s = s, .report = report, .ud = userdata };
	int n = validate(&c, s->root, inst);

	free(c.path);
	return n;
}

/* Check a schema node for unsupported keywords and compile its patterns. */
static int prepare(struct jschema *s, json_t *node, const char *where, char **ret_err)
{
	const char *key;
	json_t *value;
	int r;

	if (json_is_boolean(node))
		return 0;
	if (!json_is_object(node))
		return asprintf(ret_err, "%s: a schema must be an object or boolean", where) < 0 ? -ENOMEM : -EINVAL;
	json_object_foreach(node, key, value) {
		const struct keyword *k = keyword_find(key);
		json_t *sub;
		const char *sk;
		size_t i;

		if (!k)
			return asprintf(ret_err, "%s: keyword \"%s\" is not supported", where, key) < 0 ? -ENOMEM : -EINVAL;
		if (strcmp(key, "pattern") == 0) {
			struct pattern *p = realloc(s->patterns, (s->n_patterns + 1) * sizeof(*p));

			if (!p)
				return -ENOMEM;
			s->patterns = p;
			if (!json_is_string(value) ||
			    regcomp(&p[s->n_patterns].re, json_string_value(value), REG_EXTENDED | REG_NOSUB) != 0)
				return asprintf(ret_err, "%s: bad pattern", where) < 0 ? -ENOMEM : -EINVAL;
			p[s->n_patterns++].node = value;
		} else if (strcmp(key, "properties") == 0 || strcmp(key, "$defs") == 0) {
			json_object_foreach(value, sk, sub)
				if ((r = prepare(s, sub, sk, ret_err)) < 0)
					return r;
		} else if (strcmp(key, "allOf") == 0 || strcmp(key, "anyOf") == 0 || strcmp(key, "oneOf") == 0) {
			json_array_foreach(value, i, sub)
				if ((r = prepare(s, sub, key, ret_err)) < 0)
					return r;
		} else if (strcmp(key, "items") == 0 || strcmp(key, "not") == 0 || strcmp(key, "if") == 0 ||
			   strcmp(key, "then") == 0 || strcmp(key, "else") == 0 ||
			   strcmp(key, "additionalProperties") == 0) {
			if ((r = prepare(s, value, key, ret_err)) < 0)
				return r;
		} else if (strcmp(key, "$ref") == 0 && !resolve(s->root, json_string_value(value) ? json_string_value(value) : "")) {
			return asprintf(ret_err, "%s: $ref \"%s\" does not resolve", where,
					json_string_value(value) ? json_string_value(value) : "?") < 0 ? -ENOMEM : -EINVAL;
		}
	}
	return 0;
}

/* Load a schema (see jschema.h). */
int jschema_load(struct jschema **ret, const char *text, size_t len, char **ret_err)
{
	struct jschema *s = calloc(1, sizeof(*s));
	json_error_t e;
	int r;

	*ret_err = NULL;
	if (!s)
		return -ENOMEM;
	s->root = json_loadb(text, len, 0, &e);
	if (!s->root) {
		r = asprintf(ret_err, "line %d: %s", e.line, e.text) < 0 ? -ENOMEM : -EINVAL;
		goto fail;
	}
	r = prepare(s, s->root, "schema", ret_err);
	if (r < 0)
		goto fail;
	*ret = s;
	return 0;
fail:
	jschema_free(s);
	return r;
}

/* Free a schema; NULL-safe. */
struct jschema *jschema_free(struct jschema *s)
{
	if (!s)
		return NULL;
	for (size_t i = 0; i < s->n_patterns; i++)
		regfree(&s->patterns[i].re);
	free(s->patterns);
	json_decref(s->root);
	free(s);
	return NULL;
}
