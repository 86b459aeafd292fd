/* SPDX-License-Identifier: MIT */
/* Throw sites: the stack of an exception.throw or exception.summary record
 * (category stacks) put in words, with source lines from the PDBs of the
 * modules the record names. */
#pragma once

#include <jansson.h>
#include <stdbool.h>

#include "common/strbuf.h"

struct sites;

/* A resolver with its PDB cache; NULL on ENOMEM. */
struct sites *sites_new(void);
void sites_free(struct sites *s);

/* The lines `view` prints under a throw into B: "at F() in FILE:line N"
 * (or "at F() IL_xxxx" with no line; "at [native] LIB"), one per frame
 * from the top down to the first frame with a source line, each after
 * INDENT and ending in a newline.  False: the record has no stack. */
bool sites_view(struct sites *s, json_t *rec, const char *indent, struct strbuf *b);

/* The throw site of REC in words: "at F() in FILE:line N" (the first
 * frame with a source line, else the first frame), malloc'd; NULL: the
 * record has no stack (or no memory). */
char *sites_site(struct sites *s, json_t *rec);

/* The throw site of REC for grouping: "TYPE " and its site, malloc'd; NULL:
 * the record has no stack. */
char *sites_key(struct sites *s, json_t *rec);

/* Each frame of REC's stack with a source line gains "file" and "line"
 * (REC is changed: give it a copy); how many did. */
size_t sites_add_lines(struct sites *s, json_t *rec);

/* The first frame of REC's stack with a source line, short: "Program.cs:111"
 * (the file's last component), malloc'd; NULL: no stack, or no line. */
char *sites_line(struct sites *s, json_t *rec);
