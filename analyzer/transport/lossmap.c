/*
 * lossmap.c — the request PSNs a stream skipped, and what became of them:
 * which of them later showed up (a late packet, or a re-send) and which the
 * responder settled: acknowledged without a NAK naming them (the capture
 * missed them), or named by a PSN sequence error NAK (lost in the network).
 * psn.c and resend.c use it; it calls nothing else in the analyzer but the
 * counters it keeps. The evidence rules (man page, HOW ROCESTAT DECIDES):
 * the capture is blamed only for request PSNs an ACK covers that no NAK
 * named and no re-send showed.
 */
#include <string.h>

#include "analyzer/transport/transport.h"

const struct rs_psn_loss rs_psn_no_loss;

void rs_lossmap_mark(struct rs_psn_loss *s, uint32_t from, uint32_t n)
{
	if (!s->lost)
		s->lost = g_new0(struct rs_lossmap, 1);
	struct rs_lossmap *l = s->lost;
	uint32_t off = (uint32_t)rs_psn_diff(from, l->base);
	/* Re-base when the new gap does not fit behind the old ones (the PSNs
	 * forgotten so stay undetermined). */
	if (rs_psn_diff(from, l->base) < 0 || off + (n < RS_LOSSMAP_BITS ? n : RS_LOSSMAP_BITS) > RS_LOSSMAP_BITS) {
		memset(l->bits, 0, sizeof l->bits);
		l->base = from;
		l->pending = 0;
		s->nak_named = false;
		off = 0;
	}
	for (uint32_t i = 0; i < n && off + i < RS_LOSSMAP_BITS; i++) {
		uint64_t bit = 1ull << ((off + i) % 64);
		l->pending += !(l->bits[(off + i) / 64] & bit);
		l->bits[(off + i) / 64] |= bit;
	}
}

bool rs_lossmap_has(const struct rs_lossmap *l, uint32_t psn)
{
	int32_t off = rs_psn_diff(psn, l->base);
	return off >= 0 && off < RS_LOSSMAP_BITS && (l->bits[off / 64] >> (off % 64) & 1);
}

/* Was this PSN reported missing? If so, it is seen now. */
bool rs_lossmap_take(struct rs_psn_loss *s, uint32_t psn)
{
	struct rs_lossmap *l = s->lost;
	if (!l || !rs_lossmap_has(l, psn))
		return false;
	int32_t off = rs_psn_diff(psn, l->base);
	l->bits[off / 64] &= ~(1ull << (off % 64));
	l->pending--;
	return true;
}

/* The highest PSN at or below `upto` still missing here, if any. */
bool rs_lossmap_last(const struct rs_lossmap *l, uint32_t upto, uint32_t *psn)
{
	if (!l || !l->pending)
		return false;
	int32_t end = rs_psn_diff(upto, l->base);
	if (end < 0)
		return false;
	if (end >= RS_LOSSMAP_BITS)
		end = RS_LOSSMAP_BITS - 1;
	for (int32_t w = end / 64; w >= 0; w--) {
		uint64_t bits = l->bits[w];
		if (w == end / 64 && end % 64 != 63)
			bits &= (1ull << (end % 64 + 1)) - 1;
		if (bits) {
			*psn = (l->base + (uint32_t)(w * 64 + 63 - __builtin_clzll(bits))) & RS_PSN_MASK;
			return true;
		}
	}
	return false;
}

/* A READ request behind the expected PSN (late, or asked again) reserves
 * the PSNs after its own for its responses (IBA 9.7.1): those the stream
 * skipped were never request PSNs to miss, whatever became of the READ's
 * first sending. They leave the skipped count. */
void rs_lossmap_read_reserves(struct rs_analyzer *a, struct rs_psn *s, uint32_t psn, uint32_t adv)
{
	struct rs_psn_loss *l = s->loss;
	if (!l || !l->lost || !l->lost->pending)
		return;
	/* Only the PSNs inside the map's window can be taken: a READ of 2 GiB
	 * reserves millions of PSNs, the map holds RS_LOSSMAP_BITS. */
	int32_t lo = rs_psn_diff(l->lost->base, psn);
	uint32_t first = lo > 1 ? (uint32_t)lo : 1;
	uint32_t last = lo + RS_LOSSMAP_BITS > 0 ? (uint32_t)(lo + RS_LOSSMAP_BITS) : 0;
	if (last > adv)
		last = adv;
	for (uint32_t k = first; k < last; k++) {
		if (!rs_lossmap_take(l, (psn + k) & RS_PSN_MASK))
			continue;
		l->missing--;
		a->psns.missing--;
		l->read_reserved++;
	}
}

/* ---- capture completeness -------------------------------------------------- */

/*
 * A PSN missing here was either lost on the way to this capture point or
 * never recorded by the capture (ibdump and the RDMA sniffer drop packets
 * under load, and say nothing). The responder tells which: its cumulative
 * ACK (and the implicit one of a NAK, IBA 9.7.5.2) says it received every
 * PSN before; a PSN sequence error NAK names the PSN it did not receive. So
 * a missing PSN that an ACK covers and no NAK named, never seen re-sent, was
 * dropped by the capture, not by the network.
 */
void rs_psn_settle(struct rs_analyzer *a, struct rs_flow *req, uint32_t upto)
{
	struct rs_psn_loss *s = req->req.loss;
	struct rs_lossmap *l = s ? s->lost : NULL;
	if (!l || !l->pending)
		return;
	int32_t end = rs_psn_diff(upto, l->base);
	if (end <= 0)
		return;
	if (end > RS_LOSSMAP_BITS)
		end = RS_LOSSMAP_BITS;
	uint64_t n = 0;
	if (s->nak_named && rs_psn_diff(s->nak_psn, upto) < 0 && rs_lossmap_take(s, s->nak_psn)) {
		s->unseen_lost++;
		a->psns.unseen_lost++;
	}
	s->nak_named = s->nak_named && rs_psn_diff(s->nak_psn, upto) >= 0;
	for (int32_t w = 0; w * 64 < end && l->pending; w++) {
		uint64_t mask = end - w * 64 >= 64 ? ~0ull : (1ull << (end - w * 64)) - 1;
		uint32_t k = (uint32_t)__builtin_popcountll(l->bits[w] & mask);
		l->bits[w] &= ~mask;
		l->pending -= k;
		n += k;
	}
	s->uncaptured += n;
	a->psns.uncaptured += n;
}

/* A NAK acknowledges every PSN before its own (IBA 9.7.5.2); a PSN sequence
 * error names a PSN that never arrived, the other codes one that arrived and
 * failed (Table 43). */
void rs_psn_settle_nak(struct rs_analyzer *a, struct rs_flow *req, uint32_t psn, uint8_t code)
{
	rs_psn_settle(a, req, code ? (psn + 1) & RS_PSN_MASK : psn);
	if (code)
		return;
	struct rs_psn_loss *s = req->req.loss;
	if (s && s->lost && rs_lossmap_has(s->lost, psn)) {
		s->nak_psn = psn;
		s->nak_named = true;
	}
}
