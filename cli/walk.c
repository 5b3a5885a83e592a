/* walk.c — the classroom walkthrough (--walk / -V). */
#include "cli/cli.h"

static bool frame(void *ctx, const struct rs_packet *pkt, const struct rs_frame *f)
{
	(void)ctx; (void)pkt; (void)f;
	return true;
}

struct rs_sink rs_walk_sink(FILE *out, const struct rs_cli_opts *o)
{
	(void)o;
	return (struct rs_sink){ .ctx = out, .frame = frame };
}
