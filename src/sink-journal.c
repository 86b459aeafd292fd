/* SPDX-License-Identifier: MIT */
/* The systemd journal sink (placeholder until issue 4 lands). */
#include <errno.h>
#include <stdio.h>

#include "sink.h"

static int journal_open(struct ct_sink *s, const struct ct_output *o, char **why)
{
	if (asprintf(why, "the journal sink is not available in this build") < 0)
		*why = NULL;
	return -EOPNOTSUPP;
}

const struct ct_sink_ops ct_sink_journal_ops = {
	.kind = OUT_JOURNAL,
	.open = journal_open,
};
