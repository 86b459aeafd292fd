/* SPDX-License-Identifier: MIT */
/* clrtrace recover: merge FILE.<pid>.pending (left by a process that died without
 * a flush) into FILE. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "pending.h"

int cmd_recover(int argc, char **argv)
{
	int status = 0;

	if (argc < 2 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
		fprintf(argc < 2 ? stderr : stdout,
			"Usage: clrtrace recover FILE...\n\n"
			"Append to each trace FILE the records its process left in FILE.<pid>.pending when it\n"
			"died without a chance to flush (Environment.FailFast, kill -9), then remove\n"
			"FILE.<pid>.pending.  `clrtrace run` does this by itself.\n");
		return argc < 2 ? EXIT_USAGE : 0;
	}
	for (int i = 1; i < argc; i++) {
		int n = pending_recover(argv[i]);

		if (n < 0) {
			cli_error("recover: %s: %s", argv[i], strerror(-n));
			status = 1;
		} else if (n > 0)
			fprintf(stderr, "clrtrace: recovered %d records into %s\n", n, argv[i]);
	}
	return status;
}
