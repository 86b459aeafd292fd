/* SPDX-License-Identifier: MIT */
/* A client of the .NET diagnostics IPC on its Unix socket (see diag-ipc.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "cli/diag-ipc.h"
#include "common/strbuf.h"
#include "common/utf16.h"
#include "common/util.h"

#define HEADER_SIZE 20
#define MAGIC "DOTNET_IPC_V1" /* 13 characters and a NUL: 14 bytes */
#define MAX_MESSAGE 65535     /* the header's size is a uint16 */

/* The HRESULTs the runtime answers, with what they mean to a user. */
static const struct {
	uint32_t hr;
	const char *name, *meaning;
} hresults[] = {
	{ 0x8013136A, "CORPROF_E_PROFILER_ALREADY_ACTIVE", "a main profiler is already loaded in the process" },
	{ 0x80131368, "CORPROF_E_PROFILER_NOT_ATTACHABLE", "the profiler library refused to be attached" },
	{ 0x80131367, "CORPROF_E_PROFILER_DETACHING", "a profiler is being detached; try again shortly" },
	{ 0x80131375, "CORPROF_E_PROFILER_CANCEL_ACTIVATION", "the profiler chose not to profile this process" },
	{ 0x80131371, "CORPROF_E_RUNTIME_UNINITIALIZED", "the runtime is not initialized yet" },
	{ 0x8013135B, "DS_IPC_E_NOT_YET_AVAILABLE", "the runtime is not running yet" },
	{ 0x80131384, "DS_IPC_E_BAD_ENCODING", "the runtime could not parse the message" },
	{ 0x80131385, "DS_IPC_E_UNKNOWN_COMMAND", "this runtime does not know the command" },
	{ 0x80131515, "COR_E_NOTSUPPORTED", "this runtime does not support the command" },
	{ 0x80070057, "E_INVALIDARG", "the runtime rejected an argument" },
	{ 0x80004001, "E_NOTIMPL", "not implemented" },
	{ 0x80004005, "E_FAIL", "unspecified failure" },
	{ 0x80040111, "CLASS_E_CLASSNOTAVAILABLE", "the library does not serve this CLSID" },
	{ 0x8007000E, "E_OUTOFMEMORY", "the runtime ran out of memory" },
};

/* The name and meaning of an HRESULT the runtime answers; NULL if unknown. */
const char *diag_hresult_name(int32_t hr, const char **meaning)
{
	for (size_t i = 0; i < ELEMENTSOF(hresults); i++)
		if (hresults[i].hr == (uint32_t)hr) {
			if (meaning)
				*meaning = hresults[i].meaning;
			return hresults[i].name;
		}
	if (meaning)
		*meaning = NULL;
	return NULL;
}

/* Why a diag_* call failed, as words for one line. */
const char *diag_strerror(int r)
{
	switch (r) {
	case -ESRCH:
		return "no such process";
	case -ENOENT:
		return "no diagnostics socket (not a .NET process, its diagnostics are off "
		       "(DOTNET_EnableDiagnostics=0), or it is still starting)";
	case -ECONNREFUSED:
		return "its diagnostics socket is dead (nobody listens on it)";
	case -EACCES:
	case -EPERM:
		return "permission denied (run as the process's user or as root)";
	case -ETIMEDOUT:
		return "the runtime did not answer in time";
	case -EBADMSG:
		return "the runtime's answer is malformed";
	case -ECONNRESET:
	case -EPIPE:
		return "the runtime closed the connection without an answer";
	case -E2BIG:
		return "the message would exceed the diagnostics IPC's 64 KiB";
	default:
		return strerror(-r);
	}
}

/* Read a small /proc file (at most 64 KiB, NUL-terminated) into *OUT. */
static int read_small(const char *path, char **out, size_t *len)
{
	_cleanup_free_ char *buf = NULL;
	size_t n = 0, cap = 65536;
	int fd, r = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	buf = malloc(cap + 1);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	while (n < cap) {
		ssize_t k = read(fd, buf + n, cap - n);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			r = -errno;
			break;
		}
		if (k == 0)
			break;
		n += (size_t)k;
	}
	close(fd);
	if (r < 0)
		return r;
	buf[n] = 0;
	if (len)
		*len = n;
	*out = TAKE_PTR(buf);
	return 0;
}

/* The key in the socket's name: field 22 (starttime) of /proc/PID/stat. */
static int proc_start_time(pid_t pid, unsigned long long *start)
{
	_cleanup_free_ char *stat = NULL;
	char path[64], *p;
	int r;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	r = read_small(path, &stat, NULL);
	if (r < 0)
		return r == -ENOENT ? -ESRCH : r;
	/* the command name may hold ')': fields restart after the last one */
	p = strrchr(stat, ')');
	if (!p)
		return -EBADMSG;
	p++;
	for (int field = 3; field < 22; field++) {
		p = strchr(p + 1, ' ');
		if (!p)
			return -EBADMSG;
	}
	errno = 0;
	*start = strtoull(p + 1, &p, 10);
	return errno || (*p != ' ' && *p != '\n' && *p) ? -EBADMSG : 0;
}

/* The pid as the process sees it (last NSpid of /proc/PID/status). */
static pid_t proc_ns_pid(pid_t pid)
{
	_cleanup_free_ char *status = NULL;
	char path[64], *line, *last;
	long v;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if (read_small(path, &status, NULL) < 0)
		return pid;
	line = strstr(status, "\nNSpid:");
	if (!line)
		return pid;
	line += strlen("\nNSpid:");
	line[strcspn(line, "\n")] = 0;
	last = strrchr(line, '\t');
	v = strtol(last ? last + 1 : line, NULL, 10);
	return v > 0 && v <= INT_MAX ? (pid_t)v : pid;
}

/* The process's TMPDIR (malloc'd), or NULL (unset, empty or unreadable). */
static char *proc_tmpdir(pid_t pid)
{
	_cleanup_free_ char *env = NULL;
	char path[64];
	size_t len;

	snprintf(path, sizeof(path), "/proc/%d/environ", (int)pid);
	if (read_small(path, &env, &len) < 0)
		return NULL;
	for (size_t i = 0; i < len; i += strlen(env + i) + 1)
		if (startswith(env + i, "TMPDIR=") && env[i + 7])
			return strdup(env + i + 7);
	return NULL;
}

/* Is PATH a socket? */
static bool is_socket(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISSOCK(st.st_mode);
}

/* Close a FILE (cleanup attribute). */
static void fclosep(FILE **f)
{
	if (*f)
		fclose(*f);
}

/* Is a library named NAME mapped in process PID?  1, 0 or -errno. */
int diag_library_loaded(pid_t pid, const char *name)
{
	return diag_library_path(pid, name, NULL);
}

/* The path (inside the process) of the first mapping of a library NAME in
 * process PID: 1 and *PATH (malloc'd; PATH may be NULL), 0, or -errno. */
int diag_library_path(pid_t pid, const char *name, char **path)
{
	_cleanup_(fclosep) FILE *f = NULL;
	_cleanup_free_ char *line = NULL;
	size_t cap = 0, len = strlen(name);
	char maps[64];
	ssize_t n;

	snprintf(maps, sizeof(maps), "/proc/%d/maps", (int)pid);
	f = fopen(maps, "re");
	if (!f)
		return -errno;
	while ((n = getline(&line, &cap, f)) > 0) {
		const char *p;

		if (line[n - 1] == '\n')
			line[--n] = 0;
		if ((size_t)n <= len || line[n - len - 1] != '/' || strcmp(line + n - len, name) != 0)
			continue;
		p = strchr(line, '/');
		if (path && !(*path = strdup(p)))
			return -ENOMEM;
		return 1;
	}
	return ferror(f) ? -EIO : 0;
}

/* The socket of process PID, in its TMPDIR (or /tmp), seen through
 * /proc/PID/root (another mount namespace: a container), else here. */
int diag_socket_path(pid_t pid, char **path)
{
	_cleanup_free_ char *tmpdir = NULL;
	const char *dirs[3] = { 0 };
	unsigned long long start;
	char name[96];
	int r;

	r = proc_start_time(pid, &start);
	if (r < 0)
		return r;
	snprintf(name, sizeof(name), "dotnet-diagnostic-%d-%llu-socket", (int)proc_ns_pid(pid), start);
	tmpdir = proc_tmpdir(pid);
	dirs[0] = tmpdir ? tmpdir : "/tmp";
	dirs[1] = getenv("TMPDIR");
	dirs[2] = "/tmp";
	for (int root = 1; root >= 0; root--)
		for (size_t i = 0; i < ELEMENTSOF(dirs); i++) {
			_cleanup_free_ char *p = NULL;

			if (!dirs[i] || !*dirs[i])
				continue;
			if (root && asprintf(&p, "/proc/%d/root%s%s/%s", (int)pid, dirs[i][0] == '/' ? "" : "/",
					     dirs[i], name) < 0)
				return -ENOMEM;
			if (!root && asprintf(&p, "%s/%s", dirs[i], name) < 0)
				return -ENOMEM;
			if (is_socket(p)) {
				*path = TAKE_PTR(p);
				return 0;
			}
		}
	return -ENOENT;
}

/* Milliseconds left until DEADLINE (mono_ns), at least 0. */
static int ms_left(uint64_t deadline)
{
	uint64_t now = mono_ns();

	return now >= deadline ? 0 : (int)((deadline - now + 999999) / 1000000);
}

/* Wait until FD is ready for EVENTS or DEADLINE passes. */
static int wait_fd(int fd, short events, uint64_t deadline)
{
	for (;;) {
		struct pollfd p = { .fd = fd, .events = events };
		int n = poll(&p, 1, ms_left(deadline));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -ETIMEDOUT;
		return 0;
	}
}

/* Hand an fd out of a cleanup variable. */
#define TAKE_FD(fd) ({ int _fd = (fd); (fd) = -1; _fd; })

/* Close an fd (cleanup attribute). */
static void closep(int *fd)
{
	if (*fd >= 0)
		close(*fd);
}

/* A non-blocking connection to the socket at PATH (a path too long for
 * sockaddr_un goes through /proc/self/fd). */
static int connect_socket(const char *path, uint64_t deadline)
{
	_cleanup_(closep) int fd = -1, pathfd = -1;
	struct sockaddr_un sa = { .sun_family = AF_UNIX };

	if (strlen(path) < sizeof(sa.sun_path))
		memcpy(sa.sun_path, path, strlen(path) + 1);
	else {
		pathfd = open(path, O_PATH | O_CLOEXEC);
		if (pathfd < 0)
			return -errno;
		snprintf(sa.sun_path, sizeof(sa.sun_path), "/proc/self/fd/%d", pathfd);
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	/* a full backlog says EAGAIN: try again until the deadline */
	while (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN)
			return -errno;
		if (!ms_left(deadline))
			return -ETIMEDOUT;
		usleep(10000);
	}
	return TAKE_FD(fd);
}

/* Send all N bytes of BUF before DEADLINE (never raising SIGPIPE). */
static int send_all(int fd, const uint8_t *buf, size_t n, uint64_t deadline)
{
	while (n) {
		ssize_t k = send(fd, buf, n, MSG_NOSIGNAL);
		int r;

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0 && errno == EAGAIN) {
			r = wait_fd(fd, POLLOUT, deadline);
			if (r < 0)
				return r;
			continue;
		}
		if (k < 0)
			return -errno;
		buf += k;
		n -= (size_t)k;
	}
	return 0;
}

/* Receive exactly N bytes before DEADLINE; -ECONNRESET at an early end. */
static int recv_all(int fd, uint8_t *buf, size_t n, uint64_t deadline)
{
	while (n) {
		ssize_t k = recv(fd, buf, n, 0);
		int r;

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0 && errno == EAGAIN) {
			r = wait_fd(fd, POLLIN, deadline);
			if (r < 0)
				return r;
			continue;
		}
		if (k < 0)
			return -errno;
		if (k == 0)
			return -ECONNRESET;
		buf += k;
		n -= (size_t)k;
	}
	return 0;
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* One command, one reply (see diag-ipc.h). */
int diag_command(const char *path, uint8_t set, uint8_t id, const void *payload, size_t len, int timeout_ms,
		 uint8_t **reply, size_t *reply_len, int32_t *hresult)
{
	uint64_t deadline = mono_ns() + (uint64_t)(timeout_ms > 0 ? timeout_ms : 0) * 1000000u;
	_cleanup_(closep) int fd = -1;
	_cleanup_free_ uint8_t *msg = NULL, *body = NULL;
	uint8_t head[HEADER_SIZE];
	size_t size;
	int r;

	if (len > MAX_MESSAGE - HEADER_SIZE)
		return -E2BIG;
	msg = malloc(HEADER_SIZE + len);
	if (!msg)
		return -ENOMEM;
	memcpy(msg, MAGIC, sizeof(MAGIC)); /* with its NUL: 14 bytes */
	put16(msg + 14, (uint16_t)(HEADER_SIZE + len));
	msg[16] = set;
	msg[17] = id;
	put16(msg + 18, 0);
	if (len)
		memcpy(msg + HEADER_SIZE, payload, len);

	fd = connect_socket(path, deadline);
	if (fd < 0)
		return fd;
	r = send_all(fd, msg, HEADER_SIZE + len, deadline);
	if (r < 0)
		return r;
	r = recv_all(fd, head, HEADER_SIZE, deadline);
	if (r < 0)
		return r;
	size = (size_t)head[14] | (size_t)head[15] << 8;
	if (memcmp(head, MAGIC, sizeof(MAGIC)) != 0 || size < HEADER_SIZE || head[16] != DIAG_SET_SERVER)
		return -EBADMSG;
	size -= HEADER_SIZE;
	body = malloc(size + 1);
	if (!body)
		return -ENOMEM;
	r = recv_all(fd, body, size, deadline);
	if (r < 0)
		return r;
	if (head[17] == DIAG_SERVER_ERROR) {
		if (size < 4)
			return -EBADMSG;
		*hresult = (int32_t)get32(body);
		return 1;
	}
	if (head[17] != DIAG_SERVER_OK)
		return -EBADMSG;
	if (reply) {
		*reply = TAKE_PTR(body);
		*reply_len = size;
	}
	return 0;
}

/* A cursor over a reply's payload: every read is checked against what is left. */
struct cursor {
	const uint8_t *p;
	size_t left;
};

static int take(struct cursor *c, size_t n, const uint8_t **out)
{
	if (c->left < n)
		return -EBADMSG;
	*out = c->p;
	c->p += n;
	c->left -= n;
	return 0;
}

/* A string: uint32 count of UTF-16 units (with the NUL), then the units;
 * 0 is NULL.  *OUT is malloc'd UTF-8 without the NUL. */
static int take_string(struct cursor *c, char **out)
{
	_cleanup_free_ uint16_t *units = NULL;
	const uint8_t *p;
	uint32_t count;
	int r;

	*out = NULL;
	r = take(c, 4, &p);
	if (r < 0)
		return r;
	count = get32(p);
	if (count == 0)
		return 0;
	if (count > c->left / 2) /* no multiplication that could overflow */
		return -EBADMSG;
	r = take(c, (size_t)count * 2, &p);
	if (r < 0)
		return r;
	units = malloc((size_t)count * sizeof(uint16_t));
	if (!units)
		return -ENOMEM;
	for (uint32_t i = 0; i < count; i++)
		units[i] = (uint16_t)(p[2 * i] | p[2 * i + 1] << 8);
	while (count > 0 && units[count - 1] == 0)
		count--;
	*out = utf16_to_utf8(units, count);
	return *out ? 0 : -ENOMEM;
}

/* Parse a ProcessInfo (1, 2 or 3) payload into INFO. */
static int parse_process_info(const uint8_t *buf, size_t len, int level, struct diag_process_info *info)
{
	struct cursor c = { buf, len };
	const uint8_t *p;
	int r;

	info->level = level;
	if (level == 3 && (r = take(&c, 4, &p)) < 0) /* the payload's version */
		return r;
	if ((r = take(&c, 8, &p)) < 0)
		return r;
	info->pid = (uint64_t)get32(p) | (uint64_t)get32(p + 4) << 32;
	if ((r = take(&c, 16, &p)) < 0) /* the runtime instance cookie */
		return r;
	if ((r = take_string(&c, &info->command_line)) < 0 || (r = take_string(&c, &info->os)) < 0 ||
	    (r = take_string(&c, &info->arch)) < 0)
		return r;
	if (level >= 2 && ((r = take_string(&c, &info->entrypoint)) < 0 || (r = take_string(&c, &info->version)) < 0))
		return r;
	if (level >= 3 && (r = take_string(&c, &info->rid)) < 0)
		return r;
	return 0;
}

/* Free what diag_process_info filled in. */
void diag_process_info_done(struct diag_process_info *info)
{
	free(info->command_line);
	free(info->os);
	free(info->arch);
	free(info->entrypoint);
	free(info->version);
	free(info->rid);
	*info = (struct diag_process_info){ 0 };
}

/* ProcessInfo3, else 2, else 1: the newest the runtime answers. */
int diag_process_info(const char *path, int timeout_ms, struct diag_process_info *info, int32_t *hresult)
{
	static const struct {
		uint8_t id;
		int level;
	} tries[] = { { DIAG_PROCESS_INFO3, 3 }, { DIAG_PROCESS_INFO2, 2 }, { DIAG_PROCESS_INFO, 1 } };
	int r = -EINVAL;

	*info = (struct diag_process_info){ 0 };
	for (size_t i = 0; i < ELEMENTSOF(tries); i++) {
		_cleanup_free_ uint8_t *reply = NULL;
		size_t len = 0;

		r = diag_command(path, DIAG_SET_PROCESS, tries[i].id, NULL, 0, timeout_ms, &reply, &len, hresult);
		if (r == 1)
			continue; /* an older runtime: unknown command */
		if (r < 0)
			return r;
		r = parse_process_info(reply, len, tries[i].level, info);
		if (r < 0)
			diag_process_info_done(info);
		return r;
	}
	return r;
}

/* Append S (UTF-8) as a diagnostics IPC string: count, UTF-16LE units, NUL. */
static int put_string(struct strbuf *b, const char *s)
{
	size_t start = b->len, units = 0;
	uint8_t u[4];

	strbuf_add(b, "\0\0\0\0", 4); /* the count, filled in below */
	for (const unsigned char *p = (const unsigned char *)s;; p++) {
		uint32_t cp = *p;
		int more = 0;

		if (cp >= 0x80) {
			if ((cp & 0xE0) == 0xC0)
				cp &= 0x1F, more = 1;
			else if ((cp & 0xF0) == 0xE0)
				cp &= 0x0F, more = 2;
			else if ((cp & 0xF8) == 0xF0)
				cp &= 0x07, more = 3;
			else
				return -EILSEQ;
			for (; more; more--) {
				if ((*++p & 0xC0) != 0x80)
					return -EILSEQ;
				cp = cp << 6 | (*p & 0x3F);
			}
		}
		if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
			return -EILSEQ;
		if (cp >= 0x10000) {
			cp -= 0x10000;
			put16(u, (uint16_t)(0xD800 | cp >> 10));
			put16(u + 2, (uint16_t)(0xDC00 | (cp & 0x3FF)));
			strbuf_add(b, (const char *)u, 4);
			units += 2;
		} else {
			put16(u, (uint16_t)cp);
			strbuf_add(b, (const char *)u, 2);
			units++;
		}
		if (!*p)
			break;
	}
	if (b->oom)
		return -ENOMEM;
	if (units > UINT32_MAX)
		return -E2BIG;
	put32((uint8_t *)b->s + start, (uint32_t)units);
	return 0;
}

/* AttachProfiler: timeout, CLSID, library path, client data. */
int diag_attach_profiler(const char *path, const uint8_t clsid[16], const char *library, const void *client_data,
			 size_t client_len, uint32_t attach_timeout_ms, int timeout_ms, int32_t *hresult)
{
	struct strbuf b = { 0 };
	uint8_t u[4];
	int r;

	if (client_len > MAX_MESSAGE)
		return -E2BIG;
	put32(u, attach_timeout_ms);
	strbuf_add(&b, (const char *)u, 4);
	strbuf_add(&b, (const char *)clsid, 16);
	r = put_string(&b, library);
	if (r < 0)
		goto out;
	put32(u, (uint32_t)client_len);
	strbuf_add(&b, (const char *)u, 4);
	if (client_len)
		strbuf_add(&b, client_data, client_len);
	if (b.oom) {
		r = -ENOMEM;
		goto out;
	}
	r = diag_command(path, DIAG_SET_PROFILER, DIAG_PROFILER_ATTACH, b.s, b.len, timeout_ms, NULL, NULL, hresult);
out:
	strbuf_free(&b);
	return r;
}

/* One hex digit's value, or -1. */
static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* "{XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX}" → a GUID's 16 bytes in memory:
 * Data1, Data2 and Data3 little-endian, Data4 as written. */
int diag_parse_guid(const char *s, uint8_t guid[16])
{
	/* where each byte's two digits start, in the order of memory */
	static const uint8_t at[16] = { 7, 5, 3, 1, 12, 10, 17, 15, 20, 22, 25, 27, 29, 31, 33, 35 };

	if (strlen(s) != 38 || s[0] != '{' || s[9] != '-' || s[14] != '-' || s[19] != '-' || s[24] != '-' ||
	    s[37] != '}')
		return -EINVAL;
	for (int i = 0; i < 16; i++) {
		int hi = hexval(s[at[i]]), lo = hexval(s[at[i] + 1]);

		if (hi < 0 || lo < 0)
			return -EINVAL;
		guid[i] = (uint8_t)(hi << 4 | lo);
	}
	return 0;
}
