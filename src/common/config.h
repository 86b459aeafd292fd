/* SPDX-License-Identifier: MIT */
/* CLRTRACE_* configuration: parsing is pure so unit tests can drive it. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum ct_output_kind { OUT_FILE, OUT_JOURNAL, OUT_STDERR, _OUT_MAX, _OUT_INVALID = -1 };

/* How a file sink compresses the files it rotates out. */
enum ct_compress { COMPRESS_ZSTD, COMPRESS_NONE, _COMPRESS_MAX, _COMPRESS_INVALID = -1 };

struct ct_output {
	enum ct_output_kind kind;
	char *path; /* file: the template, with %p %n %t still in it */
	/* file: its options (the items after it, CT_FILE_OPTIONS) */
	uint64_t max_size;     /* rotate before a write would pass it; 0: never */
	unsigned keep;         /* files kept, the one being written included; 0: all */
	unsigned min_free;     /* percent of the file system left free; 0: no check */
	enum ct_compress compress;
};

struct ct_glob {
	char *pattern;
	bool exclude;
	unsigned limit; /* records per second for this type; 0 = no limit */
};

struct ct_globs {
	struct ct_glob *items;
	size_t n;
};

/* One rule of CLRTRACE_HANDLERS: a catch in a method whose full name
 * ("Namespace.Type.Method") begins with PREFIX is KIND's, with LABEL. */
struct ct_handler_rule {
	char *prefix;
	int kind;    /* enum ct_handler_kind */
	char *label; /* NULL: none */
};

struct ct_handler_rules {
	struct ct_handler_rule *items;
	size_t n;
};

struct ct_config {
	unsigned categories; /* bit (1 << enum ct_category) */
	struct ct_output *outputs;
	size_t n_outputs;
	struct ct_globs exceptions;
	struct ct_globs processes;
	bool messages;
	char *ident; /* NULL: the program's name */
	unsigned flush_ms; /* periodic flush; 0: only when full and at exit */
	unsigned stack_depth; /* stacks: managed frames kept per throw */
	struct ct_handler_rules handlers; /* before the built-in table */
	/* the journal sink's own rate limit (journald's defaults); burst 0: off */
	unsigned journal_burst, journal_interval_s;
	/* the error budget: errors kept per interval; 0: off (DESIGN.md) */
	unsigned budget_errors, budget_interval_s;
};

#define CT_JOURNAL_BURST 10000u    /* journald's RateLimitBurst= default */
#define CT_JOURNAL_INTERVAL_S 30u  /* journald's RateLimitIntervalSec= default */

/* The defaults config.def gives, in each variable's own syntax (the unit
 * test checks them against the numbers above and the vocabulary). */
#define CT_DEFAULT_FILE "clrtrace-%n-%p.jsonl"
/* The default file is bounded: it rotates at 64 MiB, keeps 8 files (7
 * compressed), and stops writing when its file system is 90 % full. */
#define CT_DEFAULT_FILE_OPTIONS "max-size=64M,keep=8,min-free=10%"
#define CT_DEFAULT_MAX_SIZE (UINT64_C(64) << 20)
#define CT_DEFAULT_KEEP 8u
#define CT_DEFAULT_MIN_FREE 10u
#define CT_DEFAULT_OUTPUT "file:" CT_DEFAULT_FILE "," CT_DEFAULT_FILE_OPTIONS
#define CT_DEFAULT_EVENTS "exceptions,loader,threads,suspend"
#define CT_DEFAULT_RATELIMIT "10000/30"
#define CT_DEFAULT_BUDGET "off"
#define CT_DEFAULT_FLUSH_MS "200"
#define CT_DEFAULT_STACK_DEPTH "64"
#define CT_STACK_DEPTH_MAX 1024u
#define CT_STACK_DEPTH_MAX_S "1024"
/* How much of a bad value an error line quotes. */
#define CT_QUOTE_MAX 120

typedef const char *(*ct_getenv_fn)(const char *name);
/* Receives one complete stderr line (without "clrtrace: " and newline). */
typedef void (*ct_warn_fn)(void *userdata, const char *line);

/* The CLRTRACE_* variables of config.def, in its order. */
enum ct_var {
#define CT_VAR(NAME, ...) CT_VAR_##NAME,
#include "common/config.def"
	_CT_VAR_MAX
};

/* Fill *c from the environment; every bad value is reported through warn
 * and replaced by its default.  Returns 0 or -ENOMEM. */
int config_load(struct ct_config *c, ct_getenv_fn get, ct_warn_fn warn, void *userdata);
void config_done(struct ct_config *c);

/* Each parser returns 0, or -EINVAL with *why set to a static explanation. */
int config_parse_events(const char *s, unsigned *ret, const char **why);
int config_parse_outputs(const char *s, struct ct_config *c, const char **why);
int config_parse_globs(const char *s, bool allow_limits, struct ct_globs *ret, const char **why);
void globs_done(struct ct_globs *g);
/* "BURST/SECONDS", "BURST" or "off" (CLRTRACE_JOURNAL_RATELIMIT). */
int config_parse_ratelimit(const char *v, unsigned *burst, unsigned *interval_s, const char **why);
/* "ERRORS/SECONDS", "ERRORS" (a second) or "off" (CLRTRACE_BUDGET). */
int config_parse_budget(const char *v, unsigned *errors, unsigned *interval_s, const char **why);

/* NAME as a CLRTRACE_PROCESSES glob that matches only NAME (*?[\\ and a
 * leading ! escaped); NULL if it cannot be one (a ',' or ':' in it). */
char *config_glob_escape(const char *name);

/* Does NAME pass the include/exclude list?  *limit gets the rate limit. */
bool globs_match(const struct ct_globs *g, const char *name, unsigned *limit);

/* Expand %p, %n, %t and %% in a file template; NULL on bad template. */
char *config_expand_path(const char *tmpl, int pid, const char *name, long long start_time);

const char *ct_output_kind_to_string(enum ct_output_kind k);
const char *ct_compress_to_string(enum ct_compress k);
enum ct_compress ct_compress_from_string(const char *s);
/* A file output with the default file's options (CT_DEFAULT_FILE_OPTIONS). */
void config_file_defaults(struct ct_output *o);
enum ct_output_kind ct_output_kind_from_string(const char *s);

/* app for "dotnet [exec] app.dll", else basename(argv[0]); NULL for the
 * dotnet host running a command of its own.  malloc'd. */
char *config_program_name(char *const *argv);
