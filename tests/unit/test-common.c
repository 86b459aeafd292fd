/* SPDX-License-Identifier: MIT */
/* Unit tests of the shared helpers of src/common: the id map, the UTF-16
 * name buffer, the string tables, SHA-256, the digit writer and the
 * making of FILE.<pid>.pending.  No runtime needed. */
#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/digits.h"
#include "common/pending.h"
#include "common/record-head.h"
#include "common/sha256.h"
#include "common/strtable.h"
#include "common/u64map.h"
#include "common/utf16.h"
#include "common/vocabulary.h"
#include "dead-writer.h"
#include "unit.h"
#include "common/util.h"

/* Many keys in, some out, the rest still found; UINT64_MAX refused. */
static void test_u64map(void)
{
	struct u64map m = { 0 };
	size_t n = 0, bad = 0;

	for (uint64_t k = 0; k < 5000; k++) {
		void **slot = u64map_slot(&m, k * 16);

		if (!slot || *slot)
			bad++;
		else
			*slot = (void *)(uintptr_t)(k + 1);
	}
	CHECK(bad == 0 && m.n == 5000, "5000 new keys get empty slots (%zu bad, n %zu)", bad, m.n);
	for (uint64_t k = 0; k < 5000; k += 2)
		if (u64map_del(&m, k * 16) != (void *)(uintptr_t)(k + 1))
			bad++;
	CHECK(bad == 0 && m.n == 2500, "deleting every other key returns its value (%zu bad, n %zu)", bad, m.n);
	for (uint64_t k = 0; k < 5000; k++)
		if (u64map_get(&m, k * 16) != (k % 2 ? (void *)(uintptr_t)(k + 1) : NULL))
			bad++;
	CHECK(bad == 0, "after the deletions every key finds its value or none (%zu wrong)", bad);
	u64map_foreach(&m, i)
		n++;
	CHECK(n == 2500, "foreach visits the %zu live keys", n);
	CHECK(!u64map_slot(&m, UINT64_MAX) && !u64map_get(&m, UINT64_MAX) && !u64map_del(&m, UINT64_MAX) &&
	      m.n == 2500, "UINT64_MAX (the empty mark) is never a key");
	u64map_done(&m, NULL);
	CHECK(!m.cap && !m.keys && !u64map_get(&m, 16), "a freed map is empty");
}

/* A fake runtime method: writes at most CAP units of NAME and says how
 * many the whole name needs; "too small" as the runtime says it. */
static int fake_method(const char *name, uint32_t cap, uint32_t *len, char16_t *v)
{
	size_t n = strlen(name);

	*len = (uint32_t)n + 1;
	for (size_t i = 0; i < n && i + 1 < cap; i++)
		v[i] = (char16_t)name[i];
	if (cap)
		v[n + 1 < cap ? n : cap - 1] = 0;
	return n + 1 > cap ? -1 : 0;
}

/* The call-site pattern of utf16.h around fake_method. */
static char *fake_name(const char *name)
{
	_cleanup_(utf16_name_done) struct utf16_name b = UTF16_NAME_INIT(b);
	int hr;

	do
		hr = fake_method(name, b.cap, &b.len, b.v);
	while (utf16_name_retry(&b, true));
	return utf16_name_to_utf8(&b, hr == 0);
}

static void test_utf16_name(void)
{
	_cleanup_free_ char *shorty = fake_name("System.Exception");
	_cleanup_free_ char *big = malloc(3001), *empty = NULL, *got = NULL, *huge = NULL;
	struct utf16_name b = UTF16_NAME_INIT(b);

	CHECK(shorty && strcmp(shorty, "System.Exception") == 0, "a short name fits the stack buffer: %s",
	      shorty ? shorty : "(null)");
	memset(big, 'x', 3000);
	big[3000] = 0;
	got = fake_name(big);
	CHECK(got && strcmp(got, big) == 0, "a 3000-unit name is asked for again and comes out whole (%zu bytes)",
	      got ? strlen(got) : 0);
	for (size_t i = 0; i < UTF16_NAME_INLINE; i++)
		b.inline_v[i] = u'y';
	b.len = UTF16_NAME_MAX + 2;
	CHECK(!utf16_name_retry(&b, true), "a name over %u units is not asked for again", UTF16_NAME_MAX);
	b.len = UTF16_NAME_INLINE + 10;
	huge = utf16_name_to_utf8(&b, true);
	CHECK(huge && strlen(huge) == UTF16_NAME_INLINE - 1, "a name that stays cut keeps what fit (%zu units)",
	      huge ? strlen(huge) : 0);
	CHECK(!utf16_name_retry(&b, false), "no second call when the first did not say the length");
	b.len = 0;
	empty = utf16_name_to_utf8(&b, true);
	CHECK(!empty && !utf16_name_to_utf8(&b, false), "no name from an empty answer or a failed call");
}

enum fruit { APPLE, PEAR, _FRUIT_MAX, _FRUIT_INVALID = -1 };
static const char *const fruit_table[_FRUIT_MAX] = { [APPLE] = "apple", [PEAR] = "pear" };
/* cppcheck-suppress arrayIndexOutOfBounds -- fruit_to_string() checks the
 * index against the table's size first (strtable.h); cppcheck misses it */
DEFINE_PRIVATE_STRING_TABLE_LOOKUP(fruit, enum fruit, _FRUIT_INVALID)

static void test_strtable(void)
{
	CHECK(fruit_from_string("pear") == PEAR && fruit_from_string("plum") == _FRUIT_INVALID &&
	      fruit_from_string(NULL) == _FRUIT_INVALID, "from_string finds names, not others or NULL");
	CHECK(strcmp(fruit_to_string(APPLE), "apple") == 0 && !fruit_to_string(_FRUIT_MAX) &&
	      !fruit_to_string(_FRUIT_INVALID), "to_string names the values, NULL out of range");
	for (int i = 0; i < _EV_MAX; i++)
		if (ct_event_from_string(ct_events[i].name) != (enum ct_event)i)
			CHECK(false, "event %s round-trips", ct_events[i].name);
	CHECK(ct_event_from_string("no.such") == _EV_INVALID && ct_category_from_string("gc") == CAT_GC &&
	      ct_phase_from_string("end") == PH_END && strcmp(ct_phase_to_string(PH_BEGIN), "begin") == 0,
	      "the vocabulary's names round-trip through its tables");
}

/* digits_u64 against printf, at every power of ten and its neighbours and
 * at random values. */
static void test_digits(void)
{
	uint64_t seed = 88172645463325252u;
	unsigned bad = 0, n = 0;

	for (int k = 0; k < 20000; k++, n++) {
		uint64_t v, p = 1;
		char want[32], buf[24];

		if (k < 60) { /* 10^i - 1, 10^i, 10^i + 1 */
			for (int i = 0; i < k / 3; i++)
				p *= 10;
			v = p + (uint64_t)(k % 3) - 1;
		} else {
			seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
			v = seed >> (seed % 60);
		}
		if (k == 59)
			v = UINT64_MAX;
		snprintf(want, sizeof(want), "%" PRIu64, v);
		size_t len = digits_u64(buf + sizeof(buf), v);
		bad += len != strlen(want) || memcmp(buf + sizeof(buf) - len, want, len) != 0;
	}
	CHECK(bad == 0, "digits_u64 writes what printf writes (%u of %u differ)", bad, n);
}

/* The hex of HASH. */
static const char *hex(const uint8_t hash[SHA256_SIZE])
{
	static char s[2 * SHA256_SIZE + 1];

	for (int i = 0; i < SHA256_SIZE; i++)
		snprintf(s + 2 * i, 3, "%02x", hash[i]);
	return s;
}

/* The test vectors of FIPS 180-4's examples (and NIST's long message), in
 * one call and fed in uneven pieces across block boundaries. */
static void test_sha256(void)
{
	static const struct {
		const char *in, *want;
	} v[] = {
		{ "", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" },
		{ "abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" },
		{ "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
		  "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1" },
		{ "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
		  "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1" },
	};
	struct sha256 c;
	uint8_t h[SHA256_SIZE];
	char *million;

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		size_t n = strlen(v[i].in), at = 0, step = 1;

		sha256(v[i].in, n, h);
		CHECK(strcmp(hex(h), v[i].want) == 0, "SHA-256 of %zu bytes: %s", n, hex(h));
		sha256_init(&c);
		while (at < n) {
			size_t take = step < n - at ? step : n - at;

			sha256_update(&c, v[i].in + at, take);
			at += take, step = step * 3 + 1;
		}
		sha256_final(&c, h);
		CHECK(strcmp(hex(h), v[i].want) == 0, "SHA-256 of %zu bytes in pieces", n);
	}
	million = malloc(1000000);
	if (!million)
		abort();
	memset(million, 'a', 1000000);
	sha256(million, 1000000, h);
	CHECK(strcmp(hex(h), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0") == 0,
	      "SHA-256 of a million 'a': %s", hex(h));
	free(million);
}

/* Names in directory DIR other than . and .. */
static int dir_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d)))
		n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
	if (d)
		closedir(d);
	return n;
}

/* The mirror appears whole under its final name only (made unnamed, or
 * under a temporary name where it cannot be), as the trace file's mode
 * goes with the umask, locked, its room written as it is reserved, and
 * every name goes at removal. */
static void test_pending_create(void)
{
	char dir[] = "/tmp/test-pending.XXXXXX", trace[64], *names[2] = { NULL, NULL }, *mp = NULL;
	struct pending_header *h = NULL;
	struct stat st;
	mode_t old;
	int tfd, fd = -1, other;

	if (!mkdtemp(dir)) {
		CHECK(0, "mkdtemp");
		return;
	}
	snprintf(trace, sizeof(trace), "%s/t.jsonl", dir);
	tfd = open(trace, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	old = umask(027);
	CHECK(tfd >= 0 && pending_create(trace, tfd, 65536, 4, NULL, &h, &mp, &fd) == 0, "pending_create makes a mirror");
	umask(old);
	if (!h)
		return;
	CHECK(stat(mp, &st) == 0 && (st.st_mode & 0777) == 0640 && st.st_size == PENDING_DATA_OFFSET,
	      "FILE.<pid>.pending: mode 0644 minus the umask, the header page only (mode %o, %lld bytes)",
	      (unsigned)(st.st_mode & 0777), (long long)st.st_size);
	CHECK(memcmp(h->magic, PENDING_MAGIC, 8) == 0 && h->pid == getpid() && h->n_bufs == 4 &&
		      h->buf_size == 65536 && h->locked == 1,
	      "its header: magic, pid, buffers, locked");
	CHECK(dir_entries(dir) == 2, "no temporary name left beside it (%d names)", dir_entries(dir));
	other = open(mp, O_RDONLY | O_CLOEXEC);
	CHECK(other >= 0 && flock(other, LOCK_EX | LOCK_NB) < 0, "a merge finds it locked");
	if (other >= 0)
		close(other);
	CHECK(pending_reserve(h, fd, 3, 0, 16384) == 0 && fstat(fd, &st) == 0 &&
		      st.st_size == PENDING_DATA_OFFSET + 3 * 65536 + 16384,
	      "reserving the start of buffer 3 writes its room (%lld bytes)", (long long)st.st_size);
	CHECK(pending_reserve(h, fd, 3, 16384, 65536) == 0 && fstat(fd, &st) == 0 &&
		      st.st_size == PENDING_DATA_OFFSET + 4 * 65536,
	      "and the rest of it (%lld bytes)", (long long)st.st_size);
	memset(pending_data(h, 3), 'x', 65536); /* reserved: no SIGBUS */
	CHECK(pending_reserve(h, fd, 4, 0, 1) == -EINVAL && pending_reserve(h, fd, 0, 0, 65537) == -EINVAL,
	      "no room past a buffer or the last buffer is reserved");
	names[0] = mp;
	pending_remove(h, names, 1, fd);
	CHECK(dir_entries(dir) == 1, "removed: only the trace is left");
	free(mp);
	close(tfd);
	unlink(trace);
	rmdir(dir);
}

/* A process that died between numbering a record and copying it leaves a
 * gap: the merge appends what the mirror holds and then a trace.dropped
 * record that counts the gap, so the trace stays gap-free or explained.
 * The mirror holds SEQS, the trace WRITTEN (1..WRITTEN) and then another
 * process' line; the merge appends APPENDED records, and trace.dropped
 * with DROP_SEQ counts LOST (0: no trace.dropped). */
static void pending_gap(const uint64_t *seqs, uint64_t written, int appended, uint64_t drop_seq, int lost)
{
	/* a path with a quote and a non-ASCII letter: "where" must stay JSON */
	char dir[] = "/tmp/test-pending-gap-\xc3\xa9\"q.XXXXXX", trace[64], line[256], want[64], where[96];
	char *text = NULL, *last = NULL;
	size_t cap = 0;
	FILE *f;
	int pid, tfd, n, k = 0;

	if (!mkdtemp(dir)) {
		CHECK(0, "mkdtemp");
		return;
	}
	snprintf(trace, sizeof(trace), "%s/t.jsonl", dir);
	tfd = open(trace, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (tfd >= 0)
		close(tfd);
	pid = dead_writer(trace, seqs);
	CHECK(pid > 0, "a writer made its mirror and died");
	f = fopen(trace, "a");
	for (uint64_t s = 1; f && s <= written; s++) {
		rec_line(line, sizeof(line), s, pid);
		fprintf(f, "%s\n", line);
	}
	if (f) {
		rec_line(line, sizeof(line), 40, pid + 1);
		fprintf(f, "%s\n", line);
		fclose(f);
	}
	n = pending_recover(trace, NULL, NULL, NULL);
	CHECK(n == appended + (lost > 0), "%d records the trace lacked are appended%s (%d)", appended,
	      lost ? ", and trace.dropped" : "", n);
	f = fopen(trace, "r");
	while (f && getline(&text, &cap, f) > 0) {
		k++;
		free(last);
		last = strdup(text);
	}
	if (f)
		fclose(f);
	CHECK(k == (int)written + 1 + appended + (lost > 0), "written, another's, appended%s (%d lines)",
	      lost ? ", trace.dropped" : "", k);
	snprintf(want, sizeof(want), "\"seq\":%" PRIu64 ",", drop_seq);
	if (lost) {
		char count[32];

		snprintf(count, sizeof(count), "\"count\":%d,", lost);
		CHECK(last && strstr(last, "\"event\":\"trace.dropped\"") && strstr(last, want) && strstr(last, count),
		      "last, trace.dropped with %s counts %d records never written: %s", want, lost, last ? last : "");
		snprintf(where, sizeof(where), "\"where\":\"/tmp/test-pending-gap-\xc3\xa9\\\"q.%s/t.jsonl\",",
			 dir + strlen(dir) - 6);
		CHECK(last && strstr(last, where), "its where is the trace's path as a JSON string: %s", where);
	} else
		CHECK(last && !strstr(last, "trace.dropped"), "no trace.dropped when nothing is missing");
	free(text);
	free(last);
	unlink(trace);
	rmdir(dir);
}

static void test_pending_gap(void)
{
	/* gaps among the appended ones: 4, 7 and 8 */
	pending_gap((const uint64_t[]){ 2, 3, 5, 6, 9, 0 }, 2, 4, 10, 3);
	/* a gap after the last written, found behind another process' line: 4 */
	pending_gap((const uint64_t[]){ 5, 6, 0 }, 3, 2, 7, 1);
	/* none */
	pending_gap((const uint64_t[]){ 3, 4, 0 }, 2, 2, 0, 0);
	/* none either: 3 and 5 were written and their halves reused, so the
	 * mirror's records the trace has are not all of them */
	pending_gap((const uint64_t[]){ 2, 4, 6, 7, 0 }, 5, 2, 0, 0);
}

/* The head of a record as the one writer makes it, numbered or left for
 * the sinks (no parent: the key is left out), and its event read back even past a thread name that spells
 * another (escaped, as it must be). */
static void test_record_head(void)
{
	struct strbuf ids = { 0 }, b = { 0 };
	struct ct_ts_cache cache = { 0 };
	struct ct_record_head h = {
		.seq = 42, .ts = 1795000000123456789u, .ev = EV_EXCEPTION_THROW, .ph = PH_END, .span = 7, .depth = 2,
	};
	static const char want[] = "{\"v\":1,\"seq\":42,\"ts\":1795000000123456789,\"pid\":10,\"tid\":11,"
				   "\"thread\":\"0xab\",\"managed_tid\":3,\"thread_name\":\"w\\\",\\\"event\\\":\\\"x\","
				   "\"event\":\"exception.throw\",\"phase\":\"end\",\"span\":7,\"depth\":2";

	ct_record_ids(&ids, 10, 11, 0xab, 3, "w\",\"event\":\"x");
	h.ids = ids.s;
	h.ids_len = ids.len;
	ct_record_head(&b, &h);
	CHECK(!b.oom && strcmp(b.s, want) == 0, "the head is %s (got %s)", want, b.s);
	CHECK(ct_record_event(b.s, b.len) == EV_EXCEPTION_THROW, "its event read back past the thread name");
	strbuf_reset(&b);
	h.unnumbered = true;
	h.ts_cache = &cache;
	ct_record_head(&b, &h);
	ct_record_head(&b, &h); /* the second from the cache */
	size_t numbered = strlen(CT_RECORD_HEAD "42"), rest = sizeof(want) - 1 - numbered;

	CHECK(!b.oom && b.len == 2 * (CT_SEQ_ROOM + rest) && strspn(b.s, " ") == CT_SEQ_ROOM &&
		      memcmp(b.s + CT_SEQ_ROOM, want + numbered, rest) == 0 &&
		      memcmp(b.s + 2 * CT_SEQ_ROOM + rest, want + numbered, rest) == 0,
	      "an unnumbered head keeps CT_SEQ_ROOM blanks for the seq, the same with the ts cache (%zu: %s)", b.len, b.s);
	/* an instant at depth 0: phase and depth at their defaults, left out */
	strbuf_reset(&b);
	h = (struct ct_record_head){ .seq = 1, .ts = 1795000000123456789u, .ev = EV_EXCEPTION_THROW, .ph = PH_INSTANT,
				     .ids = ids.s, .ids_len = ids.len };
	ct_record_head(&b, &h);
	CHECK(!b.oom && strcmp(b.s + b.len - strlen("\"event\":\"exception.throw\""), "\"event\":\"exception.throw\"") == 0,
	      "an instant at depth 0 ends with its event (got %s)", b.s);
	CHECK(ct_record_event("{\"v\":1}", 7) == _EV_INVALID, "no event: none");
	strbuf_free(&ids);
	strbuf_free(&b);
}

int main(void)
{
	test_digits();
	test_u64map();
	test_utf16_name();
	test_strtable();
	test_sha256();
	test_pending_create();
	test_pending_gap();
	test_record_head();
	return failures ? 1 : 0;
}
