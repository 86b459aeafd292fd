/* SPDX-License-Identifier: MIT */
/*
 * Throw sites from the stack a record carries: each managed frame names
 * its method token, IL offset and module (an index into the record's
 * modules, with path and MVID); the line comes from that module's PDB,
 * read once per module (common/pdb.c) and only for the very build that
 * ran and the PDB it was built with.  No PDB, another build, a bad PDB:
 * the frame is said by method and IL offset, and nothing else changes,
 * but that a PDB there and refused (malformed, or not the one the
 * assembly was built with) is said once on stderr.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/reader.h"
#include "cli/sites.h"
#include "common/dotnet-names.h"
#include "common/pdb.h"
#include "common/util.h"

struct sites {
	struct pdb_cache *pdbs;
	json_t *said; /* assemblies whose PDB was rejected, said once */
};

/* A new resolver (see sites.h). */
struct sites *sites_new(void)
{
	struct sites *s = calloc(1, sizeof(*s));

	if (s && (!(s->pdbs = pdb_cache_new()) || !(s->said = json_object()))) {
		sites_free(s);
		s = NULL;
	}
	return s;
}

void sites_free(struct sites *s)
{
	if (!s)
		return;
	pdb_cache_free(s->pdbs);
	json_decref(s->said);
	free(s);
}

/* "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" → the 16 bytes as a module stores
 * them (the first three groups little-endian); false if malformed. */
static bool parse_mvid(const char *t, uint8_t out[16])
{
	static const int order[16] = { 3, 2, 1, 0, 5, 4, 7, 6, 8, 9, 10, 11, 12, 13, 14, 15 };
	uint8_t b[16];
	unsigned k = 0;

	if (!t || strlen(t) != 36)
		return false;
	for (size_t i = 0; i < 36 && k < 16; i++) {
		unsigned v;

		if (i == 8 || i == 13 || i == 18 || i == 23) {
			if (t[i] != '-')
				return false;
			continue;
		}
		if (sscanf(t + i, "%2x", &v) != 1 || !strchr("0123456789abcdefABCDEF", t[i]) ||
		    !strchr("0123456789abcdefABCDEF", t[i + 1]))
			return false;
		b[k++] = (uint8_t)v;
		i++;
	}
	if (k != 16)
		return false;
	for (unsigned i = 0; i < 16; i++)
		out[order[i]] = b[i];
	return true;
}

/* Once per assembly PATH, on stderr: its PDB was there but refused (K) —
 * not the one it was built with, or unreadable.  No PDB, or another
 * build's assembly: no lines, and nothing to say. */
static void say_rejected(struct sites *s, const char *path, int k)
{
	if ((k != -EBADE && k != -EBADMSG) || json_object_get(s->said, path))
		return;
	json_object_set_new(s->said, path, json_true());
	if (k == -EBADE)
		cli_error("note: %s: its PDB is not the one it was built with (the PDB checksum differs); no source lines from it",
			  path);
	else
		cli_error("note: %s: its PDB is malformed; no source lines from it", path);
}

/* The source file and line of FRAME of REC, or false. */
static bool frame_line(struct sites *s, json_t *rec, json_t *frame, const char **file, uint32_t *line)
{
	json_t *tok = json_object_get(frame, "token"), *il = json_object_get(frame, "il_offset");
	json_t *idx = json_object_get(frame, "module"), *mod;
	uint8_t mvid[16];
	bool have_mvid;
	struct pdb *p;
	int k;

	if (!json_is_integer(tok) || !json_is_integer(il) || !json_is_integer(idx) || json_integer_value(idx) < 0)
		return false;
	if (json_integer_value(tok) <= 0 || json_integer_value(tok) > UINT32_MAX || json_integer_value(il) < 0 ||
	    json_integer_value(il) > UINT32_MAX)
		return false;
	mod = json_array_get(json_object_get(rec, "modules"), (size_t)json_integer_value(idx));
	if (!jstr(mod, "path") || !*jstr(mod, "path"))
		return false;
	have_mvid = parse_mvid(jstr(mod, "mvid"), mvid);
	k = pdb_cache_get(s->pdbs, jstr(mod, "path"), have_mvid ? mvid : NULL, &p);
	if (k < 0) {
		say_rejected(s, jstr(mod, "path"), k);
		return false;
	}
	return pdb_lookup(p, (uint32_t)json_integer_value(tok), (uint32_t)json_integer_value(il), file, line) == 0;
}

/* One frame in words into B: "at F() in FILE:line N" and the like;
 * true if it has a source line. */
static bool frame_text(struct sites *s, json_t *rec, json_t *frame, size_t i, struct strbuf *b)
{
	const char *fn = jstr(frame, "function") ?: "?", *file;
	json_t *il = json_object_get(frame, "il_offset");
	uint32_t line;
	unsigned marks;

	if (strcmp(fn, "[native]") == 0) {
		const char *lib = jstr(frame, "library");
		const char *base = lib ? strrchr(lib, '/') : NULL;

		strbuf_printf(b, "at [native]%s%s", lib ? " " : "", base ? base + 1 : lib ? lib : "");
		return false;
	}
	/* the caller is the next frame down */
	strbuf_puts(b, "at ");
	marks = dotnet_name(fn, jstr(json_array_get(json_object_get(rec, "stack"), i + 1), "function"), b);
	strbuf_puts(b, "()");
	dotnet_marks(marks, b);
	if (frame_line(s, rec, frame, &file, &line)) {
		strbuf_printf(b, " in %s:line %" PRIu32, file, line);
		return true;
	}
	if (json_is_integer(il))
		strbuf_printf(b, " IL_%04llx", (unsigned long long)json_integer_value(il));
	return false;
}

/* The lines under a throw (see sites.h). */
bool sites_view(struct sites *s, json_t *rec, const char *indent, struct strbuf *b)
{
	json_t *stack = json_object_get(rec, "stack"), *frame;
	size_t i;
	bool any_line = false;

	if (!json_is_array(stack))
		return false;
	/* is there a frame with a line to stop at?  Else only the first. */
	json_array_foreach(stack, i, frame) {
		struct strbuf t = { 0 };

		any_line = frame_text(s, rec, frame, i, &t);
		strbuf_free(&t);
		if (any_line)
			break;
	}
	json_array_foreach(stack, i, frame) {
		bool has_line;

		strbuf_puts(b, indent);
		has_line = frame_text(s, rec, frame, i, b);
		strbuf_puts(b, "\n");
		if (has_line || !any_line)
			break;
	}
	return true;
}

/* The throw site in words (see sites.h). */
char *sites_site(struct sites *s, json_t *rec)
{
	json_t *stack = json_object_get(rec, "stack"), *frame;
	struct strbuf b = { 0 };
	size_t i;

	if (!json_is_array(stack) || !json_array_size(stack))
		return NULL;
	json_array_foreach(stack, i, frame) {
		strbuf_reset(&b);
		if (frame_text(s, rec, frame, i, &b))
			break;
	}
	if (i == json_array_size(stack)) {
		strbuf_reset(&b);
		frame_text(s, rec, json_array_get(stack, 0), 0, &b);
	}
	return strbuf_steal(&b);
}

/* The throw site key (see sites.h). */
char *sites_key(struct sites *s, json_t *rec)
{
	_cleanup_free_ char *site = sites_site(s, rec);
	struct strbuf k = { 0 };

	if (!site)
		return NULL;
	strbuf_printf(&k, "%s %s", jstr2(rec, "exception", "type") ?: "?", site);
	return strbuf_steal(&k);
}

/* File and line into each frame that has them (see sites.h). */
size_t sites_add_lines(struct sites *s, json_t *rec)
{
	json_t *frame;
	size_t i, n = 0;

	json_array_foreach(json_object_get(rec, "stack"), i, frame) {
		const char *file;
		uint32_t line;

		if (!frame_line(s, rec, frame, &file, &line))
			continue;
		json_object_set_new(frame, "file", json_string(file));
		json_object_set_new(frame, "line", json_integer(line));
		n++;
	}
	return n;
}

/* The first source line of REC's stack, short (see sites.h). */
char *sites_line(struct sites *s, json_t *rec)
{
	json_t *frame;
	size_t i;

	json_array_foreach(json_object_get(rec, "stack"), i, frame) {
		const char *file, *slash;
		uint32_t line;
		char *out = NULL;

		if (!frame_line(s, rec, frame, &file, &line))
			continue;
		slash = strrchr(file, '/');
		if (!slash)
			slash = strrchr(file, '\\');
		if (asprintf(&out, "%s:%" PRIu32, slash ? slash + 1 : file, line) < 0)
			return NULL;
		return out;
	}
	return NULL;
}
