/*
 * rstest.h — helpers shared by the Check unit tests.
 *
 * Everything a test compares against is computed here from the spec, not by
 * calling the dissector: the CRCs are bit-by-bit implementations written
 * from IBA vol 1 7.8 (independent of dissect/crc.c's table-driven ones), and
 * the ICRC masks are spelled out from IBA 7.8.1 and Annex A17.4.5.2.
 */
#ifndef RS_TEST_SUPPORT_H
#define RS_TEST_SUPPORT_H

#include <check.h>
#include <stddef.h>
#include <stdint.h>

#include "dissect/dissect.h"

/* Where the real captures live, relative to the project root (tests run there). */
#define RT_CAPTURES "../shared/captures/"
#define RT_PUBLIC "../shared/public-captures/"
/* The project's own captures, which every clone has. */
#define RT_SAMPLES "samples/"

/* The tag of the test cases that read ../shared: `make unit` runs them all
 * (and fails when ../shared is absent); `make unit-clone` leaves them out
 * with CK_EXCLUDE_TAGS=shared. */
#define RT_TAG_SHARED "shared"

/* ck_assert_msg() without Check's per-assertion bookkeeping (in fork mode
 * every passing ck_assert writes a checkpoint to a pipe): for the loops
 * that assert millions of times. Fails exactly like ck_assert_msg. */
#define RT_ASSERT(cond, ...)                                                  \
	do {                                                                  \
		if (!(cond))                                                  \
			ck_abort_msg("Assertion '" #cond "' failed: " __VA_ARGS__); \
	} while (0)

/* The stride of the loops that try millions of values: 1, or the
 * RT_SPARSE in the environment (tests/valgrind.py sets it). Under memcheck
 * such a loop runs fifty times slower and finds no more than a sample of it
 * does: the same code paths, each value checked the same way. */
uint64_t rt_sparse(void);

/* Run a suite with Check's defaults (CK_FORK from the environment) and turn
 * the result into main()'s exit status: every unit test's main(). */
int rt_run_suite(Suite *s);

/* ---- byte order ---------------------------------------------------------- */
void rt_be16(uint8_t *p, uint16_t v);
void rt_be32(uint8_t *p, uint32_t v);
void rt_le32(uint8_t *p, uint32_t v);
void rt_le16(uint8_t *p, uint16_t v);
uint32_t rt_get_le32(const uint8_t *p);

/* ---- reference CRCs (bitwise, from the spec) ----------------------------- */
/* CRC-32 of IEEE 802.3: reflected polynomial 0xEDB88320, init and xorout ~0. */
uint32_t rt_crc32(const uint8_t *p, size_t n);
/* VCRC (IBA 7.8.2): CRC-16 polynomial 0x100B, reflected, init/xorout 0xFFFF. */
uint16_t rt_vcrc(const uint8_t *p, size_t n);

/* ICRC of a RoCE v2 packet: `ip` is the IP header, `udp_off` where the UDP
 * header starts (after options / extension headers), `len` the IP datagram
 * length including the 4 ICRC bytes (which are not covered). */
uint32_t rt_icrc_v2(const uint8_t *ip, size_t udp_off, size_t len);
/* ICRC of RoCE v1 (GRH + BTH ...): `len` from the GRH through the ICRC. */
uint32_t rt_icrc_v1(const uint8_t *grh, size_t len);
/* ICRC of a native IB packet: `len` from the LRH through the ICRC (PktLen*4). */
uint32_t rt_icrc_ib(const uint8_t *lrh, size_t len);

/* ---- decoded frames, for the analyzer's tests ----------------------------- */
/* 192.0.2.host */
void rt_set_ip(struct rs_addr *a, int host);
/* A decoded RoCE v2 frame (IPv4, UDP, BTH and its extension headers, a good
 * ICRC) from 192.0.2.from to 192.0.2.to, QP `qpn`. */
struct rs_frame rt_roce_frame(int from, int to, uint8_t opcode, uint32_t qpn, uint32_t psn, uint32_t payload);
/* What rs_mad_decode says of a whole CM MAD: every field held. */
#define RT_CMF_ALL (RS_CMF_HEAD | RS_CMF_SERVICE_ID | RS_CMF_LOCAL_QPN | RS_CMF_START_PSN | RS_CMF_TRANSPORT)

/* ---- frame building ------------------------------------------------------ */
/* Ethernet (IPv4) + IPv4 + UDP 4791 around `t` (BTH .. pad, no ICRC); fills
 * the lengths, the IPv4 header checksum and a correct ICRC. Returns the frame
 * length. The headers are the commented template in rstest.c. */
uint32_t rt_wrap_v2(uint8_t *out, const uint8_t *t, uint32_t tlen);
/* The same packet without the Ethernet header (an IPv4 datagram). */
uint32_t rt_wrap_ipv4(uint8_t *out, const uint8_t *t, uint32_t tlen);
/* Offsets in rt_wrap_v2() frames. */
enum { RT_ETH_LEN = 14, RT_IP_OFF = 14, RT_UDP_OFF = 34, RT_BTH_OFF = 42 };
/* Fill the IPv4 header checksum (RFC 791) of the header at `ip`. */
void rt_ipv4_csum(uint8_t *ip);

/* ---- dissecting ---------------------------------------------------------- */
/* The storage of the extension blocks of the test frame at f (the same for
 * the same address, for the frame's life in a test). */
struct rs_frame_ext *rt_ext_of(const struct rs_frame *f);
/* free() a heap frame, and give its storage back to rt_ext_of(). */
void rt_frame_free(struct rs_frame *f);
/* A hand-built frame's MAD to fill in: f's own (rt_ext_of), holding a copy
 * of the one f pointed to (a frame copied from another), else zeros; f
 * points to it. */
struct rs_mad *rt_mad(struct rs_frame *f);

/* The three MADs of an RC connection's CM handshake, as the decoder leaves
 * them: REQ from host `client` (192.0.2.N, QP 0x12, Starting PSN
 * `client_psn`, Service ID `service_id`) to `server`, REP back (QP 0x11,
 * Starting PSN `server_psn`), RTU; communication IDs 0xabc and 0xdef.
 * out[] keeps their MAD blocks (rt_mad): the caller feeds them in order
 * while out[] lives. */
void rt_cm_handshake(struct rs_frame out[3], uint8_t client, uint8_t server, uint32_t client_psn,
		     uint32_t server_psn, uint64_t service_id);
/* rs_dissect() on a heap copy of exactly `caplen` bytes, so ASan catches any
 * read past the captured bytes. */
enum rs_outcome rt_dissect(const struct rs_dissect_opts *o, int dlt, const uint8_t *pkt, uint32_t caplen,
			   uint32_t wirelen, struct rs_frame *f);
/* rt_dissect(), and when caplen == wirelen also the same frame at every
 * shorter caplen (heap-exact, so ASan sees any over-read), requiring what
 * dissect.h promises of a cut frame: outcome OK, TRUNCATED, NOT_ROCE or the
 * full frame's own outcome; no header the full decode lacks; the BTH, the
 * extension-header set and payload_len as in the full decode; no ICRC
 * verdict before the ICRC is captured. Returns the full frame's outcome. */
enum rs_outcome rt_dissect_all(const struct rs_dissect_opts *o, int dlt, const uint8_t *pkt, uint32_t caplen,
			       uint32_t wirelen, struct rs_frame *f);

/* The outcome and its reason, for assertion messages. */
const char *rt_why(const struct rs_frame *f);

/* Wrap `t` with rt_wrap_v2() and dissect the frame (heap-exact). Returns the
 * outcome; the frame length goes to *len if len is not NULL. */
/* Number of cut frames rt_dissect_all() has checked in this process. */
extern unsigned long rt_cuts_checked;
enum rs_outcome rt_decode_transport(const uint8_t *t, uint32_t tlen, struct rs_frame *f, uint32_t *len);
/* The layers must tile the frame: start at 0, each where the previous one
 * ends, the last ending at the wire length. */
void rt_assert_layers_tile(const struct rs_frame *f);
/* The layer with that id, or NULL. */
const struct rs_layer *rt_layer(const struct rs_frame *f, enum rs_layer_id id);
/* Does the reason (rs_frame_why) contain `needle`? */
bool rt_why_has(const struct rs_frame *f, const char *needle);

/* ---- real captures ------------------------------------------------------- */
typedef void (*rt_frame_fn)(void *ctx, const char *file, unsigned frame_no, int dlt, const uint8_t *pkt,
			    uint32_t caplen, uint32_t wirelen);
/* Call fn for every frame of a capture file (ck_abort if it cannot be read).
 * Returns the number of frames. */
unsigned rt_each_frame(const char *path, rt_frame_fn fn, void *ctx);
/* Every *.pcap under ../shared/captures and ../shared/public-captures, sorted;
 * NULL-terminated, static storage. */
const char *const *rt_all_captures(void);
/* Every .pcap file in samples/, sorted; NULL-terminated, static storage. */
const char *const *rt_sample_captures(void);
/* A test case tagged RT_TAG_SHARED: its tests read ../shared. */
TCase *rt_shared_tcase(const char *name);
/* The file name without its directory. */
const char *rt_basename(const char *path);

#endif
