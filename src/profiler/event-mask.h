/* SPDX-License-Identifier: MIT */
/* The runtime's event-mask bits of each category. */
#pragma once

#include <stdint.h>

#include "common/vocabulary.h"

/* The event-mask bits the categories in CATS (a bit per category) need. */
void ct_category_masks(unsigned cats, uint32_t *low, uint32_t *high);
