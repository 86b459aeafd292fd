/* SPDX-License-Identifier: MIT */
/*
 * The managed stack at a throw (category stacks).  One DoStackSnapshot of
 * the throwing thread collects (FunctionID, IP) pairs; each frame is then
 * resolved to its name, method token, module and IL offset.  The IL
 * offset comes from the IL-to-native map of the very code version the IP
 * lies in (tiered code: the frame may run an older tier than the latest);
 * a caller's IP is a return address, so the call instruction is IP - 1.
 * What a frame resolves to is cached by IP (a throw site throws again),
 * except for dynamic methods, whose code may be freed and reused; and the
 * fields of a whole stack are kept by the walk that gave them (the same
 * frames, IPs and cut): a loop that throws from one place builds them once
 * and shares them between its records (their JSON is never changed).
 * Source lines are not looked up here: the record says which module (path
 * and MVID) and the CLI reads its PDB (see common/pdb.h for why).
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/u64map.h"
#include "profiler/abi/info.h"
#include "profiler/core/module-md.h"
#include "profiler/core/tracer.h"
#include "profiler/families/exceptions/stack.h"

#define MAX_CODE_VERSIONS 16 /* native code versions looked at per method */
#define MAX_CODE_RANGES 8    /* hot/cold parts of one version */
#define IL_NONE UINT32_MAX   /* no IL offset known */
#define STACKS_KEPT 1024     /* whole stacks kept; then the cache starts over */

/* One frame as the walk saw it (f 0: a run of native frames). */
struct raw_frame {
	FunctionID f;
	UINT_PTR ip;
};

struct snap {
	struct raw_frame *v;
	unsigned n, cap;
	unsigned cut;       /* frames past the cap */
	bool any_managed;
};

/* What a managed frame's IP resolves to (cached, never freed). */
struct frame_res {
	FunctionID f;
	const char *name;   /* names.c's */
	uint32_t token;     /* 0: unknown (a dynamic method) */
	uint32_t il;        /* IL_NONE: unknown */
	ModuleID mod;       /* 0: none */
};

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static struct u64map by_ip;   /* IP -> struct frame_res */
static struct u64map mvids;   /* ModuleID -> "xxxxxxxx-…" MVID string, or "" */
static struct u64map stacks;  /* hash of a walk -> struct kept_stack */

/* The fields built from one walk. */
struct kept_stack {
	unsigned n, cut;
	struct raw_frame *v;
	json_t *fields;
};

/* DoStackSnapshot's callback: keep frames innermost first, runs of native
 * frames as one, and count what does not fit. */
static HRESULT snap_frame(FunctionID f, UINT_PTR ip, UINT_PTR frame, uint32_t n, uint8_t *ctx, void *data)
{
	struct snap *s = data;

	if (!f && (!s->any_managed || (s->n && !s->v[s->n - 1].f)))
		return S_OK; /* the runtime's own frames above the throw; a run goes on */
	if (f)
		s->any_managed = true;
	if (s->n == s->cap)
		s->cut++;
	else
		s->v[s->n++] = (struct raw_frame){ f, ip };
	return S_OK;
}

/* The IL offset of native code address IP in function F, or IL_NONE. */
static uint32_t il_offset(FunctionID f, UINT_PTR ip)
{
	UINT_PTR starts[MAX_CODE_VERSIONS];
	uint32_t n_starts = 0;
	ReJITID rejit = 0;
	FunctionID f2 = 0;

	if (ct.info_version < 9)
		return IL_NONE;
	if (FAILED(info_GetFunctionFromIP3(ct.info, (const uint8_t *)ip, &f2, &rejit)) || f2 != f)
		rejit = 0;
	if (FAILED(info_GetNativeCodeStartAddresses(ct.info, f, rejit, MAX_CODE_VERSIONS, &n_starts, starts)))
		return IL_NONE;
	for (uint32_t i = 0; i < n_starts && i < MAX_CODE_VERSIONS; i++) {
		COR_PRF_CODE_INFO ranges[MAX_CODE_RANGES];
		uint32_t n_ranges = 0, n_map = 0, best = IL_NONE, best_start = 0;
		size_t off = 0;
		bool in = false;
		COR_DEBUG_IL_TO_NATIVE_MAP *map;

		if (FAILED(info_GetCodeInfo4(ct.info, starts[i], MAX_CODE_RANGES, &n_ranges, ranges)))
			continue;
		for (uint32_t k = 0; k < n_ranges && k < MAX_CODE_RANGES && !in; k++) {
			if (ip >= ranges[k].startAddress && ip - ranges[k].startAddress < ranges[k].size) {
				off += ip - ranges[k].startAddress;
				in = true;
			} else {
				off += ranges[k].size;
			}
		}
		if (!in)
			continue;
		if (FAILED(info_GetILToNativeMapping3(ct.info, starts[i], 0, &n_map, NULL)) || !n_map ||
		    n_map > 1u << 20)
			return IL_NONE;
		map = calloc(n_map, sizeof(*map));
		if (!map)
			return IL_NONE;
		if (SUCCEEDED(info_GetILToNativeMapping3(ct.info, starts[i], n_map, &n_map, map)))
			/* the entry that starts last at or before OFF; the special
			 * ones (no mapping, prolog, epilog) are skipped */
			for (uint32_t k = 0; k < n_map; k++)
				if (map[k].ilOffset < 0xfffffff0u && map[k].nativeStartOffset <= off &&
				    (best == IL_NONE || map[k].nativeStartOffset >= best_start)) {
					best = map[k].ilOffset;
					best_start = map[k].nativeStartOffset;
				}
		free(map);
		return best;
	}
	return IL_NONE;
}

/* Resolve the managed frame (F, IP) into *R; true if it may be cached. */
static bool resolve_frame(FunctionID f, UINT_PTR ip, struct frame_res *r)
{
	BOOL dyn = 0;
	ClassID cls = 0;
	mdToken token = 0;

	*r = (struct frame_res){ .f = f, .name = ct_function_name(f), .il = IL_NONE };
	if (ct.info_version >= 8 && SUCCEEDED(info_IsFunctionDynamic(ct.info, f, &dyn)) && dyn)
		return false; /* no token, no module file; its code may be freed */
	if (SUCCEEDED(info_GetFunctionInfo2(ct.info, f, 0, &cls, &r->mod, &token, 0, NULL, NULL)))
		r->token = token;
	else
		r->mod = 0;
	r->il = il_offset(f, ip - 1);
	return true;
}

/* The MVID of module M as "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", or NULL. */
static const char *module_mvid(ModuleID m)
{
	struct md md;
	uint8_t g[16];
	char *s = NULL;
	const char *r;
	void **slot;

	pthread_mutex_lock(&cache_lock);
	r = u64map_get(&mvids, m);
	pthread_mutex_unlock(&cache_lock);
	if (r)
		return *r ? r : NULL;
	/* the GUID as stored: Data1-3 little-endian, Data4 in order */
	if (ct_module_md(m, &md) == 0 && md_mvid(&md, g) == 0 &&
	    asprintf(&s, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", g[3], g[2], g[1], g[0],
		     g[5], g[4], g[7], g[6], g[8], g[9], g[10], g[11], g[12], g[13], g[14], g[15]) < 0)
		s = NULL;
	if (!s)
		s = strdup(""); /* remembered: no MVID */
	if (!s)
		return NULL;
	pthread_mutex_lock(&cache_lock);
	slot = u64map_slot(&mvids, m);
	if (slot && !*slot)
		*slot = s;
	else
		free(s);
	r = slot ? *slot : NULL;
	pthread_mutex_unlock(&cache_lock);
	return r && *r ? r : NULL;
}

/* The index of module M in MODS (added with its path and MVID if new). */
static json_int_t module_index(json_t *mods, ModuleID *seen, size_t *n_seen, ModuleID m)
{
	const char *mvid;
	json_t *o;

	for (size_t i = 0; i < *n_seen; i++)
		if (seen[i] == m)
			return (json_int_t)i;
	mvid = module_mvid(m);
	o = json_pack("{s:s,s:s?}", "path", ct_module_path(m), "mvid", mvid);
	if (!o || json_array_append_new(mods, o) < 0)
		return -1;
	seen[*n_seen] = m;
	return (json_int_t)(*n_seen)++;
}

/* The JSON of one managed frame. */
static json_t *managed_frame(const struct raw_frame *rf, json_t *mods, ModuleID *seen, size_t *n_seen,
			     bool *cacheable)
{
	struct frame_res local, *r = NULL;
	json_t *o;

	pthread_mutex_lock(&cache_lock);
	r = u64map_get(&by_ip, rf->ip);
	pthread_mutex_unlock(&cache_lock);
	if (!r || r->f != rf->f) {
		r = NULL;
		if (resolve_frame(rf->f, rf->ip, &local)) {
			struct frame_res *keep = malloc(sizeof(*keep));

			if (keep) {
				void **slot;

				*keep = local;
				pthread_mutex_lock(&cache_lock);
				slot = u64map_slot(&by_ip, rf->ip);
				if (slot && !*slot) {
					*slot = keep;
					r = keep;
				} else {
					/* another function's code now lies at IP: the
					 * entry stays (a reader may hold it) */
					free(keep);
				}
				pthread_mutex_unlock(&cache_lock);
			}
		}
		if (!r) {
			r = &local;
			*cacheable = false; /* a dynamic method, or no memory */
		}
	}
	o = json_pack("{s:s}", "function", r->name);
	if (!o)
		return NULL;
	if (r->token)
		json_object_set_new(o, "token", json_integer(r->token));
	if (r->il != IL_NONE)
		json_object_set_new(o, "il_offset", json_integer(r->il));
	if (r->mod) {
		json_int_t i = module_index(mods, seen, n_seen, r->mod);

		if (i >= 0)
			json_object_set_new(o, "module", json_integer(i));
	}
	return o;
}

/* The JSON of a run of native frames: its first frame's library. */
static json_t *native_frame(UINT_PTR ip)
{
	Dl_info dl;

	if (ip && dladdr((void *)ip, &dl) && dl.dli_fname && *dl.dli_fname)
		return json_pack("{s:s,s:s}", "function", "[native]", "library", dl.dli_fname);
	return json_pack("{s:s}", "function", "[native]");
}

/* FNV-1a over the walk's frames and cut (never UINT64_MAX, u64map's
 * empty key). */
static uint64_t walk_hash(const struct snap *s)
{
	uint64_t h = 0xcbf29ce484222325u;
	const unsigned char *p = (const unsigned char *)s->v;

	for (size_t i = 0; i < s->n * sizeof(*s->v); i++)
		h = (h ^ p[i]) * 0x100000001b3u;
	h = (h ^ s->cut) * 0x100000001b3u;
	return h == UINT64_MAX ? 0 : h;
}

static void kept_free(void *p)
{
	struct kept_stack *k = p;

	json_decref(k->fields);
	free(k->v);
	free(k);
}

/* The fields kept for the walk S (a new reference), or NULL. */
static json_t *kept_get(const struct snap *s, uint64_t h)
{
	struct kept_stack *k;
	json_t *f = NULL;

	pthread_mutex_lock(&cache_lock);
	k = u64map_get(&stacks, h);
	if (k && k->n == s->n && k->cut == s->cut && memcmp(k->v, s->v, s->n * sizeof(*s->v)) == 0)
		f = json_incref(k->fields);
	pthread_mutex_unlock(&cache_lock);
	return f;
}

/* Keep FIELDS for the walk S (unless another walk has its hash). */
static void kept_put(const struct snap *s, uint64_t h, json_t *fields)
{
	struct kept_stack *k = malloc(sizeof(*k));
	void **slot;

	if (!k || !(k->v = malloc(s->n * sizeof(*s->v)))) {
		free(k);
		return;
	}
	memcpy(k->v, s->v, s->n * sizeof(*s->v));
	k->n = s->n;
	k->cut = s->cut;
	k->fields = json_incref(fields);
	pthread_mutex_lock(&cache_lock);
	/* full: start over; records that hold the old fields keep them */
	if (stacks.n >= STACKS_KEPT)
		u64map_done(&stacks, kept_free);
	slot = u64map_slot(&stacks, h);
	if (slot && !*slot) {
		*slot = k;
		k = NULL;
	}
	pthread_mutex_unlock(&cache_lock);
	if (k)
		kept_free(k);
}

/* The stack fields of the calling thread (see stack.h). */
json_t *exc_stack_fields(unsigned depth)
{
	struct snap s = { .cap = depth };
	_cleanup_free_ ModuleID *seen = NULL;
	size_t n_seen = 0;
	json_t *frames, *mods, *out;
	bool cacheable = true;
	uint64_t h;

	s.v = calloc(depth ? depth : 1, sizeof(*s.v));
	seen = calloc(depth ? depth : 1, sizeof(*seen));
	if (!s.v || !seen) {
		free(s.v);
		return NULL;
	}
	if (FAILED(info_DoStackSnapshot(ct.info, 0, snap_frame, 0, &s, NULL, 0))) {
		free(s.v);
		ct_say_once("stack-walk", "the runtime would not walk a throwing thread's stack; "
			    "exception.throw has no stack then");
		return NULL;
	}
	h = walk_hash(&s);
	out = kept_get(&s, h);
	if (out) {
		free(s.v);
		return out;
	}
	/* a trailing run of native frames is the thread's start: kept */
	frames = json_array();
	mods = json_array();
	for (unsigned i = 0; i < s.n && frames && mods; i++) {
		json_t *f = s.v[i].f ? managed_frame(&s.v[i], mods, seen, &n_seen, &cacheable)
				     : native_frame(s.v[i].ip);

		if (f)
			json_array_append_new(frames, f);
	}
	out = json_pack("{s:o?}", "stack", frames);
	if (out && s.cut)
		json_object_set_new(out, "stack_cut", json_integer(s.cut));
	if (out)
		json_object_set_new(out, "modules", mods ? mods : json_array());
	else
		json_decref(mods);
	if (out && frames && json_array_size(frames) == s.n && cacheable)
		kept_put(&s, h, out);
	free(s.v);
	return out;
}

/* The inner chain fields (see stack.h). */
json_t *exc_chain_fields(const struct exc_chain *c, bool with_messages)
{
	json_t *out, *a;

	if (!c->n)
		return NULL;
	a = json_array();
	for (unsigned i = 0; i < c->n && a; i++) {
		json_t *o = json_pack("{s:s}", "type", c->v[i].type ? c->v[i].type : "?");

		if (o && with_messages)
			json_object_set_new(o, "message", c->v[i].message ? json_string(c->v[i].message) : json_null());
		if (o)
			json_array_append_new(a, o);
	}
	out = json_pack("{s:o?}", "inner", a);
	if (out && c->more)
		json_object_set_new(out, "inner_cut", json_integer(c->more));
	if (out && c->more_capped)
		json_object_set_new(out, "inner_cut_capped", json_true());
	if (out && c->loops)
		json_object_set_new(out, "inner_loops", json_true());
	return out;
}
