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
	struct jw_text *fields;
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

/* The index of module M in the array MODS (added with its path and MVID
 * if new). */
static int64_t module_index(struct jw *mods, ModuleID *seen, size_t *n_seen, ModuleID m)
{
	JW_FIELDS(f, 2);

	for (size_t i = 0; i < *n_seen; i++)
		if (seen[i] == m)
			return (int64_t)i;
	jwf_str(&f, "path", ct_module_path(m));
	jwf_str(&f, "mvid", module_mvid(m));
	jw_item(mods, "[]");
	jw_object(mods, &f);
	seen[*n_seen] = m;
	return (int64_t)(*n_seen)++;
}

/* One managed frame into W, its module into MODS. */
static void managed_frame(struct jw *w, const struct raw_frame *rf, struct jw *mods, ModuleID *seen, size_t *n_seen,
			  bool *cacheable)
{
	struct frame_res local, *r = NULL;
	JW_FIELDS(f, 4);

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
	jwf_str(&f, "function", r->name);
	if (r->token)
		jwf_int(&f, "token", r->token);
	if (r->il != IL_NONE)
		jwf_int(&f, "il_offset", r->il);
	if (r->mod)
		jwf_int(&f, "module", module_index(mods, seen, n_seen, r->mod));
	jw_object(w, &f);
}

/* A run of native frames into W: its first frame's library. */
static void native_frame(struct jw *w, UINT_PTR ip)
{
	Dl_info dl;
	JW_FIELDS(f, 2);

	jwf_str(&f, "function", "[native]");
	if (ip && dladdr((void *)ip, &dl) && dl.dli_fname && *dl.dli_fname)
		jwf_str(&f, "library", dl.dli_fname);
	jw_object(w, &f);
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

	jw_text_unref(k->fields);
	free(k->v);
	free(k);
}

/* The fields kept for the walk S (a new reference), or NULL. */
static struct jw_text *kept_get(const struct snap *s, uint64_t h)
{
	struct kept_stack *k;
	struct jw_text *f = NULL;

	pthread_mutex_lock(&cache_lock);
	k = u64map_get(&stacks, h);
	if (k && k->n == s->n && k->cut == s->cut && memcmp(k->v, s->v, s->n * sizeof(*s->v)) == 0)
		f = jw_text_ref(k->fields);
	pthread_mutex_unlock(&cache_lock);
	return f;
}

/* Keep FIELDS for the walk S (unless another walk has its hash). */
static void kept_put(const struct snap *s, uint64_t h, struct jw_text *fields)
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
	k->fields = jw_text_ref(fields);
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
struct jw_text *exc_stack_fields(unsigned depth)
{
	struct snap s = { .cap = depth };
	_cleanup_free_ ModuleID *seen = NULL;
	_cleanup_(jw_free) struct jw w = { 0 }, mods = { 0 };
	size_t n_seen = 0;
	struct jw_text *out;
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
	jw_key(&w, "stack");
	jw_raw(&w, "[", 1);
	for (unsigned i = 0; i < s.n; i++) {
		if (i)
			jw_raw(&w, ",", 1);
		if (s.v[i].f)
			managed_frame(&w, &s.v[i], &mods, seen, &n_seen, &cacheable);
		else
			native_frame(&w, s.v[i].ip);
	}
	jw_raw(&w, "]", 1);
	if (s.cut) {
		jw_key(&w, "stack_cut");
		jw_u64(&w, s.cut);
	}
	jw_key(&w, "modules");
	jw_raw(&w, mods.b.len ? mods.b.s : "[", mods.b.len ? mods.b.len : 1);
	jw_raw(&w, "]", 1);
	out = mods.b.oom ? NULL : jw_text_new(&w);
	if (out && cacheable)
		kept_put(&s, h, out);
	free(s.v);
	return out;
}

/* The inner chain fields (see stack.h). */
struct jw_text *exc_chain_fields(const struct exc_chain *c, bool with_messages)
{
	_cleanup_(jw_free) struct jw w = { 0 }, inner = { 0 };
	JW_FIELDS(f, 4);

	if (!c->n)
		return NULL;
	for (unsigned i = 0; i < c->n; i++) {
		JW_FIELDS(e, 2);

		jwf_str(&e, "type", c->v[i].type ? c->v[i].type : "?");
		if (with_messages)
			jwf_str(&e, "message", c->v[i].message);
		jw_item(&inner, "[]");
		jw_object(&inner, &e);
	}
	jwf_collection(&f, "inner", &inner, "[]");
	if (c->more)
		jwf_int(&f, "inner_cut", c->more);
	if (c->more_capped)
		jwf_bool(&f, "inner_cut_capped", true);
	if (c->loops)
		jwf_bool(&f, "inner_loops", true);
	jw_fields(&w, f.f, f.n);
	return jw_text_new(&w);
}
