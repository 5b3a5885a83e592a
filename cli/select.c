/*
 * select.c — which frames the user asked for: --frames N-M (or a list of
 * such ranges) by number and
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
	if (o->n_frame_ranges <= 1)
		return RS_PICK_TAKE;
	for (size_t i = 0; i < o->n_frame_ranges; i++) {
		const struct rs_frame_range *r = &o->frame_ranges[i];
		if (frame_no >= r->first && (r->last == 0 || frame_no <= r->last))
			return RS_PICK_TAKE;
	}
	return RS_PICK_SKIP;
}

/* --since and --until take seconds from the first frame, or epoch seconds:
 * values from 1e9 (September 2001) on are read as the latter. */
static bool is_epoch(double t)
{
	return t >= 1e9;
}

/* T as epoch seconds; false if it counts from a first frame not seen yet. */
static bool epoch_of(double t, const struct rs_select *s, double *epoch)
{
	if (is_epoch(t)) {
		*epoch = t;
		return true;
	}
	if (!s->have_t0)
		return false;
	*epoch = s->t0 / 1e9 + t;
	return true;
}

enum rs_pick rs_select_time(const struct rs_cli_opts *o, struct rs_select *s, uint64_t ts_ns)
{
	if (!o->have_since && !o->have_until)
		return RS_PICK_TAKE;
	if (!s->have_t0) {
		s->t0 = ts_ns;
		s->have_t0 = true;
	}
	double rel = (ts_ns - (double)s->t0) / 1e9, abs = ts_ns / 1e9;
	if (o->have_since && (is_epoch(o->since) ? abs : rel) < o->since)
		return RS_PICK_SKIP;
	if (o->have_until && (is_epoch(o->until) ? abs : rel) >= o->until)
		return RS_PICK_AFTER;
	return RS_PICK_TAKE;
}

bool rs_select_until_passed(const struct rs_cli_opts *o, const struct rs_select *s, double now_epoch)
{
	double end;
	return o->have_until && epoch_of(o->until, s, &end) && now_epoch >= end;
}
