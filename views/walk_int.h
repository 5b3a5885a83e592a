/*
 * walk_int.h — what the files of the classroom walkthrough (--walk / -V)
 * share: the walk's state, the output primitives (fields, bit fields,
 * wrapped explanations, colour) and one entry point per group of layers.
 *
 * Layout of a field line (all output stays within WALK_WIDTH columns):
 *
 *   |    002b  PadCnt              ..10 .... = 2         pad bytes after the payload
 *   |    ^off  ^label (COL_LABEL)  ^value (COL_VALUE)    ^note (COL_NOTE), wrapped
 *
 * The offset is from the first captured byte of the frame, as in the hex dump.
 */
#ifndef RS_WALK_INT_H
#define RS_WALK_INT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "analyzer/analyzer.h"
#include "views/vfeed.h"
#include "views/views.h"

#define WALK_WIDTH 100 /* the default width: a pipe's, a file's */
#define COL_LABEL 10
#define COL_VALUE 32
#define COL_NOTE 58

struct walk {
	FILE *out;
	bool color;
	int width;             /* columns (80 at least; WALK_WIDTH unless told) */
	int64_t qp;            /* --qp, -1: none */
	int64_t conn;          /* --conn, -1: none */
	uint64_t picked;       /* frames of that QP's (or connection's) shown */
	const char *file;
	int dlt;

	bool have_t0;
	uint64_t t0_ns, prev_ns, t0_frame;
	uint64_t frames, roce, other, problems;
	uint64_t explained[4]; /* what was already explained in full in this file (bit per topic) */
	char *cut;             /* why reading this file stopped early, if it did */

	/* What the walk says about how frames belong together comes from an
	 * analyzer of its own, fed the frames it walks (vfeed.h). */
	struct vfeed vf;

	/* The frame being walked, and what the analyzer concluded about it. */
	const struct rs_packet *pkt;
	const struct rs_frame *f;
	struct rs_verdict v;
};

/* ---- output (walk_out.c) ------------------------------------------------- */

/* Rotating scratch buffers for formatted values: valid for a few calls. */
const char *rs_wfmt(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
const char *rs_whex(uint64_t v, int digits);     /* "0x00ff" */
const char *rs_whexdec(uint64_t v, int digits);  /* "0x00ff (255)" */
const char *rs_wbytes(const uint8_t *p, unsigned n, char sep); /* "52:54:00:.." */

void rs_wout(struct walk *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void rs_wsgr(struct walk *w, const char *sgr);   /* colour on, if colour is on */
void rs_wsgr_off(struct walk *w);
const char *rs_wlayer_sgr(unsigned layer_id);

/* The heading of a layer: name, what it stands for, where it is. */
void rs_wtitle(struct walk *w, unsigned layer_id, const char *long_name, uint32_t off, uint32_t len);
void rs_wtitle_named(struct walk *w, unsigned layer_id, const char *name, const char *long_name, uint32_t off,
		  uint32_t len);
/* One field: offset, label, value and an optional note (printf format). */
void rs_wfield(struct walk *w, uint32_t off, const char *label, const char *value, const char *note, ...)
	__attribute__((format(printf, 5, 6)));
/* A bit field of `width` bits at `shift` within `nbytes` bytes starting at
 * `off`: drawn as Wireshark does (".0.. ....") so it maps onto the byte. */
void rs_wbits(struct walk *w, uint32_t off, unsigned nbytes, unsigned shift, unsigned width, uint64_t value,
	   const char *label, const char *note, ...) __attribute__((format(printf, 8, 9)));
/* A plain-language explanation, word-wrapped under a "> " margin. */
void rs_wsay(struct walk *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The same with a different first-line marker (e.g. "!! "), in colour `sgr`. */
void rs_wsay_marked(struct walk *w, const char *mark, const char *sgr, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* Word-wrap `text` starting at column `col` (already reached), continuing
 * lines at column `indent`. */
void rs_wwrap(struct walk *w, int col, int indent, const char *text);

/* Whether bytes were captured: for showing raw bytes (the hex dump, the
 * payload's first characters, pad bytes). Header fields come from the
 * dissector's struct rs_frame, never from the bytes here. */
bool rs_wcap(const struct walk *w, uint32_t off, uint32_t len);

/* ---- layers ---------------------------------------------------------------- */

/* walk_link.c: ERF, Ethernet, VLAN, SLL, IPv4, IPv6, UDP, LRH, GRH, trailer. */
void rs_walk_link_layer(struct walk *w, const struct rs_layer *l, unsigned vlan_index);
/* walk_ib.c: BTH and extension headers (hands the rest to walk_data.c). */
void rs_walk_ib_layer(struct walk *w, const struct rs_layer *l);
const char *rs_walk_dc_pretty(uint8_t opcode); /* "DC RDMA WRITE Only" */
/* walk_data.c: payload, pad, ICRC, VCRC. */
void rs_walk_data_layer(struct walk *w, const struct rs_layer *l);
/* What the operation does, with this packet's numbers (walk_op.c). */
void rs_walk_operation(struct walk *w);
/* The one-line summary after the frame header (walk_op.c). */
void rs_walk_summary(struct walk *w, char *buf, size_t len);
/* walk_cm.c: the MAD header and the CM attribute. */
void rs_walk_mad_layer(struct walk *w, const struct rs_layer *l);
void rs_walk_cm_layer(struct walk *w, const struct rs_layer *l);
const char *rs_walk_mad_attr_name(uint8_t mgmt_class, uint16_t attr_id);
/* proto/nvmeof/nvmeof_walk.c: an NVMe-oF command or response capsule. */
void rs_walk_nvme_layer(struct walk *w, const struct rs_layer *l);
/* An RDMA READ request or WRITE the NVMe-oF target issued: for which command. */
void rs_walk_nvme_transfer(struct walk *w);
/* walk_hex.c: the annotated hex dump. */
void rs_walk_hexdump(struct walk *w);
/* walk_other.c: one line naming a frame that is not RoCE. */
void rs_walk_describe_other(const struct walk *w, char *buf, size_t len);

/* True the first time a kind of layer is explained in this file: the full
 * lesson then, a short frame-specific line afterwards. */
bool rs_walk_first(struct walk *w, unsigned layer_id);
/* Topics other than layers, for rs_walk_first(): ids above the layer ids. */
enum {
	WALK_TOPIC_ACKREQ1 = 40, WALK_TOPIC_ACKREQ0, WALK_TOPIC_IPOIB, WALK_TOPIC_UC, WALK_TOPIC_MSN,
	WALK_TOPIC_NVME_RSP,
	WALK_TOPIC_ULP,           /* a protocol module's lesson (its walk hook) */
	WALK_TOPIC_PAYLOAD = 48,  /* + op kind (< 16) */
	WALK_TOPIC_OP = 64,       /* + op kind * 8 + position: the operation's general sentences */
	WALK_TOPICS = 256,
};
/* `text` the first time `topic` comes up in this file, "" afterwards. */
const char *rs_walk_once(struct walk *w, unsigned topic, const char *text);

/* Small shared helpers. */
const char *rs_walk_addr(const struct rs_addr *a); /* formatted into a scratch buffer */
const char *rs_walk_ecn_name(uint8_t ecn);
const char *rs_walk_pkey_note(uint16_t pkey);
const char *rs_walk_duration(double us);           /* "1.28 ms", "4.29 s" */

#endif
