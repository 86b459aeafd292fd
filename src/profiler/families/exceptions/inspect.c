/* SPDX-License-Identifier: MIT */
/*
 * The thrown object's type, System.Exception._message, _HResult,
 * _stackTrace and _innerException.  The field offsets are looked up once
 * (GetClassLayout of System.Exception and its metadata, read in place) and
 * then read straight from the object, which is safe only inside
 * ExceptionThrown (cooperative mode).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "profiler/abi/info.h"
#include "profiler/core/fields.h"
#include "profiler/core/module-md.h"
#include "profiler/core/tracer.h"
#include "common/utf16.h"
#include "common/util.h"
#include "profiler/families/exceptions/inspect.h"

/* Offsets found once; 0 = unknown (no field sits at offset 0: the header does). */
static struct {
	pthread_mutex_t lock;
	bool tried;
	bool done; /* offsets below are final (atomic, release) */
	ULONG message_off, hresult_off, trace_off, inner_off, str_len_off, str_buf_off;
} L = { .lock = PTHREAD_MUTEX_INITIALIZER };

#define MAX_MESSAGE 4096 /* UTF-16 units kept of a message */

/* System.Exception's ClassID: walk the parents of C. */
static ClassID find_exception_class(ClassID c, ModuleID *mod, mdTypeDef *td)
{
	for (int depth = 0; c && depth < 32; depth++) {
		ClassID parent = 0;
		uint32_t n = 0;

		if (FAILED(info_GetClassIDInfo2(ct.info, c, mod, td, &parent, 0, &n, NULL)))
			return 0;
		if (strcmp(ct_class_name(c), "System.Exception") == 0)
			return c;
		c = parent;
	}
	return 0;
}

/* Look the offsets up once, from the first thrown object's class. */
static void layout_init(ClassID c)
{
	ModuleID mod = 0;
	mdTypeDef td = 0;
	struct md md;
	ClassID exc;

	pthread_mutex_lock(&L.lock);
	if (L.tried)
		goto out;
	L.tried = true;
	exc = find_exception_class(c, &mod, &td);
	if (!exc || ct_module_md(mod, &md) < 0) {
		ct_say_once("exc-layout", "System.Exception's layout is unknown; no exception messages");
		goto out;
	}
	L.message_off = ct_field_offset(&md, td, exc, "_message");
	L.hresult_off = ct_field_offset(&md, td, exc, "_HResult");
	L.trace_off = ct_field_offset(&md, td, exc, "_stackTrace");
	L.inner_off = ct_field_offset(&md, td, exc, "_innerException");
	if (FAILED(info_GetStringLayout2(ct.info, &L.str_len_off, &L.str_buf_off)))
		L.message_off = 0;
out:
	__atomic_store_n(&L.done, true, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&L.lock);
}

/* The string object STR as UTF-8, or NULL. */
static char *string_object(ObjectID str)
{
	int32_t len;

	if (!str || !L.str_buf_off)
		return NULL;
	memcpy(&len, (const char *)str + L.str_len_off, sizeof(len));
	if (len < 0)
		return NULL;
	if (len > MAX_MESSAGE)
		len = MAX_MESSAGE;
	return utf16_to_utf8((const uint16_t *)((const char *)str + L.str_buf_off), (size_t)len);
}

/* Fill *out from OBJ (see inspect.h). */
void exc_inspect(ObjectID obj, bool with_message, struct exc_info *out)
{
	ClassID c = 0;

	*out = (struct exc_info){ .type = "?" };
	if (!obj || FAILED(info_GetClassFromObject(ct.info, obj, &c)) || !c)
		return;
	out->class_id = c;
	out->type = ct_class_name(c);
	if (!__atomic_load_n(&L.done, __ATOMIC_ACQUIRE))
		layout_init(c);
	if (L.hresult_off) {
		memcpy(&out->hresult, (const char *)obj + L.hresult_off, sizeof(out->hresult));
		out->has_hresult = true;
	}
	if (L.trace_off) {
		ObjectID st;

		memcpy(&st, (const char *)obj + L.trace_off, sizeof(st));
		out->traced = st != 0;
	}
	if (L.inner_off)
		memcpy(&out->inner, (const char *)obj + L.inner_off, sizeof(out->inner));
	if (with_message && L.message_off) {
		ObjectID str;

		memcpy(&str, (const char *)obj + L.message_off, sizeof(str));
		out->message = string_object(str);
	}
}

void exc_info_done(struct exc_info *i)
{
	free(i->message);
	i->message = NULL;
}

/* Follow _innerException from INNER (see inspect.h). */
void exc_inner_chain(ObjectID thrown, ObjectID inner, bool with_messages, struct exc_chain *out)
{
	ObjectID seen[EXC_INNER_MAX + 1] = { thrown };
	ObjectID o = inner;

	*out = (struct exc_chain){};
	while (o && out->n < EXC_INNER_MAX) {
		struct exc_info *i = &out->v[out->n];

		for (unsigned k = 0; k <= out->n; k++)
			if (seen[k] == o) {
				out->loops = true;
				return;
			}
		seen[out->n + 1] = o;
		exc_inspect(o, with_messages, i);
		out->n++;
		/* the chain is read through System.Exception's own field: an
		 * object whose class was not found ends it */
		if (!i->class_id)
			return;
		o = i->inner;
	}
	if (!o || !L.inner_off)
		return;
	/* past the kept ones only the links are followed (no names, no
	 * strings), and not forever: a chain that loops further down ends too */
	while (o && out->more < EXC_INNER_COUNT_MAX) {
		out->more++;
		memcpy(&o, (const char *)o + L.inner_off, sizeof(o));
	}
	out->more_capped = o != 0;
}

void exc_chain_done(struct exc_chain *c)
{
	for (unsigned i = 0; i < c->n; i++)
		exc_info_done(&c->v[i]);
	c->n = 0;
}
