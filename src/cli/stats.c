/* SPDX-License-Identifier: MIT */
/* clrtrace stats (placeholder until issue 5 lands). */
#include "cli.h"

int cmd_stats(int argc, char **argv)
{
	cli_error("stats: not implemented yet");
	return 1;
}
