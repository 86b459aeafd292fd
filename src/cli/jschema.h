/* SPDX-License-Identifier: MIT */
/* A small JSON Schema (draft 2020-12) validator for the subset our schemas use. */
#pragma once

#include <jansson.h>

struct jschema;

/* Called once per violation: PATH is a JSON pointer into the instance. */
typedef void (*jschema_report_fn)(void *userdata, const char *path, const char *message);

/* Load a schema from text; keywords outside the subset are an error
 * (message in *ret_err, malloc'd). */
int jschema_load(struct jschema **ret, const char *text, size_t len, char **ret_err);
struct jschema *jschema_free(struct jschema *s);
/* Validate INST; returns the number of violations reported (report may be
 * NULL). */
int jschema_validate(struct jschema *s, json_t *inst, jschema_report_fn report, void *userdata);
/* The schema compiled into clrtrace (schemas/record.schema.json). */
extern const char ct_record_schema[];
extern const unsigned ct_record_schema_len;
