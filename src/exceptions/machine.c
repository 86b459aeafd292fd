/* SPDX-License-Identifier: MIT */
/* Placeholder until the exception state machine lands. */
#include <stdlib.h>

#include "machine.h"

void exm_free(struct exm *m)
{
	free(m);
}
