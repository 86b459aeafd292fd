/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the merge of a dead writer's FILE.<pid>.pending into
 * its trace (src/common/pending.c), everything it reads from disk hostile.
 * An input is a 4-byte little-endian length T, T bytes of trace, then the
 * pending file (its magic set, so that the header is what gets fuzzed).
 * Build with tests/fuzz/build.sh.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/pending.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Write D[0..n) to PATH: 0 or -1. */
static int put(const char *path, const void *d, size_t n)
{
	FILE *f = fopen(path, "we");
	int r = f && fwrite(d, 1, n, f) == n ? 0 : -1;

	if (f && fclose(f) != 0)
		r = -1;
	return r;
}

/* The number after KEY in LINE, or 0. */
static unsigned long long number(const char *line, const char *key)
{
	const char *k = strstr(line, key);

	return k ? strtoull(k + strlen(key), NULL, 10) : 0;
}

/* The oracle beyond the sanitizers: a trace.dropped the merge wrote has a
 * seq that did not wrap (1 or more) and a count a dead writer can have
 * lost (no more than its staging area held).  Only what the merge made
 * itself: past FROM (the input trace's length), and not a record it
 * copied from the mirror MIR[0..N) (the input may hold anything). */
static void check_dropped(const char *trace, size_t from, const uint8_t *mir, size_t n)
{
	FILE *f = fopen(trace, "re");
	char line[8192];

	if (f && fseek(f, (long)from, SEEK_SET) != 0) {
		fclose(f);
		f = NULL;
	}
	while (f && fgets(line, sizeof(line), f)) {
		size_t len = strcspn(line, "\n");

		if (!strstr(line, PENDING_DIED_REASON) || (len && memmem(mir, n, line, len)))
			continue;
		if (number(line, "\"seq\":") == 0 || number(line, "\"count\":") > PENDING_MAX_LOST)
			abort();
	}
	if (f)
		fclose(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char dir[] = "/tmp/clrtrace-fuzz-pending-XXXXXX", trace[64], pending[96];
	uint32_t tn;
	uint8_t *p = NULL;

	if (size < 4)
		return 0;
	memcpy(&tn, data, 4);
	tn = tn <= size - 4 ? tn : (uint32_t)(size - 4);
	if (!mkdtemp(dir))
		return 0;
	snprintf(trace, sizeof(trace), "%s/t.jsonl", dir);
	snprintf(pending, sizeof(pending), "%s.4242.pending", trace);
	p = malloc(size - 4 - tn + 1);
	if (p) {
		memcpy(p, data + 4 + tn, size - 4 - tn);
		if (size - 4 - tn >= 8)
			memcpy(p, PENDING_MAGIC, 8);
		if (put(trace, data + 4, tn) == 0 && put(pending, p, size - 4 - tn) == 0)
			if (pending_recover(trace, NULL, NULL, NULL) > 0)
				check_dropped(trace, tn, p, size - 4 - tn);
	}
	free(p);
	unlink(pending);
	unlink(trace);
	rmdir(dir);
	return 0;
}
