/* SPDX-License-Identifier: MIT */
/*
 * The systemd journal sink.  write() runs on the stage writer (stage.c: one
 * producer at a time; the flusher thread, or a program thread whose halves
 * are full or that flushes on its way out) and only copies the record
 * line into a bounded queue; a sender thread, never a program thread,
 * turns each line into an entry (journal-fields.c) and sends it with
 * sd_journal_sendv() (the function, not the macro: CODE_FILE and CODE_LINE
 * would name this file; CODE_FUNC is the .NET method the entry is about,
 * when the record names one).  DESIGN.md, Sinks, says where each step runs.
 *
 * Nothing waits on journald except the writer and a bounded drain:
 *  - a full queue, a record over the client-side rate limit, or journald
 *    known to be unreachable: the record is counted as lost on the spot;
 *  - sd_journal_sendv() returns 0 when the socket does not exist, so the
 *    writer checks the socket itself before sending; a dead journald (stale
 *    socket) gives ECONNREFUSED; while unreachable, the writer probes it with
 *    a connect() of its own every PROBE_INTERVAL_MS and reports recovery;
 *  - journald's own rate limit cannot be seen from the client: a limiter
 *    with journald's defaults and priority pools drops (and counts) first.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#define SD_JOURNAL_SUPPRESS_LOCATION
#include <systemd/sd-journal.h>
#include <unistd.h>

#include "profiler/sinks/journal-fields.h"
#include "profiler/sinks/sink.h"
#include "common/util.h"

#define JOURNAL_SOCKET "/run/systemd/journal/socket"
#define QUEUE_SLOTS 4096u              /* entries; a power of two */
#define QUEUE_BYTES (8u * 1024 * 1024) /* record bytes waiting at most */
#define DRAIN_TIMEOUT_MS 1000          /* flush/close wait for the writer at most */
#define PROBE_INTERVAL_MS 250          /* how often a lost journald is looked for */
#define POOLS 5
#define RESERVE 16u                    /* of a pool's burst, for reserved() */

/* journald's rate-limit pools by syslog priority (journald-rate-limit.c). */
static const int priority_pool[8] = { 0, 0, 0, 1, 2, 3, 3, 4 };

/* One queued record. */
struct jslot {
	char *line;
	size_t len;
	enum ct_event event;
	int depth, tid;
};

/* One rate-limit pool: a window of INTERVAL with at most BURST records. */
struct rl_pool {
	uint64_t begin_ns;
	unsigned num;
	bool dropping;
};

struct journal_sink {
	struct ct_sink *sink;
	struct jslot slots[QUEUE_SLOTS];
	atomic_size_t head; /* next slot the producer fills */
	atomic_size_t tail; /* next slot the writer takes */
	atomic_size_t bytes;
	sem_t wake;
	pthread_t writer;
	atomic_bool stop;
	atomic_bool exited;
	atomic_bool down;     /* journald unreachable: drop at once */
	atomic_bool stalled;  /* a drain timed out: don't wait again until progress */
	atomic_bool sending;  /* the writer is inside sd_journal_sendv */
	atomic_bool idle;     /* the writer waits on WAKE: post to wake it */
	pthread_mutex_t loss_lock; /* orders ct_sink_lost() calls of both threads */
	bool orphaned;             /* under loss_lock: the sink is closed, the writer left behind */
	char down_reason[96];
	char *ident;
	/* rate limit (producer side, on the stage writer) */
	unsigned rl_burst;
	uint64_t rl_interval_ns;
	struct rl_pool pools[POOLS];
	struct jf_entry entry; /* writer only */
};

/* Count N records lost for REASON. */
static void lost(struct journal_sink *j, uint64_t n, const char *reason)
{
	pthread_mutex_lock(&j->loss_lock);
	if (!j->orphaned) /* else counted at close, and the sink is gone */
		ct_sink_lost(j->sink, n, reason);
	pthread_mutex_unlock(&j->loss_lock);
}

/* Is the journal socket there and accepting?  0, or -errno saying why not. */
static int journal_probe(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX, .sun_path = JOURNAL_SOCKET };
	int fd, r = 0;

	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		r = -errno;
	close(fd);
	return r;
}

/* Mark journald unreachable for R (-errno), from the writer. */
static void set_down(struct journal_sink *j, int r)
{
	if (atomic_load(&j->down))
		return;
	snprintf(j->down_reason, sizeof(j->down_reason), "journald not reachable: %s",
		 r == -ENOENT ? "no socket at " JOURNAL_SOCKET : strerror(-r));
	atomic_store(&j->down, true);
}

/* Send one queued record; 0 or -errno. */
static int send_one(struct journal_sink *j, const struct jslot *q)
{
	struct jf_meta m = { .ident = j->ident, .event = q->event, .depth = q->depth, .tid = q->tid };
	const struct iovec *iov;
	struct stat st;
	size_t n;
	int r;

	/* sd_journal_sendv() says 0 when the socket is missing: look first */
	if (stat(JOURNAL_SOCKET, &st) < 0)
		return -errno;
	r = jf_build(&j->entry, q->line, q->len, &m);
	if (r < 0)
		return r;
	iov = jf_iovec(&j->entry, &n);
	if (!iov)
		return -ENOMEM;
	atomic_store(&j->sending, true);
	r = sd_journal_sendv(iov, (int)n);
	atomic_store(&j->sending, false);
	return r;
}

/* Why a send failed, for trace.dropped. */
static const char *send_error_reason(struct journal_sink *j, int r, char *buf, size_t size)
{
	if (r == -ENOENT || r == -ECONNREFUSED || r == -ENOTCONN) {
		set_down(j, r);
		return j->down_reason;
	}
	snprintf(buf, size, "sd_journal_sendv: %s", strerror(-r));
	return buf;
}

/* Take every queued record: send it, or count it lost. */
static void writer_drain(struct journal_sink *j)
{
	size_t tail = atomic_load(&j->tail);
	char buf[96];

	while (tail != atomic_load_explicit(&j->head, memory_order_acquire)) {
		struct jslot *q = &j->slots[tail % QUEUE_SLOTS];
		int r = atomic_load(&j->down) ? -EPIPE : send_one(j, q);

		if (r == -EPIPE)
			lost(j, 1, j->down_reason);
		else if (r < 0)
			lost(j, 1, send_error_reason(j, r, buf, sizeof(buf)));
		atomic_fetch_sub(&j->bytes, q->len);
		free(q->line);
		q->line = NULL;
		atomic_store_explicit(&j->tail, ++tail, memory_order_release);
		atomic_store(&j->stalled, false);
	}
}

/* While journald is unreachable, look for it; report recovery. */
static void writer_probe(struct journal_sink *j)
{
	if (!atomic_load(&j->down) || journal_probe() < 0)
		return;
	atomic_store(&j->down, false);
	pthread_mutex_lock(&j->loss_lock);
	if (!j->orphaned)
		ct_sink_recovered(j->sink);
	pthread_mutex_unlock(&j->loss_lock);
}

/* The writer thread: wait for records, send them, probe a lost journald. */
static void *writer_main(void *arg)
{
	struct journal_sink *j = arg;
	struct timespec ts;
	int r;

	for (;;) {
		writer_drain(j);
		if (atomic_load(&j->stop))
			break;
		/* say we sleep, then look again: a record queued before the
		 * flag was set is seen here, one queued after posts WAKE */
		atomic_store(&j->idle, true);
		if (atomic_load(&j->tail) != atomic_load(&j->head) || atomic_load(&j->stop)) {
			atomic_store(&j->idle, false);
			continue;
		}
		ts = mono_deadline_ms(PROBE_INTERVAL_MS);
		r = sem_clockwait(&j->wake, CLOCK_MONOTONIC, &ts);
		atomic_store(&j->idle, false);
		if (r < 0 || atomic_load(&j->down))
			writer_probe(j);
	}
	writer_drain(j);
	atomic_store(&j->exited, true);
	return NULL;
}

/* Open: read the rate limit, start the writer with every signal blocked. */
static int journal_open(struct ct_sink *s, const struct ct_output *o, const struct ct_sink_spec *spec, char **why)
{
	struct journal_sink *j;
	unsigned burst = spec->journal_burst, interval_s = spec->journal_interval_s;
	sigset_t all, old;
	int r;

	j = calloc(1, sizeof(*j));
	if (!j)
		return -ENOMEM;
	j->sink = s;
	j->rl_burst = burst;
	j->rl_interval_ns = (uint64_t)interval_s * 1000000000u;
	j->ident = strdup(spec->ident ? spec->ident : spec->program ? spec->program : "dotnet");
	s->where = strdup("journal");
	if (!j->ident || !s->where) {
		r = -ENOMEM;
		goto fail;
	}
	pthread_mutex_init(&j->loss_lock, NULL);
	sem_init(&j->wake, 0, 0);
	r = journal_probe();
	if (r < 0)
		set_down(j, r); /* no journald yet: count, and look for it */
	sigfillset(&all);
	/* the writer must never take a signal meant for the program */
	pthread_sigmask(SIG_BLOCK, &all, &old);
	r = -pthread_create(&j->writer, NULL, writer_main, j);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (r < 0) {
		if (asprintf(why, "cannot start the journal writer thread: %s", strerror(-r)) < 0)
			*why = NULL;
		sem_destroy(&j->wake);
		pthread_mutex_destroy(&j->loss_lock);
		goto fail;
	}
	s->data = j;
	return 0;
fail:
	free(j->ident);
	free(j);
	free(s->where);
	s->where = NULL;
	return r;
}

/* Is REC one the rate limit keeps room for: the verdict of an unhandled
 * exception (exception.unhandled, exception.error of fate unhandled) or
 * the end of the trace? */
static bool reserved(const struct ct_rec *rec)
{
	static const char fate[] = "\"fate\":\"unhandled\"";

	return rec->event == EV_EXCEPTION_UNHANDLED || rec->event == EV_RUNTIME_SHUTDOWN ||
	       rec->event == EV_RUNTIME_DETACH ||
	       (rec->event == EV_EXCEPTION_ERROR && memmem(rec->line, rec->len, fate, sizeof(fate) - 1));
}

/* Client-side rate limit, per priority pool like journald's; true: send.
 * The last RESERVE of each pool's burst are kept for the reserved
 * records, which journald's own limit would drop as well past it. */
static bool ratelimit_pass(struct journal_sink *j, const struct ct_rec *rec)
{
	enum ct_event ev = rec->event;
	int prio = ev >= 0 && ev < _EV_MAX ? ct_events[ev].priority : 6;
	unsigned reserve = j->rl_burst >= 4 * RESERVE ? RESERVE : j->rl_burst / 4;
	struct rl_pool *p = &j->pools[priority_pool[prio & 7]];
	uint64_t now;

	if (!j->rl_burst)
		return true;
	now = mono_ns();
	if (!p->begin_ns || now - p->begin_ns > j->rl_interval_ns) {
		p->begin_ns = now;
		p->num = 0;
		if (p->dropping) {
			p->dropping = false;
			if (!atomic_load(&j->down)) {
				pthread_mutex_lock(&j->loss_lock);
				ct_sink_recovered(j->sink);
				pthread_mutex_unlock(&j->loss_lock);
			}
		}
	}
	if (p->num < j->rl_burst - (reserved(rec) ? 0 : reserve)) {
		p->num++;
		return true;
	}
	p->dropping = true;
	return false;
}

/* Queue one record for the writer; never waits. */
static void journal_write(struct ct_sink *s, const struct ct_rec *r)
{
	struct journal_sink *j = s->data;
	size_t head = atomic_load(&j->head), tail = atomic_load_explicit(&j->tail, memory_order_acquire);
	struct jslot *q;
	char *copy;

	if (!ratelimit_pass(j, r)) {
		lost(j, 1, "over the journal rate limit (CLRTRACE_JOURNAL_RATELIMIT)");
		return;
	}
	if (atomic_load(&j->down)) {
		lost(j, 1, j->down_reason);
		return;
	}
	if (head - tail >= QUEUE_SLOTS || atomic_load(&j->bytes) + r->len > QUEUE_BYTES) {
		lost(j, 1, "journal queue full: journald is not keeping up");
		return;
	}
	copy = malloc(r->len);
	if (!copy) {
		lost(j, 1, strerror(ENOMEM));
		return;
	}
	memcpy(copy, r->line, r->len);
	q = &j->slots[head % QUEUE_SLOTS];
	*q = (struct jslot){ .line = copy, .len = r->len, .event = r->event, .depth = r->depth, .tid = r->tid };
	atomic_fetch_add(&j->bytes, r->len);
	atomic_store(&j->head, head + 1);
	if (atomic_exchange(&j->idle, false))
		sem_post(&j->wake); /* a futex wake only when the writer sleeps */
}

/* Wait (at most DRAIN_TIMEOUT_MS) until the writer took everything queued
 * now; only atomics, sem_post and nanosleep, so a signal handler may call
 * it.  False on timeout. */
static bool drain_wait(struct journal_sink *j)
{
	size_t target = atomic_load(&j->head);
	uint64_t deadline = mono_ns() + DRAIN_TIMEOUT_MS * 1000000ull;
	struct timespec pause = { 0, 1000000L };

	while ((ssize_t)(target - atomic_load(&j->tail)) > 0) {
		if (atomic_load(&j->exited) || mono_ns() >= deadline)
			return false;
		sem_post(&j->wake);
		nanosleep(&pause, NULL);
	}
	return true;
}

/* Push the queue out to journald, waiting a bounded time.  DYING or not,
 * the wait is bounded; after one timeout, no wait until the writer moves. */
static void journal_flush(struct ct_sink *s, bool dying)
{
	struct journal_sink *j = s->data;

	if (atomic_load(&j->stalled) && !dying)
		return;
	if (!drain_wait(j))
		atomic_store(&j->stalled, true);
}

/* Stop the writer after a bounded drain; if journald holds it, leave it. */
static void journal_close(struct ct_sink *s)
{
	struct journal_sink *j = s->data;
	struct timespec ts;
	size_t left;

	atomic_store(&j->stop, true);
	sem_post(&j->wake);
	ts = mono_deadline_ms(DRAIN_TIMEOUT_MS);
	if (pthread_clockjoin_np(j->writer, NULL, CLOCK_MONOTONIC, &ts) == 0) {
		sem_destroy(&j->wake);
		pthread_mutex_destroy(&j->loss_lock);
		jf_entry_done(&j->entry);
		free(j->ident);
		free(j);
		s->data = NULL;
		return;
	}
	/* journald takes nothing (stopped?): what is queued or in flight is
	 * lost (the exit line says the sink's whole loss); the writer stays
	 * blocked in sendmsg() and is left alone, with its memory, until the
	 * process ends, and no longer touches the sink. */
	pthread_mutex_lock(&j->loss_lock);
	left = atomic_load(&j->head) - atomic_load(&j->tail);
	ct_sink_lost(s, left, "journald did not take records before the program ended");
	j->orphaned = true;
	pthread_mutex_unlock(&j->loss_lock);
	pthread_detach(j->writer);
	s->data = NULL;
}

const struct ct_sink_ops ct_sink_journal_ops = {
	.kind = OUT_JOURNAL,
	.open = journal_open,
	.write = journal_write,
	.flush = journal_flush,
	.close = journal_close,
};
