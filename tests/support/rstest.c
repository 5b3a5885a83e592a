/*
 * rstest.c — see rstest.h. Reference implementations written from the spec,
 * deliberately simple (bit by bit), so they share no code with dissect/.
 */
#include "tests/support/rstest.h"

#include <glob.h>
#include <pcap/dlt.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void rt_be16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)(v >> 8); p[1] = (uint8_t)v; }
void rt_be32(uint8_t *p, uint32_t v) { rt_be16(p, (uint16_t)(v >> 16)); rt_be16(p + 2, (uint16_t)v); }
void rt_le16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
void rt_le32(uint8_t *p, uint32_t v) { rt_le16(p, (uint16_t)v); rt_le16(p + 2, (uint16_t)(v >> 16)); }
uint32_t rt_get_le32(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }

uint64_t rt_sparse(void)
{
	const char *e = getenv("RT_SPARSE");
	unsigned long long v = e ? strtoull(e, NULL, 10) : 1;
	return v ? v : 1;
}

/* ---- CRCs ------------------------------------------------------------------ */

static uint32_t crc32_bits(uint32_t crc, const uint8_t *p, size_t n)
{
	while (n--) {
		crc ^= *p++;
		for (int k = 0; k < 8; k++)
			crc = crc & 1 ? (crc >> 1) ^ 0xEDB88320u : crc >> 1;
	}
	return crc;
}

uint32_t rt_crc32(const uint8_t *p, size_t n)
{
	return ~crc32_bits(0xFFFFFFFFu, p, n);
}

uint16_t rt_vcrc(const uint8_t *p, size_t n)
{
	/* 0x100B reflected is 0xD008 (bit i of 0x100B goes to bit 15-i). */
	uint16_t crc = 0xFFFF;
	while (n--) {
		crc ^= *p++;
		for (int k = 0; k < 8; k++)
			crc = crc & 1 ? (uint16_t)((crc >> 1) ^ 0xD008) : (uint16_t)(crc >> 1);
	}
	return (uint16_t)~crc;
}

/* The ICRC input is the packet with its variant fields replaced by ones
 * (IBA 7.8.1); build that masked copy and CRC it in one go. */
static const uint8_t ones8[8] = { 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF };

/* BTH (IBA 9.2) and everything after it up to the ICRC: byte 4 (FECN, BECN,
 * Resv6) is variant. */
static uint32_t crc_bth_on(uint32_t crc, const uint8_t *bth, size_t len)
{
	uint8_t b[12];
	size_t n = len < 12 ? len : 12; /* tests also build packets too short for a BTH */
	memcpy(b, bth, n);
	if (n > 4)
		b[4] = 0xFF;
	crc = crc32_bits(crc, b, n);
	return crc32_bits(crc, bth + n, len - n);
}

/* IPv6 header / GRH: Traffic Class (bits 4..11), Flow Label (12..31) and
 * Hop Limit (byte 7) are variant; Version, Payload Length, Next Header and
 * both addresses are covered. */
static uint32_t crc_grh(uint32_t crc, const uint8_t *g)
{
	uint8_t h[40];
	memcpy(h, g, 40);
	h[0] |= 0x0F;
	h[1] = h[2] = h[3] = 0xFF;
	h[7] = 0xFF;
	return crc32_bits(crc, h, 40);
}

uint32_t rt_icrc_v2(const uint8_t *ip, size_t udp_off, size_t len)
{
	/* Annex A17.4.5.2: 64 bits of ones stand for the LRH RoCE v2 lacks. */
	uint32_t crc = crc32_bits(0xFFFFFFFFu, ones8, 8);
	if (ip[0] >> 4 == 4) {
		/* IPv4: Type of Service (DSCP+ECN), Time to Live and Header
		 * Checksum are variant; options (IHL > 5) are covered as sent. */
		uint8_t h[60];
		memcpy(h, ip, udp_off);
		h[1] = 0xFF;
		h[8] = 0xFF;
		h[10] = h[11] = 0xFF;
		crc = crc32_bits(crc, h, udp_off);
	} else {
		crc = crc_grh(crc, ip);
		crc = crc32_bits(crc, ip + 40, udp_off - 40); /* extension headers as sent */
	}
	uint8_t u[8];
	memcpy(u, ip + udp_off, 8);
	u[6] = u[7] = 0xFF; /* UDP checksum */
	crc = crc32_bits(crc, u, 8);
	crc = crc_bth_on(crc, ip + udp_off + 8, len - udp_off - 8 - 4);
	return ~crc;
}

uint32_t rt_icrc_v1(const uint8_t *grh, size_t len)
{
	uint32_t crc = crc32_bits(0xFFFFFFFFu, ones8, 8);
	crc = crc_grh(crc, grh);
	crc = crc_bth_on(crc, grh + 40, len - 40 - 4);
	return ~crc;
}

uint32_t rt_icrc_ib(const uint8_t *lrh, size_t len)
{
	uint32_t crc = 0xFFFFFFFFu;
	if ((lrh[1] & 3) == 3) {
		/* LNH=3 (global): routers rebuild the LRH, so all of it is
		 * replaced by ones; the GRH is masked as above. */
		crc = crc32_bits(crc, ones8, 8);
		crc = crc_grh(crc, lrh + 8);
		crc = crc_bth_on(crc, lrh + 48, len - 48 - 4);
	} else {
		/* LNH=2 (local): only the VL (upper nibble of byte 0) is variant. */
		uint8_t l[8];
		memcpy(l, lrh, 8);
		l[0] |= 0xF0;
		crc = crc32_bits(crc, l, 8);
		crc = crc_bth_on(crc, lrh + 8, len - 8 - 4);
	}
	return ~crc;
}

/* ---- frame building --------------------------------------------------------- */

static const uint8_t v2_headers[] = {
	/* Ethernet: dst 02:00:00:00:00:02, src 02:00:00:00:00:01, type 0x0800 IPv4 */
	0x02, 0x00, 0x00, 0x00, 0x00, 0x02, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01, 0x08, 0x00,
	/* IPv4: ver 4 / IHL 5, TOS 0x02 (DSCP 0, ECN ECT(0)), total length (filled in) */
	0x45, 0x02, 0x00, 0x00,
	/*       identification 0x1234, flags DF, fragment offset 0 */
	0x12, 0x34, 0x40, 0x00,
	/*       TTL 64, protocol 17 UDP, header checksum (filled in) */
	0x40, 0x11, 0x00, 0x00,
	/*       source 192.0.2.1, destination 192.0.2.2 (RFC 5737 TEST-NET-1) */
	0xC0, 0x00, 0x02, 0x01, 0xC0, 0x00, 0x02, 0x02,
	/* UDP: source port 49152, destination port 4791 (RoCE v2), length (filled in), checksum 0 */
	0xC0, 0x00, 0x12, 0xB7, 0x00, 0x00, 0x00, 0x00,
};

void rt_ipv4_csum(uint8_t *ip)
{
	unsigned hlen = (ip[0] & 0x0F) * 4u;
	uint32_t sum = 0;
	ip[10] = ip[11] = 0;
	for (unsigned i = 0; i < hlen; i += 2)
		sum += (uint32_t)ip[i] << 8 | ip[i + 1];
	while (sum >> 16)
		sum = (sum & 0xFFFF) + (sum >> 16);
	rt_be16(ip + 10, (uint16_t)~sum);
}

uint32_t rt_wrap_ipv4(uint8_t *out, const uint8_t *t, uint32_t tlen)
{
	uint32_t iplen = 20 + 8 + tlen + 4;
	memcpy(out, v2_headers + RT_ETH_LEN, 28);
	rt_be16(out + 2, (uint16_t)iplen);
	rt_ipv4_csum(out);
	rt_be16(out + 24, (uint16_t)(8 + tlen + 4));
	memcpy(out + 28, t, tlen);
	rt_le32(out + 28 + tlen, rt_icrc_v2(out, 20, iplen));
	return iplen;
}

uint32_t rt_wrap_v2(uint8_t *out, const uint8_t *t, uint32_t tlen)
{
	memcpy(out, v2_headers, RT_ETH_LEN);
	return RT_ETH_LEN + rt_wrap_ipv4(out + RT_ETH_LEN, t, tlen);
}

/* ---- dissecting ---------------------------------------------------------------- */

/* Frames are the tests' own variables, and a test reads a frame's blocks
 * long after decoding it: each frame address keeps its storage until
 * rt_frame_free() gives it back (a new address takes a free slot, or the
 * oldest once none is free). */
#define RT_EXT_SLOTS 256

static const struct rs_frame *ext_owner[RT_EXT_SLOTS];
static struct rs_frame_ext ext_slot[RT_EXT_SLOTS];

struct rs_frame_ext *rt_ext_of(const struct rs_frame *f)
{
	static unsigned next;
	unsigned free_slot = RT_EXT_SLOTS;
	for (unsigned i = 0; i < RT_EXT_SLOTS; i++) {
		if (ext_owner[i] == f)
			return &ext_slot[i];
		if (!ext_owner[i] && free_slot == RT_EXT_SLOTS)
			free_slot = i;
	}
	unsigned i = free_slot < RT_EXT_SLOTS ? free_slot : next++ % RT_EXT_SLOTS;
	ext_owner[i] = f;
	return &ext_slot[i];
}

void rt_frame_free(struct rs_frame *f)
{
	for (unsigned i = 0; i < RT_EXT_SLOTS; i++)
		if (ext_owner[i] == f)
			ext_owner[i] = NULL;
	free(f);
}

struct rs_mad *rt_mad(struct rs_frame *f)
{
	struct rs_mad *m = &rt_ext_of(f)->mad;
	if (f->mad != m) {
		if (f->mad)
			*m = *f->mad;
		else
			memset(m, 0, sizeof *m);
		f->mad = m;
	}
	return m;
}

void rt_cm_handshake(struct rs_frame out[3], uint8_t client, uint8_t server, uint32_t client_psn,
		     uint32_t server_psn, uint64_t service_id)
{
	struct rs_frame *req = &out[0], *rep = &out[1], *rtu = &out[2];
	*req = rt_roce_frame(client, server, IBV_OPCODE_UD_SEND_ONLY, 1, 0, 256);
	req->have |= RS_HAVE_MAD | RS_HAVE_CM;
	struct rs_mad *m = rt_mad(req);
	m->is_cm = true;
	m->attr_ok = true;
	m->captured = RS_MAD_SIZE;
	m->fields = RT_CMF_ALL;
	m->hdr.mgmt_class = UMAD_CLASS_CM;
	m->hdr.attr_id = UMAD_CM_ATTR_REQ;
	m->u.req.local_comm_id = 0xabc;
	m->u.req.local_qpn = 0x12;
	m->u.req.starting_psn = client_psn;
	m->u.req.service_id = service_id;
	*rep = *req;
	rt_set_ip(&rep->src, server);
	rt_set_ip(&rep->dst, client);
	m = rt_mad(rep);
	m->hdr.attr_id = UMAD_CM_ATTR_REP;
	memset(&m->u, 0, sizeof m->u);
	m->u.rep.local_comm_id = 0xdef;
	m->u.rep.remote_comm_id = 0xabc;
	m->u.rep.local_qpn = 0x11;
	m->u.rep.starting_psn = server_psn;
	*rtu = *req;
	m = rt_mad(rtu);
	m->hdr.attr_id = UMAD_CM_ATTR_RTU;
	memset(&m->u, 0, sizeof m->u);
	m->u.ids.local_comm_id = 0xabc;
	m->u.ids.remote_comm_id = 0xdef;
}

enum rs_outcome rt_dissect(const struct rs_dissect_opts *o, int dlt, const uint8_t *pkt, uint32_t caplen,
			   uint32_t wirelen, struct rs_frame *f)
{
	uint8_t *copy = malloc(caplen ? caplen : 1);
	ck_assert_ptr_nonnull(copy);
	if (caplen)
		memcpy(copy, pkt, caplen);
	/* For caplen 0 hand over a pointer one past nothing: ASan flags any read. */
	uint8_t *base = caplen ? copy : copy + 1;
	enum rs_outcome r = rs_dissect(o, dlt, base, caplen, wirelen, f, rt_ext_of(f));
	free(copy);
	return r;
}

unsigned long rt_cuts_checked;

/* The same cut with the record's original length rewritten to it, as
 * hardware sniffers write them: decoded only where the UDP length vouches
 * for the IP length (RoCE v2) or the GRH PayLen / LRH PktLen is within an
 * IBA packet (v1, IB), then with the whole frame's transport fields and
 * its wire length from those lengths; never a different decode. */
static void rewritten_cut(const struct rs_dissect_opts *o, int dlt, const uint8_t *pkt, uint32_t cut,
			  const struct rs_frame *f, struct rs_frame *g)
{
	enum rs_outcome r = rt_dissect(o, dlt, pkt, cut, cut, g);
	uint32_t icrc_end = f->bth_off + f->transport_len;
	if (r != RS_OK || !(g->have & RS_HAVE_BTH))
		return;
	RT_ASSERT(g->bth.opcode == f->bth.opcode && g->bth.psn == f->bth.psn && g->bth.destqp == f->bth.destqp &&
			  g->transport_len == f->transport_len && g->payload_len == f->payload_len,
		  "cut to %u (record rewritten): BTH or payload differs from the whole frame's", cut);
	if (cut < icrc_end) {
		/* v1 and IB by the GRH PayLen / LRH PktLen; IB's VCRC follows the
		 * ICRC, and an ERF record's header was never on the wire. */
		uint32_t wire_end = icrc_end + (f->roce == RS_ROCE_IB ? 2u : 0u) -
				    ((f->have & RS_HAVE_ERF) ? f->erf_hdr : 0u);
		RT_ASSERT(g->sliced == RS_SLICE_REWRITTEN && g->roce == f->roce,
			  "cut to %u (record rewritten): decoded, sliced %u", cut, g->sliced);
		RT_ASSERT(rs_frame_wirelen(g, cut) == wire_end, "cut to %u (record rewritten): wire length %u, the "
			  "packet's lengths end it at %u", cut, rs_frame_wirelen(g, cut), wire_end);
	}
}

enum rs_outcome rt_dissect_all(const struct rs_dissect_opts *o, int dlt, const uint8_t *pkt, uint32_t caplen,
			       uint32_t wirelen, struct rs_frame *f)
{
	enum rs_outcome full = rt_dissect(o, dlt, pkt, caplen, wirelen, f);
	if (caplen != wirelen)
		return full;
	struct rs_frame *g = malloc(sizeof *g);
	uint32_t icrc_end = f->bth_off + f->transport_len;
	for (uint32_t cut = 0; cut < caplen; cut++) {
		enum rs_outcome r = rt_dissect(o, dlt, pkt, cut, wirelen, g);
		rt_cuts_checked++;
		RT_ASSERT(r == RS_OK || r == RS_TRUNCATED || r == RS_NOT_ROCE || r == full,
			  "cut to %u of %u bytes: %s (whole frame: %s)", cut, caplen, rt_why(g),
			  rs_outcome_name(full));
		RT_ASSERT((g->have & ~f->have) == 0, "cut to %u: headers 0x%x, whole frame 0x%x", cut, g->have,
			  f->have);
		if (g->have & RS_HAVE_BTH)
			RT_ASSERT(g->bth.opcode == f->bth.opcode && g->bth.psn == f->bth.psn &&
					  g->bth.destqp == f->bth.destqp && g->bth.padcnt == f->bth.padcnt &&
					  g->bth_off == f->bth_off && g->transport_len == f->transport_len,
				  "cut to %u: BTH differs", cut);
		if (g->have & RS_HAVE_EXT)
			RT_ASSERT(g->ext == f->ext && g->payload_len == f->payload_len &&
					  g->payload_off == f->payload_off,
				  "cut to %u: ext 0x%x payload %u, whole frame ext 0x%x payload %u", cut, g->ext,
				  g->payload_len, f->ext, f->payload_len);
		if (cut < icrc_end || !(f->have & RS_HAVE_BTH))
			RT_ASSERT(g->icrc_status == RS_CRC_UNCHECKED, "cut to %u: ICRC %s", cut,
				  rs_crc_status_name((enum rs_crc_status)g->icrc_status));
		if (r == RS_OK && full == RS_OK && (f->have & RS_HAVE_BTH) && cut < icrc_end)
			RT_ASSERT(g->sliced == RS_SLICE_SNAPLEN, "cut to %u: decoded, but not marked sliced", cut);
		rewritten_cut(o, dlt, pkt, cut, f, g);
	}
	rt_frame_free(g);
	return rt_dissect(o, dlt, pkt, caplen, wirelen, f);
}

const char *rt_why(const struct rs_frame *f)
{
	static char buf[300];
	char why[256];
	rs_frame_why(f, why, sizeof why);
	snprintf(buf, sizeof buf, "%s: %s", rs_outcome_name((enum rs_outcome)f->outcome), why);
	return buf;
}

enum rs_outcome rt_decode_transport(const uint8_t *t, uint32_t tlen, struct rs_frame *f, uint32_t *len)
{
	uint8_t buf[4096];
	ck_assert_uint_le(tlen + 64, sizeof buf);
	uint32_t n = rt_wrap_v2(buf, t, tlen);
	if (len)
		*len = n;
	return rt_dissect_all(NULL, DLT_EN10MB, buf, n, n, f);
}

void rt_assert_layers_tile(const struct rs_frame *f)
{
	uint32_t at = 0;
	ck_assert_ptr_nonnull(f->walk);
	ck_assert_uint_gt(f->walk->nlayers, 0);
	for (unsigned i = 0; i < f->walk->nlayers; i++) {
		ck_assert_msg(f->walk->layers[i].off == at, "layer %u (%s) starts at %u, previous ended at %u", i,
			      rs_layer_name((enum rs_layer_id)f->walk->layers[i].id), f->walk->layers[i].off, at);
		at += f->walk->layers[i].len;
	}
	ck_assert_msg(at == f->wirelen, "layers end at %u, the frame at %u", at, f->wirelen);
}

const struct rs_layer *rt_layer(const struct rs_frame *f, enum rs_layer_id id)
{
	for (unsigned i = 0; f->walk && i < f->walk->nlayers; i++)
		if (f->walk->layers[i].id == id)
			return &f->walk->layers[i];
	return NULL;
}

bool rt_why_has(const struct rs_frame *f, const char *needle)
{
	char why[256];
	rs_frame_why(f, why, sizeof why);
	return strstr(why, needle) != NULL;
}

/* ---- captures ------------------------------------------------------------------- */

unsigned rt_each_frame(const char *path, rt_frame_fn fn, void *ctx)
{
	char err[PCAP_ERRBUF_SIZE];
	pcap_t *p = pcap_open_offline(path, err);
	if (!p)
		ck_abort_msg("cannot open %s: %s", path, err);
	int dlt = pcap_datalink(p);
	struct pcap_pkthdr *h;
	const u_char *data;
	unsigned n = 0;
	int r;
	while ((r = pcap_next_ex(p, &h, &data)) == 1)
		fn(ctx, path, ++n, dlt, data, h->caplen, h->len);
	if (r == PCAP_ERROR) {
		char msg[PCAP_ERRBUF_SIZE + 64];
		snprintf(msg, sizeof msg, "%s", pcap_geterr(p));
		pcap_close(p);
		ck_abort_msg("reading %s: %s", path, msg);
	}
	pcap_close(p);
	return n;
}

const char *const *rt_all_captures(void)
{
	static const char *list[128];
	static glob_t g;
	static int done;
	if (!done) {
		int r = glob(RT_CAPTURES "*.pcap", 0, NULL, &g);
		ck_assert_msg(r == 0, "no captures under " RT_CAPTURES " (run from the project root)");
		r = glob(RT_PUBLIC "*.pcap", GLOB_APPEND, NULL, &g);
		ck_assert_msg(r == 0, "no captures under " RT_PUBLIC);
		ck_assert_uint_lt(g.gl_pathc, 128);
		for (size_t i = 0; i < g.gl_pathc; i++)
			list[i] = g.gl_pathv[i];
		done = 1;
	}
	return list;
}

const char *const *rt_sample_captures(void)
{
	static const char *list[128];
	static glob_t g;
	static int done;
	if (!done) {
		int r = glob(RT_SAMPLES "*.pcap", 0, NULL, &g);
		ck_assert_msg(r == 0, "no captures under " RT_SAMPLES " (run from the project root)");
		ck_assert_uint_lt(g.gl_pathc, 128);
		for (size_t i = 0; i < g.gl_pathc; i++)
			list[i] = g.gl_pathv[i];
		done = 1;
	}
	return list;
}

TCase *rt_shared_tcase(const char *name)
{
	TCase *tc = tcase_create(name);
	tcase_set_tags(tc, RT_TAG_SHARED);
	return tc;
}

const char *rt_basename(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

int rt_run_suite(Suite *s)
{
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

void rt_set_ip(struct rs_addr *a, int host)
{
	memset(a, 0, sizeof *a);
	a->kind = RS_ADDR_IPV4;
	a->b[0] = 192;
	a->b[2] = 2;
	a->b[3] = (uint8_t)host;
}

struct rs_frame rt_roce_frame(int from, int to, uint8_t opcode, uint32_t qpn, uint32_t psn, uint32_t payload)
{
	struct rs_frame f;
	memset(&f, 0, sizeof f);
	f.outcome = RS_OK;
	f.roce = RS_ROCE_V2;
	f.have = RS_HAVE_IPV4 | RS_HAVE_UDP | RS_HAVE_BTH | RS_HAVE_EXT | RS_HAVE_ICRC;
	f.ip_version = 4;
	rt_set_ip(&f.src, from);
	rt_set_ip(&f.dst, to);
	f.bth.opcode = opcode;
	f.bth.destqp = qpn;
	f.bth.psn = psn & 0xFFFFFF;
	f.bth.pkey = 0xFFFF;
	f.ext = rs_opinfo(opcode)->ext;
	f.payload_len = payload;
	f.icrc_status = RS_CRC_OK;
	return f;
}
