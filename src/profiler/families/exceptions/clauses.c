/* SPDX-License-Identifier: MIT */
/*
 * The runtime side of filter verdicts: a method's IL clause table
 * (GetILFunctionBody, parsed by ehsection.c) and which clause a running
 * catch handler belongs to (GetNotifiedExceptionClauseInfo's handler
 * address, mapped to IL through the native code version that holds it).
 * Never called from FilterEnter or CatcherEnter (dotnet/runtime#132462).
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "common/metadata.h"
#include "profiler/abi/info.h"
#include "profiler/core/module-md.h"
#include "profiler/core/tracer.h"
#include "profiler/families/exceptions/clauses.h"
#include "profiler/families/exceptions/ehsection.h"

#define CACHE 512 /* FunctionIDs remembered; a collision just recomputes */

/* FunctionID | enum exm_know (FunctionIDs are 8-aligned pointers). */
static _Atomic uint64_t cache[CACHE];

/* Handler address and its function -> is it a filter clause's handler.
 * The same address in another function (code freed and reused) misses. */
static struct {
	pthread_mutex_t lock;
	struct { UINT_PTR pc; FunctionID f; enum exm_know k; } v[CACHE];
} handlers = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* The clauses of F's IL body into *OUT and *N; negative errno. */
static int load_clauses(FunctionID f, struct eh_clause **out, size_t *n)
{
	ClassID cls = 0;
	ModuleID mod = 0;
	mdToken tok = 0;
	const uint8_t *body = NULL;
	ULONG size = 0;

	*out = NULL;
	*n = 0;
	if (FAILED(info_GetFunctionInfo(ct.info, f, &cls, &mod, &tok)) || !mod || !tok)
		return -ENOENT; /* e.g. a dynamic method */
	if (FAILED(info_GetILFunctionBody(ct.info, mod, tok, &body, &size)) || !body)
		return -ENOENT;
	return eh_parse(body, size, out, n);
}

#define ANCESTRY_MAX 32 /* classes walked up from the exception's */

/* The exception's class and its parents, for may_take: where each is
 * defined and its name, and the module of the method whose clauses ask. */
struct ancestry {
	ModuleID mod;
	struct md md;
	size_t n;
	struct {
		ModuleID mod;
		mdTypeDef td;
		const char *ns, *name;
	} c[ANCESTRY_MAX];
};

/* Fill *A for exception class EXC and the clauses of F; false when any of
 * it is unknown (a dynamic module, a walk that does not end). */
static bool ancestry(FunctionID f, ClassID exc, struct ancestry *a)
{
	ClassID cls = 0, c = exc;
	mdToken tok = 0;

	a->n = 0;
	if (FAILED(info_GetFunctionInfo(ct.info, f, &cls, &a->mod, &tok)) || !a->mod || ct_module_md(a->mod, &a->md) < 0)
		return false;
	while (c) {
		ClassID parent = 0;
		uint32_t nargs = 0, name = 0, ns = 0;
		struct md md;

		if (a->n == ANCESTRY_MAX ||
		    FAILED(info_GetClassIDInfo2(ct.info, c, &a->c[a->n].mod, &a->c[a->n].td, &parent, 0, &nargs, NULL)) ||
		    ct_module_md(a->c[a->n].mod, &md) < 0 || md_get(&md, MD_TYPEDEF, MD_TOKEN_ROW(a->c[a->n].td), 1, &name) < 0 ||
		    md_get(&md, MD_TYPEDEF, MD_TOKEN_ROW(a->c[a->n].td), 2, &ns) < 0 ||
		    !(a->c[a->n].name = md_string(&md, name)) || !(a->c[a->n].ns = md_string(&md, ns)))
			return false;
		a->n++;
		c = parent;
	}
	return a->n > 0; /* up to System.Object, whose parent is none */
}

/* May a catch of class TOKEN (of the asking method's module) take the
 * exception of ancestry UD?  A TypeDef: is it one of the classes; a
 * top-level TypeRef: is one of them so named (the assembly aside: type
 * forwarders keep the name); anything else (a TypeSpec: a generic type; a
 * nested TypeRef): it may. */
static bool may_take(uint32_t token, void *ud)
{
	const struct ancestry *a = ud;
	uint32_t scope, name, ns;
	const char *s, *t;

	switch (MD_TOKEN_TABLE(token)) {
	case MD_TYPEDEF:
		for (size_t i = 0; i < a->n; i++)
			if (a->c[i].mod == a->mod && a->c[i].td == token)
				return true;
		return false;
	case MD_TYPEREF:
		if (md_get(&a->md, MD_TYPEREF, MD_TOKEN_ROW(token), 0, &scope) < 0 || (scope & 3) == 3 ||
		    md_get(&a->md, MD_TYPEREF, MD_TOKEN_ROW(token), 1, &name) < 0 ||
		    md_get(&a->md, MD_TYPEREF, MD_TOKEN_ROW(token), 2, &ns) < 0 || !(s = md_string(&a->md, name)) ||
		    !(t = md_string(&a->md, ns)))
			return true;
		for (size_t i = 0; i < a->n; i++)
			if (strcmp(a->c[i].name, s) == 0 && strcmp(a->c[i].ns, t) == 0)
				return true;
		return false;
	default:
		return true;
	}
}

/* Can a plain catch of F take what one of its filters declined, an
 * exception of class EXC (0: any)?  Whether F has such a catch at all is
 * cached; whether its type may match EXC's is asked each time (rare: a
 * filter's result waits on it). */
enum exm_know ct_catch_after_filter(FunctionID f, ClassID exc)
{
	size_t slot = (f >> 3) % CACHE, n;
	uint64_t v = atomic_load_explicit(&cache[slot], memory_order_relaxed);
	struct eh_clause *c;
	struct ancestry a;
	enum exm_know k;

	if (f && (v & ~(uint64_t)7) == f && ((v & 7) != EXM_KNOW_YES || !exc))
		return (enum exm_know)(v & 7);
	if (load_clauses(f, &c, &n) < 0)
		return EXM_KNOW_UNKNOWN; /* not cached: the next try may work */
	k = eh_catch_after_filter(c, n, NULL, NULL) ? EXM_KNOW_YES : EXM_KNOW_NO;
	if (!(f & 7))
		atomic_store_explicit(&cache[slot], f | k, memory_order_relaxed);
	if (k == EXM_KNOW_YES && exc && ancestry(f, exc, &a))
		k = eh_catch_after_filter(c, n, may_take, &a) ? EXM_KNOW_YES : EXM_KNOW_NO;
	free(c);
	return k;
}

/* Native offset of PC in the code version starting at START; negative
 * errno when PC is not in it. */
static int64_t native_offset(UINT_PTR start, UINT_PTR pc)
{
	COR_PRF_CODE_INFO ranges[8];
	uint32_t n = 0;
	uint64_t before = 0;

	if (FAILED(info_GetCodeInfo4(ct.info, start, 8, &n, ranges)))
		return -ENOENT;
	for (uint32_t i = 0; i < n && i < 8; i++) {
		if (pc >= ranges[i].startAddress && pc - ranges[i].startAddress < ranges[i].size)
			return (int64_t)(before + (pc - ranges[i].startAddress));
		before += ranges[i].size;
	}
	return -ENOENT;
}

/* The IL offset of the code at PC in function F, rejit R; negative errno. */
static int il_offset_of(FunctionID f, ReJITID rejit, UINT_PTR pc, uint32_t *il)
{
	UINT_PTR starts[16];
	uint32_t ns = 0, nm = 0;
	COR_DEBUG_IL_TO_NATIVE_MAP *map = NULL;
	int64_t off = -1;
	UINT_PTR start = 0;
	int r;

	/* every tier of F: the catch may run in any of them */
	if (FAILED(info_GetNativeCodeStartAddresses(ct.info, f, rejit, 16, &ns, starts)))
		return -ENOENT;
	for (uint32_t i = 0; i < ns && i < 16 && off < 0; i++)
		if ((off = native_offset(starts[i], pc)) >= 0)
			start = starts[i];
	/* .NET 9 refuses GetCodeInfo4 during a dispatch (unsupported call
	 * sequence): the nearest start below PC, its IL map bounding it */
	for (uint32_t i = 0; i < ns && i < 16 && off < 0; i++)
		if (starts[i] <= pc && starts[i] > start)
			start = starts[i];
	if (off < 0 && start)
		off = (int64_t)(pc - start);
	if (off < 0 || off > UINT32_MAX)
		return -ENOENT;
	if (FAILED(info_GetILToNativeMapping3(ct.info, start, 0, &nm, NULL)) || !nm)
		return -ENOENT;
	map = calloc(nm, sizeof(*map));
	if (!map)
		return -ENOMEM;
	if (FAILED(info_GetILToNativeMapping3(ct.info, start, nm, &nm, map))) {
		free(map);
		return -ENOENT;
	}
	/* same layout: three 32-bit fields */
	r = il_offset_at((const struct il_map_entry *)map, nm, (uint32_t)off, il);
	free(map);
	return r;
}

/* Is the catch handler being left a filter clause's (see clauses.h)? */
enum exm_know ct_catch_is_filter_handler(void)
{
	COR_PRF_EX_CLAUSE_INFO ci = { 0 };
	FunctionID f = 0;
	ReJITID rejit = 0;
	struct eh_clause *c;
	size_t n;
	uint32_t il;
	ssize_t i;
	size_t slot;
	enum exm_know k = EXM_KNOW_UNKNOWN;

	if (ct.info_version < 9 || info_GetNotifiedExceptionClauseInfo(ct.info, &ci) != S_OK || !ci.programCounter)
		return EXM_KNOW_UNKNOWN;
	if (FAILED(info_GetFunctionFromIP3(ct.info, (const uint8_t *)ci.programCounter, &f, &rejit)) || !f)
		return EXM_KNOW_UNKNOWN;
	slot = (ci.programCounter >> 2) % CACHE;
	pthread_mutex_lock(&handlers.lock);
	if (handlers.v[slot].pc == ci.programCounter && handlers.v[slot].f == f)
		k = handlers.v[slot].k;
	pthread_mutex_unlock(&handlers.lock);
	if (k != EXM_KNOW_UNKNOWN)
		return k;
	if (il_offset_of(f, rejit, ci.programCounter, &il) < 0 || load_clauses(f, &c, &n) < 0)
		return EXM_KNOW_UNKNOWN;
	i = eh_handler_at(c, n, il);
	if (i >= 0)
		k = c[i].flags & EH_CLAUSE_FILTER ? EXM_KNOW_YES : EXM_KNOW_NO;
	free(c);
	if (k != EXM_KNOW_UNKNOWN) {
		pthread_mutex_lock(&handlers.lock);
		handlers.v[slot].pc = ci.programCounter;
		handlers.v[slot].f = f;
		handlers.v[slot].k = k;
		pthread_mutex_unlock(&handlers.lock);
	}
	return k;
}

/* The function and IL offset of the code at PC; negative errno. */
static int il_at_pc(UINT_PTR pc, FunctionID *f, uint32_t *il)
{
	ReJITID rejit = 0;

	*f = 0;
	if (!pc || FAILED(info_GetFunctionFromIP3(ct.info, (const uint8_t *)pc, f, &rejit)) || !*f)
		return -ENOENT;
	return il_offset_of(*f, rejit, pc, il);
}

/* Called from a CatcherLeave: does the handler that held OUTER_PC (a catch
 * or finally of the same method that is still open) hold the catch being
 * left? */
enum exm_know ct_catch_within(uint64_t outer_pc)
{
	COR_PRF_EX_CLAUSE_INFO ci = { 0 };
	FunctionID f = 0, g = 0;
	struct eh_clause *c;
	uint32_t outer, inner;
	size_t n;
	int r;

	if (info_GetNotifiedExceptionClauseInfo(ct.info, &ci) != S_OK)
		return EXM_KNOW_UNKNOWN;
	if (il_at_pc(ci.programCounter, &f, &inner) < 0 || il_at_pc(outer_pc, &g, &outer) < 0 || f != g)
		return EXM_KNOW_UNKNOWN;
	if (load_clauses(f, &c, &n) < 0)
		return EXM_KNOW_UNKNOWN;
	r = eh_within_handler(c, n, outer, inner);
	free(c);
	return r < 0 ? EXM_KNOW_UNKNOWN : r ? EXM_KNOW_YES : EXM_KNOW_NO;
}

/* How many finally/fault clauses of F cover its call site at the return
 * address IP (the handlers that still run when an exception leaves F
 * there); 0 also when unknown. */
unsigned ct_finallys_covering(FunctionID f, UINT_PTR ip)
{
	FunctionID g = 0;
	struct eh_clause *c;
	uint32_t il;
	size_t n;
	unsigned k;

	/* IP returns past the call: the call itself is the byte before.
	 * .NET 9 may not map it to its function during a dispatch: F's code
	 * versions (rejit 0) are searched then. */
	if (!ip)
		return 0;
	if (il_at_pc(ip - 1, &g, &il) < 0 ? il_offset_of(f, 0, ip - 1, &il) < 0 : g != f)
		return 0;
	if (load_clauses(f, &c, &n) < 0)
		return 0;
	k = eh_finallys_covering(c, n, il);
	free(c);
	return k;
}

/* Does the IL CODE[0..n) call (call, callvirt) a MemberRef of MD named
 * SetException on an async method builder type (Async*MethodBuilder*,
 * PoolingAsyncValueTaskMethodBuilder, AsyncIteratorMethodBuilder)?  A
 * byte scan: an operand taken for an opcode still has to name such a
 * method to count. */
static bool calls_builder_set_exception(const struct md *md, const uint8_t *code, size_t n)
{
	for (size_t i = 0; i + 5 <= n; i++) {
		uint32_t tok;
		const char *name, *type;

		if (code[i] != 0x28 && code[i] != 0x6f) /* call, callvirt */
			continue;
		tok = (uint32_t)code[i + 1] | (uint32_t)code[i + 2] << 8 | (uint32_t)code[i + 3] << 16 |
		      (uint32_t)code[i + 4] << 24;
		if (MD_TOKEN_TABLE(tok) != MD_MEMBERREF || md_member_ref(md, MD_TOKEN_ROW(tok), &name, &type) < 0)
			continue;
		if (name && type && strcmp(name, "SetException") == 0 && strstr(type, "Async") &&
		    strstr(type, "MethodBuilder"))
			return true;
	}
	return false;
}

/* Is C a typed catch whose handler lies inside the body (CODE bytes of
 * header, SIZE in all)? */
static bool catch_clause(const struct eh_clause *c, size_t code, size_t size)
{
	return !(c->flags & (EH_CLAUSE_FILTER | EH_CLAUSE_FINALLY | EH_CLAUSE_FAULT)) && code + c->handler_off <= size &&
	       c->handler_len <= size - code - c->handler_off;
}

/* Is the catch handler of F at PC the one an async state machine's
 * MoveNext stores the exception in its builder with (see clauses.h)? */
enum exm_know ct_catch_stores_task(FunctionID f, uint64_t pc)
{
	FunctionID g = 0;
	ClassID cls = 0;
	ModuleID mod = 0;
	mdToken tok = 0;
	const uint8_t *body = NULL;
	ULONG size = 0;
	struct eh_clause *c;
	struct md md;
	size_t n, code;
	uint32_t il;
	ssize_t i;
	enum exm_know k = EXM_KNOW_UNKNOWN;

	bool at_pc = il_at_pc(pc, &g, &il) == 0 && g == f;

	if (FAILED(info_GetFunctionInfo(ct.info, f, &cls, &mod, &tok)) || !mod || !tok ||
	    FAILED(info_GetILFunctionBody(ct.info, mod, tok, &body, &size)) || !body || !size)
		return EXM_KNOW_UNKNOWN;
	if (ct_module_md(mod, &md) < 0 || eh_parse(body, size, &c, &n) < 0)
		return EXM_KNOW_UNKNOWN;
	code = (body[0] & 3) == 2 ? 1 : size >= 2 ? (size_t)(body[1] >> 4) * 4 : size; /* tiny, fat header */
	if (at_pc) {
		i = eh_handler_at(c, n, il);
		if (i >= 0 && catch_clause(&c[i], code, size))
			k = calls_builder_set_exception(&md, body + code + c[i].handler_off, c[i].handler_len)
				    ? EXM_KNOW_YES
				    : EXM_KNOW_NO;
	} else {
		/* PC not mapped (it happens on .NET 8 during a dispatch): when
		 * every catch of F says the same, that is the answer for any */
		size_t yes = 0, no = 0;

		for (size_t j = 0; j < n; j++)
			if (catch_clause(&c[j], code, size)) {
				if (calls_builder_set_exception(&md, body + code + c[j].handler_off, c[j].handler_len))
					yes++;
				else
					no++;
			}
		k = yes && !no ? EXM_KNOW_YES : no && !yes ? EXM_KNOW_NO : EXM_KNOW_UNKNOWN;
	}
	free(c);
	return k;
}
