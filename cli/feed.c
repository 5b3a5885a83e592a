/*
 * feed.c — what the producers (run.c's files, livefeed.c's capture) and the
 * delivery share: the messages, posting them, decoding their frames and
 * delivering them to the sink. pipeline.c runs them, in one thread or two.
 */
#include <glib.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/feed.h"

void rs_feed_msg_init(struct rs_feed_msg *m, size_t bytes)
{
	memset(m, 0, sizeof *m);
	m->pkt = g_new(struct rs_packet, RS_BATCH);
	m->f = g_new(struct rs_frame, RS_BATCH);
	m->x = g_new(struct rs_frame_ext, RS_BATCH);
	if (bytes) {
		m->undecoded = g_new(uint8_t, RS_BATCH);
		m->bytes = g_malloc(bytes);
		m->room = bytes;
	}
}

void rs_feed_msg_clear(struct rs_feed_msg *m)
{
	g_free(m->pkt);
	g_free(m->f);
	g_free(m->x);
	g_free(m->undecoded);
	g_free(m->bytes);
}

/* ---- producing ------------------------------------------------------------ */

bool rs_feed_post(struct rs_feed *fd)
{
	fd->m = fd->post(fd, fd->m);
	if (!fd->m)
		return false;
	fd->m->kind = RS_FEED_FRAMES;
	fd->m->n = 0;
	fd->m->nundecoded = 0;
	fd->m->used = 0;
	fd->m->full = false;
	fd->m->idle = false;
	return true;
}

bool rs_feed_room(struct rs_feed *fd, uint32_t caplen)
{
	if (!fd->keep_bytes)
		return true;
	struct rs_feed_msg *m = fd->m;
	/* The bytes in use end with the last frame kept: one copied and then
	 * left out (--since/--until, after its decoded time) is taken back. */
	m->used = m->n ? (size_t)(m->pkt[m->n - 1].data - m->bytes) + m->pkt[m->n - 1].caplen : 0;
	if (m->n && m->used + caplen > m->room) {
		m->full = true;
		if (!rs_feed_post(fd))
			return false;
		m = fd->m;
	}
	if (caplen > m->room) { /* the slot is empty: none of its bytes is in use */
		m->bytes = g_realloc(m->bytes, caplen);
		m->room = caplen;
	}
	return true;
}

bool rs_feed_flush(struct rs_feed *fd)
{
	return !fd->m || fd->m->n == 0 ? fd->m != NULL : rs_feed_post(fd);
}

bool rs_feed_event(struct rs_feed *fd, enum rs_feed_msg_kind kind, const char *name, const char *text)
{
	if (!rs_feed_flush(fd))
		return false;
	struct rs_feed_msg *m = fd->m;
	m->kind = kind;
	m->name = name;
	snprintf(m->text, sizeof m->text, "%s", text ? text : "");
	return rs_feed_post(fd);
}

bool rs_feed_stopped(const struct rs_feed *fd)
{
	return fd->stopped && *fd->stopped;
}

/* Frame i of the message decoded from its bytes: by the producer as it
 * takes the frame, or by the delivering side for one left undecoded. */
static void decode(const struct rs_dissect_opts *o, struct rs_feed_msg *m, uint32_t i)
{
	const struct rs_packet *pkt = &m->pkt[i];
	rs_dissect(o, pkt->dlt, pkt->data, pkt->caplen, pkt->wirelen, &m->f[i], &m->x[i]);
}

#define WRITE_AHEAD 4

/* Put pkt at m->n, its bytes copied into the message when the sink keeps
 * them (rs_feed_room made room) or when fd->defer asks for it and they
 * fit. True: left for the delivering side to decode (fd->defer). Else
 * false, and the caller decodes it into m->f[m->n]. */
static bool defer(struct rs_feed *fd, struct rs_feed_msg *m, const struct rs_packet *pkt)
{
	uint32_t i = m->n;
	m->pkt[i] = *pkt;
	bool fits = m->used + pkt->caplen <= (fd->keep_bytes ? m->room : RS_DEFER_BYTES);
	/* rs_feed_room() made room: the sink is never handed the reader's
	 * bytes, which are gone once it reads on. */
	g_assert(fits || !fd->keep_bytes);
	if (fits && (fd->keep_bytes || fd->defer)) {
		memcpy(m->bytes + m->used, pkt->data, pkt->caplen);
		m->pkt[i].data = m->bytes + m->used;
		m->used += pkt->caplen;
	}
	if (fits && fd->defer) {
		m->undecoded[i] = 1;
		m->nundecoded++;
		return true;
	}
	if (m->undecoded)
		m->undecoded[i] = 0;
	/* The caller decodes into the slot's frame i; the frame a few ahead
	 * was last read by the other thread: its lines are asked for now
	 * rather than waited for at each store. */
	if (i + WRITE_AHEAD < fd->batch)
		rs_frame_prefetch_write(&m->f[i + WRITE_AHEAD]);
	return false;
}

enum rs_pick rs_feed_take(struct rs_feed *fd, struct rs_feed_msg *m, const struct rs_packet *pkt,
			  struct rs_select *sel)
{
	const struct rs_cli_opts *o = fd->o;
	uint32_t i = m->n;
	if (defer(fd, m, pkt))
		return RS_PICK_TAKE;
	decode(&o->dissect, m, i);
	enum rs_pick pick = RS_PICK_TAKE;
	if (sel && (o->have_since || o->have_until))
		pick = rs_select_time(o, sel, rs_frame_time_ns(&m->f[i], pkt->ts_ns));
	if (fd->batch > 1 && !fd->keep_bytes)
		m->pkt[i].data = NULL;
	return pick;
}

/* ---- delivering ------------------------------------------------------------ */

static void worse(int *rc, int code)
{
	if (code > *rc)
		*rc = code; /* RS_EXIT_INPUT > RS_EXIT_ANOMALIES > RS_EXIT_OK */
}

static void deliver_frames(struct rs_delivery *d, struct rs_feed_msg *m)
{
	const struct rs_sink *s = d->sink;
	for (uint32_t i = 0; m->nundecoded && i < m->n; i++)
		if (m->undecoded[i]) {
			decode(d->dissect, m, i);
			if (!s->reads_bytes)
				m->pkt[i].data = NULL;
		}
	for (uint32_t i = 0; i < m->n; i++)
		if (m->f[i].outcome != RS_OK && m->f[i].outcome != RS_NOT_ROCE)
			worse(&d->rc, RS_EXIT_ANOMALIES);
	if (m->n && !d->stopped && !s->frames(s->ctx, m->pkt, m->f, m->n))
		d->stopped = true;
	if (m->idle)
		rs_sink_event(s, &(struct rs_sink_event){ .kind = RS_SINK_IDLE });
	/* The analysis heap grows as frames come: mark it every 4096 frames. */
	if ((d->frames >> 12) != ((d->frames + m->n) >> 12))
		rs_heap_hugepages_update();
	d->frames += m->n;
}

/* The events of a file (run.c), said on standard error first. */
static void deliver_file_event(struct rs_delivery *d, struct rs_feed_msg *m)
{
	struct rs_sink_event ev = { .name = m->name, .message = m->text, .frame_no = m->frame_no, .count = m->count };
	switch (m->kind) {
	case RS_FEED_WARNING:
		rs_eprintf("rocestat: %s\n", m->text);
		ev.kind = RS_SINK_WARNING;
		worse(&d->rc, RS_EXIT_ANOMALIES);
		break;
	case RS_FEED_FILE_ERROR:
		rs_eprintf("rocestat: %s; the frames before it were analysed\n", m->text);
		ev.kind = RS_SINK_FILE_ERROR;
		worse(&d->rc, RS_EXIT_INPUT);
		break;
	case RS_FEED_OPEN_ERROR:
		rs_eprintf("rocestat: %s\n", m->text);
		ev.kind = RS_SINK_OPEN_ERROR;
		worse(&d->rc, RS_EXIT_INPUT);
		break;
	default:
		return;
	}
	rs_sink_event(d->sink, &ev);
}

bool rs_deliver(struct rs_delivery *d, struct rs_feed_msg *m)
{
	const struct rs_sink *s = d->sink;
	switch (m->kind) {
	case RS_FEED_FRAMES:
		deliver_frames(d, m);
		break;
	case RS_FEED_BEGIN:
		rs_sink_event(s, &(struct rs_sink_event){ .kind = RS_SINK_BEGIN, .name = m->name, .dlt = m->dlt });
		break;
	case RS_FEED_WARNING:
	case RS_FEED_FILE_ERROR:
	case RS_FEED_OPEN_ERROR:
		deliver_file_event(d, m);
		break;
	case RS_FEED_NOTE:
		rs_eprintf("rocestat: %s\n", m->text);
		break;
	case RS_FEED_END:
		rs_sink_event(s, &(struct rs_sink_event){ .kind = RS_SINK_END, .name = m->name });
		break;
	case RS_FEED_USAGE:
		rs_eprintf("rocestat: %s\n", m->text);
		d->rc = RS_EXIT_USAGE;
		d->stopped = true;
		break;
	case RS_FEED_TICK:
		if (m->have_stats)
			rs_sink_event(s, &(struct rs_sink_event){ .kind = RS_SINK_STATS, .stats = &m->stats });
		rs_sink_event(s, &(struct rs_sink_event){ .kind = RS_SINK_TICK, .now_ns = m->now_ns });
		break;
	case RS_FEED_ERROR:
		rs_eprintf("rocestat: %s\n", m->text);
		worse(&d->rc, RS_EXIT_INPUT);
		break;
	case RS_FEED_DONE:
		break;
	}
	return !d->stopped;
}
