/*
 * select.c — which frames the user asked for: --frames N-M by number and
 * --since/--until by time. The offline loop (run.c) and the live loop
 * (live.c) ask the same questions here, so `-i eth0 --frames 1-100` means
 * what `rocestat --frames 1-100 FILE` means.
 *
 * By number first, before the frame is dissected: most frames of a large
 * file outside the range then cost nothing. By time after, because the time
 * that counts is the frame's own (ERF and IB records carry theirs).
 */
#include "cli/cli.h"

enum rs_pick rs_select_number(const struct rs_cli_opts *o, uint64_t frame_no)
{
	if (o->first_frame && frame_no < o->first_frame)
		return RS_PICK_SKIP;
	if (o->last_frame && frame_no > o->last_frame)
		return RS_PICK_AFTER;
	return RS_PICK_TAKE;
}

/* Seconds from the first frame, or epoch seconds (values >= 1e9). */
enum rs_pick rs_select_time(const struct rs_cli_opts *o, struct rs_select *s, uint64_t ts_ns)
{
	if (!o->have_since && !o->have_until)
		return RS_PICK_TAKE;
	if (!s->have_t0) {
		s->t0 = ts_ns;
		s->have_t0 = true;
	}
	double rel = (ts_ns - (double)s->t0) / 1e9, abs = ts_ns / 1e9;
	if (o->have_since && (o->since >= 1e9 ? abs : rel) < o->since)
		return RS_PICK_SKIP;
	if (o->have_until && (o->until >= 1e9 ? abs : rel) >= o->until)
		return RS_PICK_AFTER;
	return RS_PICK_TAKE;
}
