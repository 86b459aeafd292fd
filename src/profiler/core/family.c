/* SPDX-License-Identifier: MIT */
/* The registered families and the trace generation (see family.h). */
#include <stdatomic.h>

#include "profiler/core/family.h"
#include "profiler/core/jsonw.h"
#include "profiler/core/thread.h"

static const struct ct_family *const *families;
static size_t n_families;
atomic_uint ct_trace_gen;

/* Register the table (see family.h). */
void ct_families_register(const struct ct_family *const *table, size_t n)
{
	families = table;
	n_families = n < CT_FAMILY_MAX ? n : CT_FAMILY_MAX;
	for (size_t i = 0; i < n_families; i++)
		if (families[i]->init)
			families[i]->init((unsigned)i);
}

/* The trace ended (see family.h). */
void ct_families_trace_end(void)
{
	atomic_fetch_add_explicit(&ct_trace_gen, 1, memory_order_acq_rel);
	ct_threads_forget_stale();
	for (size_t i = 0; i < n_families; i++)
		if (families[i]->reset)
			families[i]->reset();
}

/* The stashed work of every family with state on T (see family.h). */
void ct_families_before_record(struct ct_thread *t)
{
	for (size_t i = 0; i < n_families; i++)
		if (families[i]->before_record && t->family[i])
			families[i]->before_record(t, t->family[i]);
}

void ct_families_thread_end(struct ct_thread *t)
{
	for (size_t i = 0; i < n_families; i++)
		if (families[i]->thread_end)
			families[i]->thread_end(t);
}

void ct_families_exit(struct ct_thread *t)
{
	for (size_t i = 0; i < n_families; i++)
		if (families[i]->exit)
			families[i]->exit(t);
}

bool ct_families_have_exit(void)
{
	for (size_t i = 0; i < n_families; i++)
		if (families[i]->exit)
			return true;
	return false;
}

void ct_families_totals(struct jw_fields *f, struct jw *bufs)
{
	for (size_t i = 0; i < n_families; i++) {
		if (!families[i]->totals)
			continue;
		families[i]->totals(&bufs[i]);
		if (bufs[i].b.len && !bufs[i].b.oom)
			jwf_raw(f, families[i]->name, bufs[i].b.s, bufs[i].b.len);
		else
			jwf_raw(f, families[i]->name, "{}", 2);
	}
}

/* Forget every family's state of T (see family.h). */
void ct_families_thread_free(struct ct_thread *t)
{
	for (size_t i = 0; i < n_families; i++) {
		void *s = t->family[i];

		t->family[i] = NULL;
		if (s && families[i]->thread_free)
			families[i]->thread_free(t, s);
	}
	t->has_family_state = false;
}
