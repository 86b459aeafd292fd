/* SPDX-License-Identifier: MIT */
/* Records read from the systemd journal (--journal, --journal-dir) for
 * view, stats and export: a second source for the reader. */
#pragma once

#include <getopt.h>
#include <stdbool.h>

#include "cli/reader.h"

/* getopt codes of the journal options (above every short option). */
enum {
	JOPT_JOURNAL = 0x1000,
	JOPT_DIR,
	JOPT_UNIT = 'u',
	JOPT_IDENT = 0x1002,
	JOPT_SINCE,
	JOPT_UNTIL,
};

/* The journal options every reading command takes (add "u:" to its
 * short options). */
#define JOURNAL_LONG_OPTIONS                                           \
	{ "journal", no_argument, NULL, JOPT_JOURNAL },                \
	{ "journal-dir", required_argument, NULL, JOPT_DIR },          \
	{ "unit", required_argument, NULL, JOPT_UNIT },                \
	{ "identifier", required_argument, NULL, JOPT_IDENT },         \
	{ "journal-since", required_argument, NULL, JOPT_SINCE },      \
	{ "journal-until", required_argument, NULL, JOPT_UNTIL }

/* The same options' help, to end a command's help text. */
#define JOURNAL_HELP                                                                          \
	"\nFrom the systemd journal instead of a file (any of these options; the\n"              \
	"arguments are then journalctl's FIELD=VALUE matches, ANDed across fields and\n"        \
	"ORed within one: _HOSTNAME=web1 CLRTRACE_EVENT=exception.throw):\n"                   \
	"      --journal           the local journal\n"                                         \
	"      --journal-dir DIR   the journal files in DIR (a collector's remote/ directory)\n"  \
	"  -u, --unit UNIT         only records of this systemd unit (journalctl -u)\n"         \
	"      --identifier ID     only this SYSLOG_IDENTIFIER (journalctl -t; run --ident)\n"  \
	"      --journal-since TIME, --journal-until TIME\n"                                     \
	"                          only entries written in this window (journalctl --since);\n" \
	"                          TIME: 'YYYY-MM-DD[ HH:MM[:SS]]', 'HH:MM[:SS]', now, today,\n" \
	"                          yesterday, @EPOCH, -N[s|min|h|d] (ago)\n"

struct journal_opts {
	bool journal; /* --journal or --journal-dir given */
	const char *dir, *unit, *ident, *since, *until;
};

/* Take option OPT (a JOPT_* code) with ARG: 1 if it was one, 0 if not. */
int journal_opt(struct journal_opts *o, int opt, const char *arg);
/* A reader over the journal's clrtrace records matching O and the
 * FIELD=VALUE strings in MATCHES[0..N).  Says what went wrong itself
 * (prefixed "CMD: "); -EINVAL for a bad option or match, else negative
 * errno. */
int journal_open(struct rd **ret, const struct journal_opts *o, char **matches, int n, bool follow, const char *cmd);
/* Parse a journalctl-style TIME into microseconds since the epoch. */
int journal_parse_time(const char *s, uint64_t now_us, uint64_t *ret);
