/* SPDX-License-Identifier: MIT */
/* The tracer's own voice: one line on stderr, once per key. */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/escape.h"
#include "profiler/core/say.h"
#include "common/util.h"

#define SAY_MAX 1024 /* bytes of one stderr line, before escaping */

/* "clrtrace: MSG\n" with MSG made one line of printable text; a very long
 * message (a path from the environment) keeps its start and its end. */
static char *one_line(const char *msg)
{
	_cleanup_free_ char *head = NULL, *tail = NULL;
	size_t n = strlen(msg), cut;
	char *line = NULL;

	if (n <= SAY_MAX) {
		head = escape_str(msg, 0, ESC_MESSAGE);
		if (!head || asprintf(&line, "clrtrace: %s\n", head) < 0)
			return NULL;
		return line;
	}
	cut = n - SAY_MAX / 4;
	while (cut < n && ((unsigned char)msg[cut] & 0xc0) == 0x80)
		cut++; /* start the tail on a character */
	head = escape_str(msg, SAY_MAX / 2, ESC_MESSAGE); /* ends in "…" */
	tail = escape_str(msg + cut, 0, ESC_MESSAGE);
	if (!head || !tail || asprintf(&line, "clrtrace: %s%s\n", head, tail) < 0)
		return NULL;
	return line;
}

/* One line on stderr, once per KEY. */
void ct_say_once(const char *key, const char *fmt, ...)
{
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	static char *said[64];
	static size_t n_said;
	char *msg = NULL, *line = NULL;
	va_list ap;
	PROTECT_ERRNO;

	pthread_mutex_lock(&lock);
	for (size_t i = 0; i < n_said; i++)
		if (strcmp(said[i], key) == 0) {
			pthread_mutex_unlock(&lock);
			return;
		}
	if (n_said < ELEMENTSOF(said))
		said[n_said++] = strdup(key);
	pthread_mutex_unlock(&lock);

	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	if (msg && (line = one_line(msg)))
		(void)write_all(STDERR_FILENO, line, strlen(line));
	free(line);
	free(msg);
}
