/* SPDX-License-Identifier: MIT */
/*
 * Category startup: what `clrtrace startup` needs and nothing more.
 *
 *   startup.jit     one record per JIT compile, at its end, with its time:
 *                   half the records of the jit.compile spans, and the
 *                   dynamic methods and IL stubs those leave out;
 *   startup.module  each module's ReadyToRun status, read from its image
 *                   where the runtime mapped it;
 *   startup.config  the runtime settings in the environment and in the
 *                   program's runtimeconfig.json, and when `run` exec'd it;
 *   startup.ready   when the program was ready: its line on stdout (run
 *                   --ready), or the first of an ASP.NET Core server
 *                   listening and a first request served, from Hosting's
 *                   EventSource (aspnet.c's session, from the load of
 *                   Microsoft.AspNetCore.Hosting until that first).
 *
 * The profiling API says nothing of a compile's tier; a function compiled
 * again (the same FunctionID) is counted as a recompile (tier-up), and
 * the CLI tells the tiering worker's compiles by its thread.
 */
#include <errno.h>
#include <jansson.h>
#include <stdatomic.h>
#include <inttypes.h>
#include <stdio.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/u64map.h"
#include "profiler/abi/info.h"
#include "profiler/core/module-md.h"
#include "profiler/core/tracer.h"
#include "profiler/families/aspnet.h"
#include "profiler/families/startup.h"
#include "profiler/families/startup-tier.h"

extern char **environ;

/* The category's own cost: the time spent in its JIT and module handlers
 * (two monotonic clock reads each) and the records they wrote, said at
 * the end in startup.cost. */
static atomic_uint_fast64_t own_ns, own_jit, own_modules;

/* FunctionIDs compiled so far, with their count of compiles. */
static struct u64map compiled;
static pthread_mutex_t compiled_lock = PTHREAD_MUTEX_INITIALIZER;

/* The how-manieth compile of FN this is (1: its first; 0: out of memory). */
static unsigned nth_compile(FunctionID fn)
{
	uintptr_t n = 0;
	void **slot;

	pthread_mutex_lock(&compiled_lock);
	slot = u64map_slot(&compiled, fn);
	if (slot) {
		n = (uintptr_t)*slot + 1;
		*slot = (void *)n;
	}
	pthread_mutex_unlock(&compiled_lock);
	return (unsigned)n;
}

void ct_startup_jit_begin(struct ct_thread *t, FunctionID fn)
{
	if (!ct_wants(EV_STARTUP_JIT))
		return;
	if (t->n_jit_open < CT_JIT_OPEN_MAX)
		t->jit_open[t->n_jit_open] = (struct ct_jit_open){ fn, ct_mono(t) };
	t->n_jit_open++; /* past the array: counted, so that the ends pair up */
}

void ct_startup_jit_end(struct ct_thread *t, FunctionID fn, HRESULT hr, bool dynamic)
{
	uint64_t begin = 0, now, t0;
	unsigned n;

	if (!ct_wants(EV_STARTUP_JIT) || t->n_jit_open == 0)
		return;
	t0 = mono_ns();
	n = --t->n_jit_open;
	if (n < CT_JIT_OPEN_MAX && t->jit_open[n].fn == fn)
		begin = t->jit_open[n].mono;
	now = ct_mono(t);
	ClassID cls = 0;
	ModuleID mod = 0;
	mdToken tok = 0;
	char modid[24];

	/* the module by id: startup.module names it once */
	if (dynamic || FAILED(info_GetFunctionInfo(ct.info, fn, &cls, &mod, &tok)))
		mod = 0;
	snprintf(modid, sizeof(modid), "0x%" PRIx64, (uint64_t)mod);
	const char *tier = ct_startup_tier_take(t, fn);
	JW_FIELDS(f, 7);

	jwf_str(&f, "function", ct_function_name(fn));
	if (mod)
		jwf_str(&f, "module", modid);
	else
		jwf_null(&f, "module");
	if (begin)
		jwf_int(&f, "dur_ns", now > begin ? (int64_t)(now - begin) : 0);
	else
		jwf_null(&f, "dur_ns");
	jwf_int(&f, "nth", nth_compile(fn));
	jwf_bool(&f, "dynamic", dynamic);
	if (tier)
		jwf_str(&f, "tier", tier);
	if (FAILED(hr))
		jwf_hr(&f, "hr", (uint32_t)hr);
	ct_emit(t, EV_STARTUP_JIT, PH_INSTANT, 0, &f);
	atomic_fetch_add(&own_jit, 1);
	atomic_fetch_add(&own_ns, mono_ns() - t0);
}

/* Listening for ASP.NET Core's ready (Hosting's session joined); the
 * first ready seen (only it counts). */
static atomic_bool hosting_listens, hosting_ready;

/* Microsoft.AspNetCore.Hosting (the module at PATH) is loaded: listen to
 * its EventSource, which can exist from now on, until the first ready.
 * Until then no session: a program that is no ASP.NET Core one pays
 * nothing. */
static void hosting_loaded(const char *path)
{
	static const char name[] = "/Microsoft.AspNetCore.Hosting.dll";
	size_t l = path ? strlen(path) : 0;
	uint64_t t0;

	if (l < sizeof(name) - 1 || strcmp(path + l - (sizeof(name) - 1), name) != 0 ||
	    !ct_wants(EV_STARTUP_READY) || atomic_exchange(&hosting_listens, true))
		return;
	t0 = mono_ns();
	if (ct_aspnet_start(ASPNET_FOR_STARTUP, NULL, 0) < 0)
		atomic_store(&hosting_listens, false);
	atomic_fetch_add(&own_ns, mono_ns() - t0);
}

void ct_startup_hosting(struct ct_thread *t, unsigned id)
{
	const char *how = id == ASPNET_SERVER_READY ? "server" : id == ASPNET_REQUEST_STOP ? "request" : NULL;
	uint64_t t0;

	if (!how || !atomic_load_explicit(&hosting_listens, memory_order_relaxed) ||
	    atomic_load_explicit(&hosting_ready, memory_order_relaxed) || atomic_exchange(&hosting_ready, true))
		return;
	t0 = mono_ns();
	JW_FIELDS(f, 2);

	jwf_int(&f, "ready_ns", (int64_t)ct_now(t)); /* the record's own ts */
	jwf_str(&f, "how", how);
	ct_emit(t, EV_STARTUP_READY, PH_INSTANT, 0, &f);
	ct_aspnet_release(ASPNET_FOR_STARTUP);
	atomic_fetch_add(&own_ns, mono_ns() - t0);
}

void ct_startup_module(struct ct_thread *t, ModuleID m, HRESULT hr)
{
	unsigned major = 0;
	uint64_t t0;
	int k;

	if (SUCCEEDED(hr) && ct_on(CAT_STARTUP))
		hosting_loaded(ct_module_path(m));
	if (!ct_wants(EV_STARTUP_MODULE))
		return;
	t0 = mono_ns();
	k = SUCCEEDED(hr) ? ct_module_ready_to_run(m, &major) : -EIO;
	JW_FIELDS(mod, 2);
	JW_FIELDS(f, 4);

	jwf_hex(&mod, "id", m);
	if (SUCCEEDED(hr))
		jwf_str(&mod, "path", ct_module_path(m));
	jwf_obj(&f, "module", &mod);
	if (k >= 0)
		jwf_bool(&f, "ready_to_run", k > 0);
	else
		jwf_null(&f, "ready_to_run");
	if (k > 0)
		jwf_int(&f, "r2r_major", major);
	else
		jwf_null(&f, "r2r_major");
	jwf_hr(&f, "hr", (uint32_t)hr);
	ct_emit(t, EV_STARTUP_MODULE, PH_INSTANT, 0, &f);
	atomic_fetch_add(&own_modules, 1);
	atomic_fetch_add(&own_ns, mono_ns() - t0);
}

/* The runtime's own variables in the environment: DOTNET_*, COMPlus_*,
 * CORECLR_* (profilers), by name, as an object's members into W. */
static void runtime_environment(struct jw *w)
{
	static const char *const prefixes[] = { "DOTNET_", "COMPlus_", "CORECLR_" };

	for (char **e = environ; e && *e; e++) {
		const char *eq = strchr(*e, '=');

		if (!eq)
			continue;
		for (size_t i = 0; i < ELEMENTSOF(prefixes); i++)
			if (strncmp(*e, prefixes[i], strlen(prefixes[i])) == 0) {
				_cleanup_free_ char *name = strndup(*e, (size_t)(eq - *e));

				if (name) {
					jw_item(w, "{}");
					jw_str(w, name);
					jw_raw(w, ":", 1);
					jw_str(w, eq + 1);
				}
				break;
			}
	}
}

/* The runtimeconfig.json next to the program: NAME.runtimeconfig.json
 * beside the first argument ending in .dll (dotnet NAME.dll), or beside
 * the executable (an apphost).  Malloc'd path, or NULL. */
static char *runtimeconfig_path(void)
{
	char exe[4096], *path = NULL;
	int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
	char buf[8192];
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;

	if (fd >= 0)
		close(fd);
	if (n > 0) {
		buf[n] = '\0';
		for (const char *p = buf; p < buf + n; p += strlen(p) + 1) {
			size_t l = strlen(p);

			if (l > 4 && strcmp(p + l - 4, ".dll") == 0) {
				if (asprintf(&path, "%.*s.runtimeconfig.json", (int)(l - 4), p) < 0)
					path = NULL;
				return path;
			}
		}
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return NULL;
	exe[n] = '\0';
	if (asprintf(&path, "%s.runtimeconfig.json", exe) < 0)
		path = NULL;
	return path;
}

/* {path, properties} of the program's runtimeconfig.json (its
 * runtimeOptions.configProperties) into W, or null.  Read once at start
 * with jansson, which the profiler links for the journal sink; the
 * properties are copied as the file has them. */
static void runtimeconfig(struct jw *w)
{
	_cleanup_free_ char *path = runtimeconfig_path();
	json_t *doc, *props;
	struct stat st;
	char *text;
	int fd;

	if (!path) {
		jw_raw(w, "null", 4);
		return;
	}
	if (path[0] != '/') { /* relative to the working directory: say where */
		char *abs = realpath(path, NULL);

		if (abs) {
			free(path);
			path = abs;
		}
	}
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		jw_raw(w, "null", 4);
		return;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size > (1 << 20)) {
		close(fd);
		jw_raw(w, "null", 4);
		return;
	}
	doc = json_loadfd(fd, 0, NULL);
	close(fd);
	props = doc ? json_object_get(json_object_get(doc, "runtimeOptions"), "configProperties") : NULL;
	text = json_is_object(props) ? json_dumps(props, JSON_COMPACT) : NULL;
	jw_raw(w, "{\"path\":", 8);
	jw_str(w, path);
	jw_raw(w, ",\"properties\":", 14);
	if (text)
		jw_raw(w, text, strlen(text));
	else
		jw_raw(w, "null", 4);
	jw_raw(w, "}", 1);
	free(text);
	json_decref(doc);
}

/* The read end of run's ready pipe (CLRTRACE_READY_FD), or -1. */
static int ready_fd = -1;

/* The fd in CLRTRACE_READY_FD, kept from the program's own children. */
static void ready_open(void)
{
	const char *v = secure_getenv("CLRTRACE_READY_FD");
	char *end = NULL;
	long fd;

	if (!v)
		return;
	errno = 0;
	fd = strtol(v, &end, 10);
	if (errno || end == v || *end || fd < 3 || fd > 65535 || fcntl((int)fd, F_SETFD, FD_CLOEXEC) < 0)
		return;
	ready_fd = (int)fd;
}

/* startup.ready, when run saw the ready line (read at the end: only run
 * knew it, and told the pipe). */
static void startup_ready(struct ct_thread *t)
{
	char buf[64];
	ssize_t n;
	char *end = NULL;
	unsigned long long x;
	int fl;

	if (ready_fd < 0 || !ct_wants(EV_STARTUP_READY))
		return;
	fl = fcntl(ready_fd, F_GETFL);
	if (fl < 0 || fcntl(ready_fd, F_SETFL, fl | O_NONBLOCK) < 0)
		return;
	do
		n = read(ready_fd, buf, sizeof(buf) - 1);
	while (n < 0 && errno == EINTR);
	close(ready_fd);
	ready_fd = -1;
	if (n <= 0)
		return; /* no line matched */
	buf[n] = '\0';
	errno = 0;
	x = strtoull(buf, &end, 10);
	if (errno || end == buf || *end != '\n' || x == 0 || x > INT64_MAX)
		return;
	JW_FIELDS(f, 2);

	jwf_int(&f, "ready_ns", (int64_t)x);
	jwf_str(&f, "how", "stdout");
	ct_emit(t, EV_STARTUP_READY, PH_INSTANT, 0, &f);
}

void ct_startup_config(struct ct_thread *t)
{
	const char *exec = secure_getenv("CLRTRACE_EXEC_NS");
	char *end = NULL;
	unsigned long long x = 0;

	if (!ct_wants(EV_STARTUP_CONFIG))
		return;
	ready_open();
	if (exec) {
		errno = 0;
		x = strtoull(exec, &end, 10);
		if (errno || end == exec || *end || x > INT64_MAX)
			x = 0;
	}
	struct jw env = { 0 }, rc = { 0 };
	JW_FIELDS(f, 3);

	runtime_environment(&env);
	runtimeconfig(&rc);
	if (x)
		jwf_int(&f, "exec_ns", (int64_t)x);
	else
		jwf_null(&f, "exec_ns");
	jwf_collection(&f, "environment", &env, "{}");
	jwf_raw(&f, "runtimeconfig", rc.b.s, rc.b.len);
	ct_emit(t, EV_STARTUP_CONFIG, PH_INSTANT, 0, &f);
	jw_free(&env);
	jw_free(&rc);
}

void ct_startup_end(struct ct_thread *t)
{
	startup_ready(t);
	if (ct_wants(EV_STARTUP_COST)) {
		uint64_t tier_events, tiers_matched;
		JW_FIELDS(f, 5);

		jwf_int(&f, "own_ns", (int64_t)atomic_load(&own_ns));
		jwf_int(&f, "jit_records", (int64_t)atomic_load(&own_jit));
		jwf_int(&f, "module_records", (int64_t)atomic_load(&own_modules));
		if (ct_on(CAT_TIERS)) {
			ct_startup_tier_totals(&tier_events, &tiers_matched);
			jwf_int(&f, "tier_events", (int64_t)tier_events);
			jwf_int(&f, "tiers_matched", (int64_t)tiers_matched);
		}
		ct_emit(t, EV_STARTUP_COST, PH_INSTANT, 0, &f);
	}
}
