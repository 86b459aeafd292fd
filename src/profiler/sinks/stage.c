/* SPDX-License-Identifier: MIT */
/*
 * The staging area: no lock shared between threads on a record's way from
 * a callback to its buffer.  Each thread stages into a slot of its own (two
 * halves).  A record is numbered (one atomic counter, which also holds the
 * trace's state) and copied into the active half under the slot's lock,
 * which only the writer ever contends for.  When a half fills, the thread
 * hands it to the writer and goes on in the other one; when both are full,
 * it does the writer's round itself.
 *
 * The writer (the flusher thread every CLRTRACE_FLUSH_MS, a thread whose
 * halves are full, or a thread flushing on its way out)
 * reads the counter, S, then takes each slot's lock once: numbering and
 * copying happen under that lock, so every record up to S is in a slot by
 * then.  A merge by seq hands the sinks the records up to S in seq order
 * (the file stays in seq order), and what is past S waits for the next
 * round.
 *
 * The halves are a shared mapping of FILE.<pid>.pending: what the writer
 * has not yet put into the file survives a death without a flush
 * (Environment.FailFast, kill -9) for `clrtrace run` and `clrtrace
 * recover`.  A half is emptied only after its records are in the file.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/statvfs.h>
#include <time.h>

#include "common/digits.h"
#include "common/pending.h"
#include "common/spin.h"
#include "common/util.h"
#include "profiler/sinks/stage.h"

#define HALF_SIZE PENDING_BUF_SIZE /* a merge trusts no larger buffer */
#define ROOM_STEP (16 * 1024) /* a half's room in the mirror grows by this much */
#define MAX_SLOTS (PENDING_MAX_BUFS / 2)

/* The numbering: the last seq given, with the trace's state on top. */
#define SEQ_MASK PENDING_MAX_SEQ
#define ST_SEALED (UINT64_C(1) << 62) /* only a last record may come */
#define ST_ENDED (UINT64_C(1) << 63)  /* nothing more */
static _Atomic uint64_t numbering = ST_ENDED;

/* A record larger than a half, staged on the heap (not in the mirror). */
struct big {
	struct pending_rec h;
	char line[];
};

/* One thread's (or, past MAX_SLOTS threads, a few threads') staging. */
struct slot {
	atomic_bool lock;
	unsigned users;     /* threads staging here (slots_mutex) */
	uint64_t gen;       /* the area it serves; 0: none (slots_mutex and lock) */
	char *priv;         /* its halves when the mirror had no room for them */
	size_t room[2];     /* bytes of each half reserved in the mirror */
	int active;         /* the half records go into */
	bool handed[2];     /* the thread moved on from this half: the writer empties it */
	size_t used[2];     /* bytes staged */
	size_t rd[2];       /* bytes the writer has taken */
	struct big *big;
} __attribute__((aligned(64)));

static struct slot slots[MAX_SLOTS];
static _Atomic unsigned n_slots;     /* slots handed out so far */
static pthread_mutex_t slots_mutex = PTHREAD_MUTEX_INITIALIZER;
static _Atomic uint64_t area_gen;    /* the open area's generation; 0: none */
static uint64_t gen_counter;

static char *area;                   /* slot i half h at area + (2i + h) * HALF_SIZE */
static struct pending_header *mirror;
static int mirror_fd = -1;
static char **mirror_paths;
static size_t n_mirror_paths;

static pthread_mutex_t round_lock = PTHREAD_MUTEX_INITIALIZER;

/* The file sink rotated its trace: the records up to SEQ are in the files
 * before it, and the trace starts anew (see pending.h). */
void stage_files_rotated(uint64_t seq)
{
	struct pending_header *m = mirror;

	if (!m)
		return;
	m->trace_off = 0;
	atomic_store(&m->rotated_seq, seq);
}

/* The records that end a trace (the only ones after the seal). */
static inline bool last_record(enum ct_event ev)
{
	return ev == EV_RUNTIME_SHUTDOWN || ev == EV_RUNTIME_DETACH;
}

/* Take slot S's lock (common/spin.h). */
static inline void slot_lock(struct slot *s)
{
	spin_lock(&s->lock);
}

/* Take it within about 100 ms (a dying writer must not hang). */
static bool slot_lock_dying(struct slot *s)
{
	return spin_lock_within(&s->lock, 100);
}

static inline void slot_unlock(struct slot *s)
{
	spin_unlock(&s->lock);
}

static inline unsigned slot_index(const struct slot *s)
{
	return (unsigned)(s - slots);
}

static inline char *half_of(const struct slot *s, int h)
{
	if (s->priv)
		return s->priv + (size_t)h * HALF_SIZE;
	return area + ((size_t)slot_index(s) * 2 + (size_t)h) * HALF_SIZE;
}

/* Record that half H of S holds USED bytes (in the mirror too). */
static inline void set_used(struct slot *s, int h, size_t used)
{
	s->used[h] = used;
	if (mirror && !s->priv)
		pending_set_used(mirror, slot_index(s) * 2 + (unsigned)h, used);
}

/* Empty slot S for the area GEN.  Caller holds its lock. */
static void slot_reset(struct slot *s, uint64_t g)
{
	free(s->big);
	s->big = NULL;
	s->active = 0;
	for (int h = 0; h < 2; h++) {
		s->handed[h] = false;
		s->rd[h] = 0;
		s->used[h] = 0;
	}
	s->gen = g;
}

/* Give REF a slot: an unused one, a new one, or (past MAX_SLOTS) the least
 * shared.  NULL when no area is open. */
static struct slot *slot_take(struct ct_stage_ref *ref)
{
	struct slot *s = NULL;
	uint64_t g;
	unsigned n, i;

	pthread_mutex_lock(&slots_mutex);
	g = atomic_load(&area_gen);
	n = atomic_load(&n_slots);
	if (!g)
		goto out;
	for (i = 0; i < n && !s; i++)
		if (slots[i].users == 0)
			s = &slots[i];
	if (!s && n < MAX_SLOTS) {
		s = &slots[n];
		slot_lock(s);
		slot_reset(s, g);
		s->room[0] = s->room[1] = 0;
		slot_unlock(s);
		atomic_store(&n_slots, n + 1);
	}
	if (!s) { /* every slot in use: share the least shared */
		s = &slots[0];
		for (i = 1; i < n; i++)
			if (slots[i].users < s->users)
				s = &slots[i];
	}
	s->users++;
	ref->slot = s;
	ref->gen = g;
out:
	pthread_mutex_unlock(&slots_mutex);
	return s;
}

/* Lock REF's slot, taking one first if it has none for the open area.
 * NULL when no area is open. */
static struct slot *slot_mine(struct ct_stage_ref *ref)
{
	for (int tries = 0; tries < 3; tries++) {
		struct slot *s = ref->slot;

		if (!s || ref->gen != atomic_load_explicit(&area_gen, memory_order_relaxed))
			s = slot_take(ref);
		if (!s)
			return NULL;
		slot_lock(s);
		if (s->gen && s->gen == ref->gen)
			return s;
		slot_unlock(s); /* closed meanwhile: the next area, if any */
		ref->slot = NULL;
	}
	return NULL;
}

/* min-free of the file sink whose directory the mirror shares: percent
 * of the file system the mirror's growth leaves free too (0: no check) */
static _Atomic unsigned mirror_min_free;

void stage_set_min_free(unsigned percent)
{
	unsigned cur = atomic_load(&mirror_min_free);

	if (percent > cur)
		atomic_store(&mirror_min_free, percent);
}

/* May the mirror grow by LEN bytes and leave min-free?  A statvfs per
 * ROOM_STEP of growth, beside the write of zeros that reserves it. */
static bool mirror_has_room(size_t len)
{
	unsigned pct = atomic_load_explicit(&mirror_min_free, memory_order_relaxed);
	struct statvfs v;

	if (!pct || fstatvfs(mirror_fd, &v) < 0 || !v.f_blocks)
		return true;
	return (unsigned __int128)v.f_bavail * v.f_frsize >= ct_min_free_floor(v.f_blocks, v.f_frsize, pct) + len;
}

/* The mirror has no room for S (a full disk): its halves go on in private
 * memory, and the mirror forgets them (a death without a flush loses
 * them; the file's own losses are counted).  Caller holds S's lock. */
static int slot_go_private(struct slot *s)
{
	char *p = malloc(2 * HALF_SIZE);

	if (!p)
		return -ENOMEM;
	for (int h = 0; h < 2; h++) {
		memcpy(p + (size_t)h * HALF_SIZE, half_of(s, h), s->used[h]);
		pending_set_used(mirror, slot_index(s) * 2 + (unsigned)h, 0);
	}
	s->priv = p;
	return 0;
}

/* Make sure half H of S has room in the mirror for NEED bytes: reserved
 * ROOM_STEP at a time as the half first fills, then reused, so that a
 * thread that stages little reserves little (each step is a write of
 * zeros; and what a short trace reserved, its end frees).  Caller holds
 * S's lock.  0 or -ENOMEM. */
static int slot_room(struct slot *s, int h, size_t need)
{
	size_t to = (need + ROOM_STEP - 1) / ROOM_STEP * ROOM_STEP;

	if (s->priv || !mirror || need <= s->room[h])
		return 0;
	if (!mirror_has_room(to - s->room[h]))
		return slot_go_private(s);
	if (pending_reserve(mirror, mirror_fd, slot_index(s) * 2 + (unsigned)h, s->room[h], to) == 0) {
		s->room[h] = to;
		return 0;
	}
	return slot_go_private(s);
}

/* Number a record: its seq, or 0 when the trace takes no more (LAST:
 * a record that ends it). */
static uint64_t claim(bool last)
{
	uint64_t v = atomic_load_explicit(&numbering, memory_order_relaxed), nv;

	do {
		if ((v & ST_ENDED) || ((v & ST_SEALED) && !last))
			return 0;
		nv = (((v & SEQ_MASK) + 1) & SEQ_MASK) | (v & ST_SEALED) | (last ? ST_ENDED : 0);
	} while (!atomic_compare_exchange_weak_explicit(&numbering, &v, nv, memory_order_relaxed,
						       memory_order_relaxed));
	return nv & SEQ_MASK;
}

/* Write {"v":1,"seq":SEQ in front of LINE's record (in its room); the
 * line's start. */
static char *fill_seq(char *line, uint64_t seq)
{
	static const char prefix[] = CT_RECORD_HEAD;
	size_t nd = digits_u64(line + CT_SEQ_ROOM, seq); /* the room ends where the record goes on */
	char *start = line + CT_SEQ_ROOM - nd - (sizeof(prefix) - 1);

	memcpy(start, prefix, sizeof(prefix) - 1);
	return start;
}

/* Frame the record (header, line, newline) at D. */
static void frame(char *d, const struct pending_rec *h, const char *start)
{
	memcpy(d, h, sizeof(*h));
	memcpy(d + sizeof(*h), start, h->len - 1);
	d[sizeof(*h) + h->len - 1] = '\n';
}

/* Stage a record too large for a half on the heap.  Caller holds S's lock;
 * released here. */
static int put_big(struct slot *s, struct ct_stage_ref *ref, char *line, size_t len, struct pending_rec *h,
		   struct big *b)
{
	while (s->big) {
		slot_unlock(s);
		ct_flush_all(false); /* the writer has not come: do its round here */
		slot_lock(s);
		if (s->gen != ref->gen) {
			slot_unlock(s);
			free(b);
			return 0;
		}
	}
	h->seq = claim(last_record(h->event));
	if (!h->seq) {
		slot_unlock(s);
		free(b);
		return 0;
	}
	char *start = fill_seq(line, h->seq);
	h->len = (uint32_t)(len - (size_t)(start - line) + 1);
	frame((char *)b, h, start);
	s->big = b;
	slot_unlock(s);
	ct_sinks_kick();
	return 1;
}

/* Stage one record (see stage.h). */
int stage_put(struct ct_stage_ref *ref, char *line, size_t len, int tid, enum ct_event ev, int depth)
{
	struct pending_rec h = { .event = (uint16_t)ev, .depth = (int16_t)depth, .tid = tid, .magic = PENDING_REC_MAGIC };
	size_t need = pending_rec_size(len + 1); /* at most: the room is not all prefix */
	struct big *b = NULL;
	struct slot *s;
	char *start;
	int r;

	if (len > UINT32_MAX / 2)
		return -E2BIG;
	if (need > HALF_SIZE && !(b = malloc(sizeof(*b) + len + 1)))
		return -ENOMEM;
	s = slot_mine(ref);
	if (!s) {
		free(b);
		return 0;
	}
	if (b)
		return put_big(s, ref, line, len, &h, b);
	while (s->used[s->active] + need > HALF_SIZE) {
		int o = s->active ^ 1;

		if (!s->handed[o] && s->used[o] == 0) {
			/* no wake-up of the writer here: on a VM waking a thread
			 * on another CPU costs more than the write it saves (the
			 * writer comes every CLRTRACE_FLUSH_MS, or this thread
			 * does its round when both halves are full) */
			s->handed[s->active] = true;
			s->active = o;
			break;
		}
		/* both halves wait for the writer: the disk is slower than the program */
		slot_unlock(s);
		ct_flush_all(false); /* the writer has not come: do its round here */
		slot_lock(s);
		if (s->gen != ref->gen) {
			slot_unlock(s);
			return 0;
		}
	}
	r = slot_room(s, s->active, s->used[s->active] + need);
	if (r < 0) {
		slot_unlock(s);
		return r;
	}
	h.seq = claim(last_record(ev));
	if (!h.seq) {
		slot_unlock(s);
		return 0;
	}
	start = fill_seq(line, h.seq);
	h.len = (uint32_t)(len - (size_t)(start - line) + 1);
	frame(half_of(s, s->active) + s->used[s->active], &h, start);
	set_used(s, s->active, s->used[s->active] + pending_rec_size(h.len));
	slot_unlock(s);
	return 1;
}

/* ---- the writer ---- */

/* One run of records the writer takes from a slot. */
struct source {
	struct slot *s;
	int h;           /* the half, or -1: the slot's big record */
	const char *d;   /* the half's (or big record's) bytes */
	size_t pos, end;
	uint64_t head;   /* seq of the record at pos */
};
static struct source sources[3 * MAX_SLOTS]; /* under round_lock */

/* Read the seq of the record at SRC's position (0 when it is empty). */
static void source_peek(struct source *src)
{
	struct pending_rec h;

	src->head = 0;
	if (src->pos < src->end) {
		memcpy(&h, src->d + src->pos, sizeof(h));
		src->head = h.seq;
	}
}

/* Note a run of slot S: half H's bytes [from, to). */
static void source_add(size_t *n, struct slot *s, int h, const char *d, size_t from, size_t to)
{
	if (from >= to)
		return;
	sources[*n] = (struct source){ .s = s, .h = h, .d = d, .pos = from, .end = to };
	source_peek(&sources[(*n)++]);
}

/* Collect what each slot holds (DYING: skip a slot that stays locked). */
static size_t collect(bool dying)
{
	unsigned n = atomic_load(&n_slots);
	uint64_t g = atomic_load(&area_gen);
	size_t k = 0;

	for (unsigned i = 0; i < n; i++) {
		struct slot *s = &slots[i];

		if (dying ? !slot_lock_dying(s) : (slot_lock(s), false))
			continue;
		if (s->gen && s->gen == g) {
			int a = s->active, o = a ^ 1;

			/* the half the thread moved on from holds the older records */
			if (s->handed[o])
				source_add(&k, s, o, half_of(s, o), s->rd[o], s->used[o]);
			source_add(&k, s, a, half_of(s, a), s->rd[a], s->used[a]);
			if (s->big)
				source_add(&k, s, -1, (const char *)s->big, 0, pending_rec_size(s->big->h.len));
		}
		slot_unlock(s);
	}
	return k;
}

/* Restore the min-heap H[0..n) by seq of its head, from I down. */
static void heap_down(struct source **h, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, m = i;
		struct source *t;

		if (l < n && h[l]->head < h[m]->head)
			m = l;
		if (l + 1 < n && h[l + 1]->head < h[m]->head)
			m = l + 1;
		if (m == i)
			return;
		t = h[i];
		h[i] = h[m];
		h[m] = t;
		i = m;
	}
}

/* Hand the records of SOURCES[0..n) up to seq UPTO to DELIVER, in seq
 * order: a min-heap of the sources by the seq of their next record (a
 * scan of them all per record was 1.3x slower with 8 sources, 14x with
 * 128; see DESIGN.md). */
static void merge(size_t n, uint64_t upto, void (*deliver)(const struct ct_rec *r))
{
	static struct source *heap[ELEMENTSOF(sources)]; /* under round_lock */
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		if (sources[i].pos < sources[i].end)
			heap[k++] = &sources[i];
	for (size_t i = k / 2; i-- > 0;)
		heap_down(heap, k, i);
	/* a source's records are in seq order: past UPTO at the top, past
	 * UPTO everywhere */
	while (k && heap[0]->head <= upto) {
		struct source *best = heap[0];
		struct pending_rec h;

		memcpy(&h, best->d + best->pos, sizeof(h));
		const struct ct_rec r = {
			.line = best->d + best->pos + sizeof(h),
			.len = h.len - 1,
			.seq = h.seq,
			.event = (enum ct_event)h.event,
			.depth = h.depth,
			.tid = h.tid,
		};
		deliver(&r);
		best->pos += pending_rec_size(h.len);
		source_peek(best);
		if (best->pos >= best->end)
			heap[0] = heap[--k];
		heap_down(heap, k, 0);
	}
}

/* Give the slots back the room of what was delivered. */
static void release(size_t n, bool dying)
{
	for (size_t i = 0; i < n; i++) {
		struct source *src = &sources[i];
		struct slot *s = src->s;

		if (dying ? !slot_lock_dying(s) : (slot_lock(s), false))
			continue;
		if (src->h < 0) {
			if (src->pos >= src->end) {
				free(s->big);
				s->big = NULL;
			}
		} else {
			int h = src->h;

			s->rd[h] = src->pos;
			/* emptied: the thread starts it again (or has it back) */
			if (s->rd[h] == s->used[h] && (s->handed[h] || h == s->active)) {
				s->handed[h] = false;
				s->rd[h] = 0;
				set_used(s, h, 0);
			}
		}
		slot_unlock(s);
	}
}

/* Take everything numbered to the sinks (see stage.h). */
bool stage_round(bool dying, void (*deliver)(const struct ct_rec *r), void (*done)(bool dying))
{
	uint64_t upto;
	size_t n;

	if (dying) {
		struct timespec ts = mono_deadline_ms(2000);

		if (pthread_mutex_clocklock(&round_lock, CLOCK_MONOTONIC, &ts) != 0)
			return false;
	} else
		pthread_mutex_lock(&round_lock);
	upto = atomic_load(&numbering) & SEQ_MASK;
	n = area ? collect(dying) : 0;
	merge(n, upto, deliver);
	done(dying); /* in the file before their room is given back */
	release(n, dying);
	pthread_mutex_unlock(&round_lock);
	return true;
}

/* Records numbered so far. */
uint64_t stage_numbered(void)
{
	return atomic_load(&numbering) & SEQ_MASK;
}

/* Seal the numbering (see stage.h). */
uint64_t stage_seal(void)
{
	return atomic_fetch_or(&numbering, ST_SEALED) & SEQ_MASK;
}

/* Is the trace open? */
bool stage_is_open(void)
{
	return !(atomic_load(&numbering) & (ST_SEALED | ST_ENDED));
}

/* Open the area (see stage.h). */
int stage_open(char *const *paths, const int *fds, size_t n, const char *run_id)
{
	size_t len = (size_t)MAX_SLOTS * 2 * HALF_SIZE;
	char *mp = NULL;

	pthread_mutex_lock(&round_lock);
	pthread_mutex_lock(&slots_mutex);
	mirror_paths = n ? calloc(n, sizeof(*mirror_paths)) : NULL;
	if (mirror_paths &&
	    pending_create(paths[0], fds[0], HALF_SIZE, PENDING_MAX_BUFS, run_id, &mirror, &mp, &mirror_fd) == 0) {
		mirror_paths[0] = mp;
		n_mirror_paths = 1;
		/* the other files' merges find the same records under their names */
		for (size_t i = 1; i < n; i++)
			if (pending_link(mirror, mp, paths[i], fds[i], &mirror_paths[n_mirror_paths]) == 0)
				n_mirror_paths++;
		area = pending_data(mirror, 0);
	} else {
		/* no mirror (no file, or it cannot be made): private memory */
		free(mirror_paths);
		mirror_paths = NULL;
		mirror = NULL;
		area = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (area == MAP_FAILED)
			area = NULL;
	}
	if (area) {
		atomic_store(&n_slots, 0);
		atomic_store(&area_gen, ++gen_counter);
		atomic_store(&numbering, 0);
	}
	pthread_mutex_unlock(&slots_mutex);
	pthread_mutex_unlock(&round_lock);
	return area ? 0 : -ENOMEM;
}

/* End the numbering and free the area (see stage.h). */
void stage_close(void)
{
	unsigned n;

	atomic_fetch_or(&numbering, ST_ENDED);
	pthread_mutex_lock(&round_lock);
	pthread_mutex_lock(&slots_mutex);
	n = atomic_load(&n_slots);
	atomic_store(&area_gen, 0);
	for (unsigned i = 0; i < n; i++) {
		slot_lock(&slots[i]);
		slot_reset(&slots[i], 0);
		slots[i].users = 0;
		free(slots[i].priv);
		slots[i].priv = NULL;
		slot_unlock(&slots[i]);
	}
	atomic_store(&n_slots, 0);
	if (mirror) {
		/* everything is in the files now: the mirror has nothing to tell */
		pending_remove(mirror, mirror_paths, n_mirror_paths, mirror_fd);
		for (size_t i = 0; i < n_mirror_paths; i++)
			free(mirror_paths[i]);
		free(mirror_paths);
		mirror_paths = NULL;
		n_mirror_paths = 0;
		mirror = NULL;
		mirror_fd = -1;
	} else if (area)
		munmap(area, (size_t)MAX_SLOTS * 2 * HALF_SIZE);
	area = NULL;
	pthread_mutex_unlock(&slots_mutex);
	pthread_mutex_unlock(&round_lock);
}

/* A thread ends (see stage.h). */
void stage_thread_exit(struct ct_stage_ref *ref)
{
	pthread_mutex_lock(&slots_mutex);
	if (ref->slot && ref->gen == atomic_load(&area_gen)) {
		struct slot *s = ref->slot;

		if (s->users)
			s->users--;
	}
	ref->slot = NULL;
	pthread_mutex_unlock(&slots_mutex);
}
