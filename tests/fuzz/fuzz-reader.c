/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the CLI's line reader and record parsing, the schema
 * validator, and the view/export describers, fed one input as a trace
 * file.  Build with tests/fuzz/build.sh.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/describe.h"
#include "cli/jschema.h"
#include "cli/reader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
void cli_error(const char *fmt, ...);

/* The CLI's error line (src/cli/clrtrace.c): quiet here. */
void cli_error(const char *fmt, ...)
{
	(void)fmt;
}

static struct jschema *schema;

/* Count violations, say nothing. */
static void quiet(void *ud, const char *path, const char *msg)
{
	(*(int *)ud)++;
}

/* One input: write it to a file, read it back record by record. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[] = "/tmp/clrtrace-fuzz-XXXXXX";
	struct rd *rd = NULL;
	struct strbuf sb = { 0 };
	struct rec r;
	char dur[32];
	int fd = mkstemp(path), n = 0;
	char *err = NULL;

	if (!schema && jschema_load(&schema, ct_record_schema, ct_record_schema_len, &err) < 0)
		abort();
	if (fd < 0)
		return 0;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		unlink(path);
		return 0;
	}
	close(fd);
	char *ops[] = { path };

	if (rd_open(&rd, "fuzz", ops, 1, false) == 0) {
		while (rd_record(rd, &r) > 0) {
			(void)jschema_validate(schema, r.j, quiet, &n);
			strbuf_reset(&sb);
			describe(&sb, &r);
			(void)fmt_dur(dur, sizeof(dur), r.dur_ns); /* as view prints it */
			rec_done(&r);
		}
		rd_free(rd);
	}
	strbuf_free(&sb);
	unlink(path);
	return 0;
}
