/* SPDX-License-Identifier: MIT */
/* The per-thread exception state machine (pure C; see machine.c). */
#pragma once

struct exm;

void exm_free(struct exm *m);
