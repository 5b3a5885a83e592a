/*
 * text.h — what the parts of the text summary share (text.c: the capture,
 * opcodes, connections, remote memory and anomalies; text_qp.c: the queue
 * pairs and their latency; the protocol modules' sections: proto/NAME/NAME_text.c).
 */
#ifndef RS_TEXT_H
#define RS_TEXT_H

#include "report/layout.h"
#include "report/view.h"

#define BOLD(o) ((o)->color ? "\033[1m" : "")
#define RED(o) ((o)->color ? "\033[31m" : "")
#define OFF(o) ((o)->color ? "\033[0m" : "")

/* Where nothing else fits: a terminal narrower than this is laid out for it anyway. */
#define RS_TEXT_MIN_WIDTH 80

void rs_text_qps(FILE *out, const struct rs_view *v);
void rs_text_latency(FILE *out, const struct rs_view *v);
/* text_ulp.c: the queues without CM (their protocol told by shape or --ulp qp:). */
void rs_text_ulp_queues(FILE *out, const struct rs_view *v);
/* Each protocol module's section (its text hook) over its connections and
 * queues, past a dozen the eight with the most trouble and a line for the
 * rest (--full: all). */
void rs_text_modules(FILE *out, const struct rs_view *v);
/* brief.c: for a module's brief hook, whether a kind of operation timed
 * lat is the slowest at its p99 so far; if so b takes its p99 and count
 * (the hook then names it in b->slowest). */
struct rs_proto_brief;
bool rs_brief_slowest(struct rs_proto_brief *b, const struct rs_lat_figures *lat);

/* text_group.c: a group of findings alike (rs_anomaly_groups over
 * v->anomalies) in one sentence, and its head alone (how many, where, what,
 * how large; `brief`: with the cause in a word, without the sum). */
const char *rs_group_head(const struct rs_view *v, const struct rs_anom_group *g, bool brief, char *buf, size_t len);
void rs_group_describe(const struct rs_view *v, const struct rs_anom_group *g, GString *s);
/* Two hosts, "172.17.242.47 → .56" (↔: either way; the second without the
 * first's leading IPv4 octets), or "over N host pairs". */
void rs_text_hosts(const struct rs_view *v, const struct rs_addr *x, const struct rs_addr *y, bool one_way,
		   uint32_t pairs, char *buf, size_t len);
/* brief.c: --brief. */
void rs_text_brief(FILE *out, const struct rs_view *v);

/* Non-zero counts with their words, space-separated ("221 skipped 3 retx
 * 1 NAK"), into buf; "-" when every count is zero. */
struct rs_count_word {
	uint64_t n;
	const char *what;
};
const char *rs_count_words(const struct rs_count_word *p, size_t n, char *buf, size_t len);
/* Whether the summary says each finding and row (--full). */
static inline bool rs_text_full(const struct rs_view *v)
{
	return v->o->text_mode == RS_TEXT_FULL;
}

#endif
