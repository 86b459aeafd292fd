/* SPDX-License-Identifier: MIT */
/*
 * The sink set: threads stage their records (stage.c, no lock shared
 * between them); the writer takes them to every sink in seq order a few
 * times a second (the flusher thread) and, when a thread's halves are both
 * full or it flushes on its way out, on that thread (stage.c); drops are
 * counted per sink and reason, handed to the record core (which reports
 * them as trace.dropped records once a sink works again), said on stderr
 * at the time and at exit, and sent to `clrtrace run` (CLRTRACE_STATUS).
 * Everything the sinks know of the process comes in the spec at open.
 *
 * runtime.shutdown ends the trace: ct_sinks_seal() seals the numbering, so
 * that the shutdown record is the last one numbered and its totals are
 * final; threads still running afterwards (Environment.Exit) get no seq.
 */
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "common/status-msg.h"
#include "common/config.h"
#include "common/strbuf.h"
#include "profiler/sinks/sink.h"
#include "profiler/sinks/sinks.h"
#include "profiler/sinks/stage.h"
#include "common/util.h"


static const struct ct_sink_ops *const sink_kinds[_OUT_MAX] = {
	[OUT_FILE] = &ct_sink_file_ops,
	[OUT_JOURNAL] = &ct_sink_journal_ops,
	[OUT_STDERR] = &ct_sink_stderr_ops,
};

static struct ct_sink *sinks;
static size_t n_sinks;
/* Held for reading by everything that uses a sink (the writer's rounds,
 * loss reports) and for writing by close (records are staged without
 * it).  glibc's default rwlock prefers readers, so a round can still get
 * in while close waits. */
static pthread_rwlock_t sinks_rw = PTHREAD_RWLOCK_INITIALIZER;
static atomic_bool reports_pending;
static atomic_bool announce_pending;
static char *status_socket; /* CLRTRACE_STATUS: where `clrtrace run` listens */
static bool exit_said, atexit_done;
static void sinks_atexit(void);

static struct ct_sink_spec spec; /* say and flush_ms; outputs only while opening */

static pthread_t flusher;
static atomic_bool flusher_running;
static pthread_mutex_t flusher_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t flusher_cond = PTHREAD_COND_INITIALIZER;
static bool flusher_stop;
static bool flusher_left; /* stopped at exit without a join */
static atomic_bool kicked; /* a thread handed the writer a full buffer */

/* For sinks: count N records lost for REASON. */
void ct_sink_lost(struct ct_sink *s, uint64_t n, const char *reason)
{
	if (!n)
		return;
	atomic_fetch_add(&s->dropped, n);
	atomic_fetch_add(&s->unreported, n);
	pthread_mutex_lock(&s->reason_lock);
	if (strcmp(s->reason, reason) != 0) {
		size_t used = strlen(s->reasons);

		snprintf(s->reason, sizeof(s->reason), "%s", reason);
		if (!strstr(s->reasons, reason))
			snprintf(s->reasons + used, sizeof(s->reasons) - used, "%s%s", used ? "; " : "", reason);
		atomic_store(&s->announce, true);
		atomic_store(&announce_pending, true);
	}
	pthread_mutex_unlock(&s->reason_lock);
}

/* For sinks: N more records (N < 0: fewer) for a trace.dropped to report. */
void ct_sink_unreport(struct ct_sink *s, int64_t n)
{
	uint_fast64_t u = atomic_load(&s->unreported);

	if (n >= 0)
		atomic_fetch_add(&s->unreported, (uint64_t)n);
	else
		while (!atomic_compare_exchange_weak(&s->unreported, &u, u > (uint64_t)-n ? u - (uint64_t)-n : 0))
			;
}

/* For sinks: writes work again; report what was lost at the next chance. */
void ct_sink_recovered(struct ct_sink *s)
{
	if (atomic_load(&s->unreported)) {
		atomic_store(&s->report_ready, true);
		atomic_store(&reports_pending, true);
	}
}

/* A short reason for a write error -E. */
const char *ct_sink_errno_reason(int e)
{
	switch (-e) {
	case ENOSPC:
		return "disk full";
	case EDQUOT:
		return "disk quota exceeded";
	case EFBIG:
		return "file size limit exceeded";
	case EROFS:
		return "read-only file system";
	case EAGAIN: /* a FIFO or terminal, non-blocking (file.c) */
		return "the reader of the pipe is not reading";
	default:
		return strerror(-e);
	}
}

/* Say each new loss on stderr once, by the writer (a sink counts its
 * losses where it must not block). */
static void announce_losses(void)
{
	if (!atomic_exchange(&announce_pending, false))
		return;
	for (size_t i = 0; i < n_sinks; i++) {
		struct ct_sink *s = &sinks[i];
		char key[300], reason[sizeof(s->reason)];

		if (!atomic_exchange(&s->announce, false))
			continue;
		pthread_mutex_lock(&s->reason_lock);
		memcpy(reason, s->reason, sizeof(reason));
		pthread_mutex_unlock(&s->reason_lock);
		snprintf(key, sizeof(key), "loss %s %s", s->where, reason);
		spec.say(key, "records for %s are being lost: %s (counted; the total is said at exit)", s->where,
			 reason);
	}
}

/* Send MSG to `clrtrace run`'s status socket SOCK ("@name": an abstract
 * socket, nothing on disk, which may be full); never waits. */
void ct_status_send(const char *sock, const char *msg, size_t len)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	size_t l = strlen(sock);
	int fd = sock[0] == '@' ? socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0) : -1;

	if (fd >= 0 && l > 1 && l <= sizeof(sa.sun_path)) {
		memcpy(sa.sun_path + 1, sock + 1, l - 1);
		(void)sendto(fd, msg, len, MSG_DONTWAIT | MSG_NOSIGNAL, (struct sockaddr *)&sa,
			     (socklen_t)(offsetof(struct sockaddr_un, sun_path) + l));
	}
	if (fd >= 0)
		close(fd);
}

static _Atomic uint64_t left_out_errors;

void ct_sinks_note_left_out(uint64_t errors)
{
	atomic_store(&left_out_errors, errors);
}

/* For `clrtrace run`: an "open\tPATH" line for each trace file the sinks
 * have open, PATH as /proc/self/fd resolves it now: a trace renamed while
 * the program ran (logrotate) is found under its new name.  Not a file that
 * was removed, nor a path that a newline would cut. */
static void note_open_files(struct strbuf *b)
{
	if (!status_socket)
		return;
	for (size_t i = 0; i < n_sinks; i++) {
		uint64_t removed = ct_file_sink_removed(&sinks[i]);

		if (removed) /* rotated files the keep limit removed: retention */
			strbuf_printf(b, CT_STATUS_REMOVED_FMT, removed);
	}
	if (atomic_load(&left_out_errors)) /* not loss: counted in trace.left_out */
		strbuf_printf(b, CT_STATUS_LEFT_OUT_FMT, (uint64_t)atomic_load(&left_out_errors));
	for (size_t i = 0; i < n_sinks; i++) {
		char link[64], path[4096];
		const char *p;
		struct stat st;
		ssize_t k;
		int fd;

		if (!ct_file_sink_target(&sinks[i], &p, &fd) || fstat(fd, &st) < 0 || st.st_nlink == 0)
			continue;
		snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
		k = readlink(link, path, sizeof(path));
		if (k <= 0 || (size_t)k >= sizeof(path) || path[0] != '/' || memchr(path, '\n', (size_t)k))
			continue;
		strbuf_printf(b, CT_STATUS_OPEN_FMT, (int)k, path);
	}
}

/* At exit: the loss of each sink, once, on stderr and to `clrtrace run`,
 * with the trace files open at the end (FILES: note_open_files's lines). */
static void say_exit_losses(uint64_t records, const char *files)
{
	struct strbuf status = { 0 };

	if (exit_said)
		return;
	exit_said = true;
	if (status_socket)
		strbuf_printf(&status, CT_STATUS_HEAD_FMT, (int)getpid(), records);
	for (size_t i = 0; i < n_sinks; i++) {
		struct ct_sink *s = &sinks[i];
		uint64_t lost = atomic_load(&s->dropped);
		char key[300], reasons[sizeof(s->reasons)];

		if (!lost)
			continue;
		pthread_mutex_lock(&s->reason_lock);
		memcpy(reasons, s->reasons, sizeof(reasons));
		pthread_mutex_unlock(&s->reason_lock);
		snprintf(key, sizeof(key), "exit %s", s->where);
		spec.say(key, "%" PRIu64 " of %" PRIu64 " records could not be written to %s: %s", lost, records,
			 s->where, reasons);
		if (status_socket)
			strbuf_printf(&status, CT_STATUS_LOST_FMT, lost, s->where, reasons);
	}
	if (status_socket && files)
		strbuf_puts(&status, files);
	if (status_socket && !status.oom && status.s)
		ct_status_send(status_socket, status.s, status.len);
	strbuf_free(&status);
}

/* Call FN for the unreported losses of each sink that works again (ALL:
 * of every sink), holding the set open: FN emits trace.dropped, which
 * comes back through ct_sinks_dispatch (reads of sinks_rw nest). */
void ct_sinks_each_drop(bool all, void (*fn)(const struct ct_drop *d, void *ud), void *ud)
{
	if (!stage_is_open() || (!atomic_exchange(&reports_pending, false) && !all))
		return;
	pthread_rwlock_rdlock(&sinks_rw);
	for (size_t i = 0; i < n_sinks; i++) {
		struct ct_sink *s = &sinks[i];
		char reason[sizeof(s->reason)];
		struct ct_drop d;

		if (!all && !atomic_exchange(&s->report_ready, false))
			continue;
		d.count = atomic_exchange(&s->unreported, 0);
		if (!d.count)
			continue;
		pthread_mutex_lock(&s->reason_lock);
		memcpy(reason, s->reason, sizeof(reason));
		pthread_mutex_unlock(&s->reason_lock);
		d.kind = s->ops->kind;
		d.where = s->where;
		d.reason = reason;
		fn(&d, ud);
	}
	pthread_rwlock_unlock(&sinks_rw);
}

/* Count one record that could not be staged (R: -errno) as lost by every sink. */
static void lost_unstaged(int r)
{
	pthread_rwlock_rdlock(&sinks_rw);
	for (size_t i = 0; i < n_sinks; i++)
		ct_sink_lost(&sinks[i], 1, ct_sink_errno_reason(r));
	pthread_rwlock_unlock(&sinks_rw);
	atomic_store(&reports_pending, true);
}

/* Stage the record in the calling thread's slot (see sinks.h). */
bool ct_sinks_dispatch(struct ct_stage_ref *ref, char *line, size_t len, int tid, enum ct_event ev, int depth)
{
	int r = stage_put(ref, line, len, tid, ev, depth);

	if (r < 0)
		lost_unstaged(r);
	return r > 0 && atomic_load_explicit(&reports_pending, memory_order_relaxed);
}

/* The thread of REF ends (see sinks.h). */
void ct_sinks_thread_exit(struct ct_stage_ref *ref)
{
	stage_thread_exit(ref);
}

/* The writer's hand: one record to every sink. */
static void deliver(const struct ct_rec *r)
{
	for (size_t i = 0; i < n_sinks; i++)
		sinks[i].ops->write(&sinks[i], r);
}

/* The end of the writer's round: every sink pushes out what it holds. */
static void flush_each(bool dying)
{
	for (size_t i = 0; i < n_sinks; i++)
		if (sinks[i].ops->flush)
			sinks[i].ops->flush(&sinks[i], dying);
}

/* Take every staged record to the sinks and flush them (a caller that is
 * about to die waits at most 2 s, and says the losses as the exit line:
 * from a thread, never a signal handler). */
void ct_flush_all(bool dying)
{
	PROTECT_ERRNO;

	if (dying) {
		struct timespec ts = mono_deadline_ms(2000);

		if (pthread_rwlock_clockrdlock(&sinks_rw, CLOCK_MONOTONIC, &ts) != 0)
			return;
	} else
		pthread_rwlock_rdlock(&sinks_rw);
	if (n_sinks)
		stage_round(dying, deliver, flush_each);
	if (!dying)
		announce_losses();
	else { /* no Shutdown and no atexit come after an unhandled exception */
		struct strbuf files = { 0 };

		note_open_files(&files);
		say_exit_losses(stage_numbered(), files.oom ? NULL : files.s);
		strbuf_free(&files);
	}
	pthread_rwlock_unlock(&sinks_rw);
}

/* Wake the writer (see stage.h); without one, do its round here. */
void ct_sinks_kick(void)
{
	if (!atomic_load(&flusher_running)) {
		ct_flush_all(false);
		return;
	}
	if (atomic_exchange(&kicked, true))
		return;
	pthread_mutex_lock(&flusher_lock);
	pthread_cond_signal(&flusher_cond);
	pthread_mutex_unlock(&flusher_lock);
}

/* The writer thread: take the staged records to the sinks every
 * CLRTRACE_FLUSH_MS, and when a thread stages a record too big for its
 * buffers (ct_sinks_kick). */
static void *flusher_main(void *arg)
{
	struct timespec ts;

	pthread_mutex_lock(&flusher_lock);
	while (!flusher_stop) {
		if (!atomic_load(&kicked)) {
			if (spec.flush_ms) {
				ts = mono_deadline_ms((long)spec.flush_ms);
				pthread_cond_clockwait(&flusher_cond, &flusher_lock, CLOCK_MONOTONIC, &ts);
			} else
				pthread_cond_wait(&flusher_cond, &flusher_lock);
		}
		if (flusher_stop)
			break;
		atomic_store(&kicked, false);
		pthread_mutex_unlock(&flusher_lock);
		ct_flush_all(false);
		pthread_mutex_lock(&flusher_lock);
	}
	pthread_mutex_unlock(&flusher_lock);
	return NULL;
}

/* Open O into the next free slot; *why (malloc'd) says why not. */
static int sink_open_one(const struct ct_output *o, char **why)
{
	struct ct_sink *s = &sinks[n_sinks];
	int r;

	*s = (struct ct_sink){ .ops = sink_kinds[o->kind] };
	pthread_mutex_init(&s->reason_lock, NULL);
	r = s->ops->open(s, o, &spec, why);
	if (r < 0) {
		free(s->where);
		if (!*why)
			*why = strdup(ct_output_kind_to_string(o->kind));
		return r;
	}
	n_sinks++;
	return 0;
}

/* A spec without a voice: the sinks keep quiet. */
static void say_nothing(const char *key, const char *fmt, ...)
{
}

/* Say why each output in WHYS[0..n) did not open, once, one line each
 * (freeing the reasons): the last file that failed tells whether the
 * default file took its place (DEF_WHERE) or failed too (DEF_WHY). */
static void say_open_failures(char **whys, size_t n, size_t last_file, bool fell_back, const char *def_why,
			      const char *def_where)
{
	for (size_t i = 0; i < n; i++) {
		if (!whys[i])
			continue;
		if (i == last_file && fell_back)
			spec.say(whys[i], "%s; writing %s instead", whys[i], def_where ? def_where : sinks[0].where);
		else if (i == last_file && def_why)
			spec.say(whys[i], "%s; the default file failed too: %s; not tracing", whys[i], def_why);
		else
			spec.say(whys[i], "%s; %s", whys[i], n_sinks ? "no trace goes there" : "not tracing");
		free(whys[i]);
	}
}

/* The trace is open: the exit hook (once), the status socket, the
 * flusher thread. */
static void trace_start(void)
{
	sigset_t all, old;

	if (!atexit_done) {
		const char *v = spec.status;

		/* set by `clrtrace run` only: an abstract socket name */
		if (v && v[0] == '@' && strlen(v) < sizeof(((struct sockaddr_un *)0)->sun_path))
			status_socket = strdup(v);
		atexit(sinks_atexit);
		atexit_done = true;
	}
	spec.status = NULL;
	exit_said = false;
	if (flusher_left) { /* a trace after runtime.shutdown: the old writer ends first */
		pthread_mutex_lock(&flusher_lock);
		pthread_cond_signal(&flusher_cond);
		pthread_mutex_unlock(&flusher_lock);
		pthread_join(flusher, NULL);
		flusher_left = false;
	}
	flusher_stop = false;
	sigfillset(&all);
	/* the writer must never take a signal meant for the program */
	pthread_sigmask(SIG_BLOCK, &all, &old);
	atomic_store(&flusher_running, pthread_create(&flusher, NULL, flusher_main, NULL) == 0);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* Open the staging area, mirrored beside every trace file. */
static int stage_open_for_files(void)
{
	_cleanup_free_ char **paths = calloc(n_sinks, sizeof(char *));
	_cleanup_free_ int *fds = calloc(n_sinks, sizeof(int));
	const char *run = NULL;
	size_t n = 0;

	if (!paths || !fds)
		return -ENOMEM;
	for (size_t i = 0; i < n_sinks; i++) {
		const char *p;

		if (ct_file_sink_target(&sinks[i], &p, &fds[n]))
			paths[n++] = (char *)p;
	}
	/* the status socket's name tells `clrtrace run` which mirrors are of its
	 * processes (a later trace of the process: status_socket has it) */
	if (status_socket)
		run = status_socket + 1;
	else if (spec.status && spec.status[0] == '@')
		run = spec.status + 1;
	return stage_open(paths, fds, n, run);
}

static void close_each(void);

/* Open every configured sink; those that fail are said once (one line
 * each) and left out.  When nothing opens and a trace file was asked for,
 * the default file takes its place, as for any bad value (*FELL_BACK: the
 * caller's configuration should say so).  Returns the number open, or
 * -errno when none could be opened. */
int ct_sinks_open(const struct ct_sink_spec *sp, bool *fell_back)
{
	struct ct_output def = { .kind = OUT_FILE, .path = (char *)CT_DEFAULT_FILE };
	size_t n = sp->n_outputs, last_file = SIZE_MAX;
	_cleanup_free_ char **whys = calloc(n, sizeof(char *));
	_cleanup_free_ char *def_why = NULL, *def_where = NULL;
	bool default_tried = false;

	config_file_defaults(&def);
	spec = *sp;
	if (!spec.say)
		spec.say = say_nothing;
	*fell_back = false;
	sinks = calloc(n + 1, sizeof(*sinks)); /* + 1: the default file */
	if (!sinks || !whys) {
		free(sinks);
		sinks = NULL;
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		const struct ct_output *o = &spec.outputs[i];

		if (sink_open_one(o, &whys[i]) < 0 && o->kind == OUT_FILE) {
			last_file = i;
			default_tried |= streq(o->path, CT_DEFAULT_FILE);
		}
	}
	if (n_sinks == 0 && last_file != SIZE_MAX && !default_tried) {
		*fell_back = sink_open_one(&def, &def_why) == 0;
		if (*fell_back)
			def_where = realpath(sinks[0].where, NULL);
	}
	spec.outputs = NULL; /* the caller's, and may change now */
	spec.n_outputs = 0;
	say_open_failures(whys, n, last_file, *fell_back, def_why, def_where);
	if (n_sinks == 0)
		return -EIO;
	if (stage_open_for_files() < 0) {
		spec.say("stage", "cannot make the staging area: %s; not tracing", strerror(ENOMEM));
		close_each();
		return -ENOMEM;
	}
	trace_start();
	return (int)n_sinks;
}

/* Seal the trace for runtime.shutdown and give its totals: the numbering
 * is sealed first, then every record numbered before it goes out, so that
 * the totals count every loss of the records before it; after this, only
 * runtime.shutdown gets a seq. */
void ct_sinks_seal(struct ct_totals *out)
{
	out->records = stage_seal();
	ct_flush_all(false);
	pthread_rwlock_rdlock(&sinks_rw);
	out->dropped = 0;
	for (size_t i = 0; i < n_sinks; i++)
		out->dropped += atomic_load(&sinks[i].dropped);
	pthread_rwlock_unlock(&sinks_rw);
}

/* exit() without Shutdown: say the losses (after the profiler's own
 * atexit flush, which was registered later and so runs first). */
static void sinks_atexit(void)
{
	if (pthread_rwlock_tryrdlock(&sinks_rw) != 0)
		return; /* closing right now: close says it */
	if (n_sinks) {
		struct strbuf files = { 0 };

		note_open_files(&files);
		say_exit_losses(stage_numbered(), files.oom ? NULL : files.s);
		strbuf_free(&files);
	}
	pthread_rwlock_unlock(&sinks_rw);
}

/* Stop the writer thread (closing: the core reports the last drops
 * between this and ct_sinks_close; the kicks do the rounds meanwhile).
 * EXITING (runtime.shutdown): tell it to stop and leave it, not woken
 * unless it waits without a period: waking it and waiting until it is
 * scheduled was about 1 ms of every exit.  Nothing is lost by not waiting:
 * close takes sinks_rw for writing, so a round it is in finishes first,
 * and after close it finds no sink. */
void ct_sinks_stop_flusher(bool exiting)
{
	if (!atomic_load(&flusher_running))
		return;
	pthread_mutex_lock(&flusher_lock);
	flusher_stop = true;
	if (!exiting || !spec.flush_ms)
		pthread_cond_signal(&flusher_cond);
	pthread_mutex_unlock(&flusher_lock);
	atomic_store(&flusher_running, false);
	if (exiting)
		flusher_left = true;
	else
		pthread_join(flusher, NULL);
}

/* Close every sink, freeing their names.  Caller holds sinks_rw for writing
 * (or nothing has the set yet). */
static void close_each(void)
{
	for (size_t i = 0; i < n_sinks; i++)
		if (sinks[i].ops->close)
			sinks[i].ops->close(&sinks[i]);
}

/* Stop the writer, take the last records out, close every sink and the
 * staging area; say what was lost. */
void ct_sinks_close(void)
{
	struct strbuf files = { 0 };
	uint64_t records;

	ct_sinks_stop_flusher(false);
	records = stage_seal(); /* nothing numbered after this but a last record */
	ct_flush_all(false);
	pthread_rwlock_wrlock(&sinks_rw);
	stage_close();
	if (stage_numbered() > records)
		records = stage_numbered();
	note_open_files(&files); /* the names, while the files are open */
	close_each();
	/* close may count the last losses (a buffer the disk refused): the
	 * exit line says them, with the rest */
	say_exit_losses(records, files.oom ? NULL : files.s);
	strbuf_free(&files);
	for (size_t i = 0; i < n_sinks; i++) {
		free(sinks[i].where);
		pthread_mutex_destroy(&sinks[i].reason_lock);
	}
	n_sinks = 0;
	free(sinks);
	sinks = NULL;
	pthread_rwlock_unlock(&sinks_rw);
}
