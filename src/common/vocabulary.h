/* SPDX-License-Identifier: MIT */
/* The event and category vocabulary, shared by the profiler and the CLI. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum ct_category {
#define CAT(id, ...) CAT_##id,
#include "common/categories.def"
#undef CAT
	_CAT_MAX,
	_CAT_INVALID = -1,
};

enum ct_kind { KIND_INSTANT, KIND_SPAN };

/* The colour of an event's line in clrtrace view; the CLI maps it to
 * escape codes. */
enum ct_color {
	COLOR_NONE,
	COLOR_DIM,
	COLOR_RED,
	COLOR_BRIGHT_RED, /* white on red: the exception that kills */
	COLOR_GREEN,
	COLOR_YELLOW,
	COLOR_CYAN,
	COLOR_BOLD,
	COLOR_MAGENTA,
	_COLOR_MAX,
};

enum ct_event {
#define EV(id, name, cat, kind, prio, msgid, desc, message, color, describe, stats, subject, body) EV_##id,
#include "common/vocabulary.def"
#undef EV
	_EV_MAX,
	_EV_INVALID = -1,
};

enum ct_phase { PH_INSTANT, PH_BEGIN, PH_END, _PH_MAX, _PH_INVALID = -1 };

/* In a MESSAGE template, @CT_MESSAGE_METHOD path@: the method named at
 * path, as clrtrace view says it (vocabulary.def). */
#define CT_MESSAGE_METHOD "fn:"

struct ct_event_info {
	const char *name;
	size_t name_len;        /* strlen(name): written into every record */
	enum ct_category category;
	enum ct_kind kind;
	int priority;           /* syslog priority for the journal */
	const char *message_id; /* 32 lowercase hex digits */
	const char *description;
	const char *message;    /* journal MESSAGE subject template, or NULL */
	enum ct_color color;
};

struct ct_category_info {
	const char *name;
	bool optional;      /* false: always on (runtime, trace) */
	bool default_on;
	bool after_attach;  /* the runtime allows its callbacks after attach */
	bool as_notification; /* ... and to a notification profiler */
};

extern const struct ct_event_info ct_events[_EV_MAX];
extern const struct ct_category_info ct_categories[_CAT_MAX];

const char *ct_phase_to_string(enum ct_phase p);
enum ct_phase ct_phase_from_string(const char *s);

/* How an exception's story ended: exception.summary's "outcome", in the order stats lists them. */
enum ct_outcome {
	OUTCOME_CAUGHT,
	OUTCOME_UNHANDLED,
	OUTCOME_SWALLOWED,
	OUTCOME_SUPERSEDED,
	OUTCOME_RETHROWN,
	OUTCOME_UNKNOWN,
	_OUTCOME_MAX,
	_OUTCOME_INVALID = -1,
};
/* The outcomes' names, NULL-terminated (a word list for --outcome and --list outcomes). */
extern const char *const ct_outcome_table[_OUTCOME_MAX + 1];
const char *ct_outcome_to_string(enum ct_outcome o);
enum ct_outcome ct_outcome_from_string(const char *s);
/* What became of an exception object, an "error": exception.error's "fate". */
enum ct_fate {
	FATE_HANDLED,
	FATE_HANDLED_BY_FRAMEWORK,
	FATE_HANDLED_BY_RUNTIME,
	FATE_STORED,
	FATE_SWALLOWED,
	FATE_SUPERSEDED,
	FATE_WRAPPED,
	FATE_UNHANDLED,
	FATE_OPEN,
	_FATE_MAX,
	_FATE_INVALID = -1,
};
extern const char *const ct_fate_table[_FATE_MAX + 1];
const char *ct_fate_to_string(enum ct_fate f);
enum ct_fate ct_fate_from_string(const char *s);
/* Whose catch it was: exception.error's handler.kind. */
enum ct_handler_kind {
	HANDLER_PROGRAM,
	HANDLER_ASYNC,
	HANDLER_FRAMEWORK,
	HANDLER_RUNTIME,
	_HANDLER_MAX,
	_HANDLER_INVALID = -1,
};
extern const char *const ct_handler_kind_table[_HANDLER_MAX + 1];
const char *ct_handler_kind_to_string(enum ct_handler_kind k);
enum ct_handler_kind ct_handler_kind_from_string(const char *s);
enum ct_event ct_event_from_string(const char *s);
enum ct_category ct_category_from_string(const char *s);
/* Bit set of the categories on by default. */
unsigned ct_default_categories(void);
/* Bit set of the events (1 << ev) of the categories in CATEGORIES. */
uint64_t ct_event_mask(unsigned categories);
