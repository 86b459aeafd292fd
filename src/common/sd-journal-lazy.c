/* SPDX-License-Identifier: MIT */
/*
 * The libsystemd functions clrtrace calls, loading libsystemd on first use.
 * Only the journal sink and the CLI's journal reader need it, but linking
 * it loads it and the libraries it pulls in (gcrypt, gpg-error, zstd, lzma,
 * lz4, cap) into every traced program and every clrtrace command: about
 * 4 ms of CPU time per process on a small VM, a twentieth of a hello
 * world's start-up (DESIGN.md, Measured decisions).  These definitions stand in
 * for the real functions (the journal code calls them unchanged) and
 * forward to them; without libsystemd they fail with -ELIBACC.
 *
 * sd_journal_sendv() is the plain function, not the macro that adds
 * CODE_FILE, CODE_LINE and CODE_FUNC naming the caller's C source: a
 * journal entry of clrtrace is about .NET code, and says where itself
 * (journal-fields.c).  Its callers define SD_JOURNAL_SUPPRESS_LOCATION
 * too; one that does not calls sd_journal_sendv_with_location(), which is
 * not here, and does not link.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#define SD_JOURNAL_SUPPRESS_LOCATION
#include <systemd/sd-journal.h>

#include "common/lazy-lib.h"

/* the soname of every libsystemd since 209, the version the symbols are of */
#define SD_SONAME "libsystemd.so.0"

/* SD_FN(name, (parameters), (arguments)): every function, all returning int */
#define SD_INT_FNS                                                                                          \
	SD_FN(sd_journal_sendv, (const struct iovec *iov, int n), (iov, n))                                \
	SD_FN(sd_journal_open, (sd_journal **ret, int flags), (ret, flags))                                \
	SD_FN(sd_journal_open_directory, (sd_journal **ret, const char *path, int flags), (ret, path, flags)) \
	SD_FN(sd_journal_next, (sd_journal *j), (j))                                                       \
	SD_FN(sd_journal_get_realtime_usec, (sd_journal *j, uint64_t *ret), (j, ret))                     \
	SD_FN(sd_journal_set_data_threshold, (sd_journal *j, size_t sz), (j, sz))                          \
	SD_FN(sd_journal_get_data, (sd_journal *j, const char *field, const void **data, size_t *l),     \
	      (j, field, data, l))                                                                         \
	SD_FN(sd_journal_add_match, (sd_journal *j, const void *data, size_t size), (j, data, size))       \
	SD_FN(sd_journal_seek_head, (sd_journal *j), (j))                                                  \
	SD_FN(sd_journal_seek_realtime_usec, (sd_journal *j, uint64_t usec), (j, usec))                    \
	SD_FN(sd_journal_wait, (sd_journal *j, uint64_t timeout_usec), (j, timeout_usec))

static struct {
#define SD_FN(name, params, args) int(*name) params;
	SD_INT_FNS
#undef SD_FN
	void (*sd_journal_close)(sd_journal *j);
} sd;
static pthread_once_t sd_once = PTHREAD_ONCE_INIT;

/* Open libsystemd and find every function (all or none: a partial set
 * would fail half-way through reading a journal). */
static void sd_load(void)
{
	static const char *const names[] = {
#define SD_FN(name, params, args) #name,
		SD_INT_FNS
#undef SD_FN
		"sd_journal_close",
	};
	void **const slots[] = {
#define SD_FN(name, params, args) (void **)&sd.name,
		SD_INT_FNS
#undef SD_FN
		(void **)&sd.sd_journal_close,
	};

	(void)lazy_lib_load(SD_SONAME, names, slots, sizeof(names) / sizeof(names[0]));
}

/* Each function: load on first use, then call the real one. */
#define SD_FN(name, params, args)                                         \
	int name params                                                   \
	{                                                                 \
		pthread_once(&sd_once, sd_load);                          \
		return sd.name ? sd.name args : -ELIBACC;                \
	}
SD_INT_FNS
#undef SD_FN

/* Nothing to close when libsystemd never loaded: no journal was opened. */
void sd_journal_close(sd_journal *j)
{
	pthread_once(&sd_once, sd_load);
	if (sd.sd_journal_close)
		sd.sd_journal_close(j);
}
