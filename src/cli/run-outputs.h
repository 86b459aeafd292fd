/* SPDX-License-Identifier: MIT */
/* `run` looks at its outputs before it starts the program. */
#pragma once

/* Can every file: sink of the comma list OUTPUTS be created or appended to
 * (NAME for %n)?  0, or -EINVAL after a one-line error. */
int run_check_outputs(const char *outputs, const char *name);
/* Is the journal reachable now?  0, or -errno (and a one-line notice). */
int run_check_journal(void);
