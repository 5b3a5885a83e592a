/*
 * check_nvmeof.c — proto/nvmeof/nvmeof_dissect.c: NVMe-oF capsules in RC SENDs, built
 * here byte by byte from the layouts of NVMe 1.4 (4.2 submission queue
 * entry, 4.4 SGL descriptors, 4.6 completion queue entry) and NVMe over
 * Fabrics 1.1 (3.3 Connect), little-endian as the spec says; what is not a
 * capsule; a capsule cut by the capture (truncated) apart from one whose
 * in-capsule SGL lies (malformed); the IANA ports of the upper-layer
 * protocols.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "dissect/dissect.h"
#include "proto/proto.h"
#include "tests/support/rstest.h"

#define BTH 12

static void put_le(uint8_t *p, uint64_t v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* BTH (IBA 9.2) of an RC packet with `opcode`, DestQP 0x11, PSN 5. */
static void bth(uint8_t *t, uint8_t opcode)
{
	memset(t, 0, BTH);
	t[0] = opcode;
	t[2] = t[3] = 0xFF;
	t[7] = 0x11;
	t[11] = 5;
}

/* An SQE: Read (I/O opcode 02h), CID 0x1234, NSID 1, keyed SGL (type 4,
 * sub type 0) at 0x1122334455667788, 8192 bytes, key 0xA1B2C3D4, SLBA 0x10,
 * 16 blocks (NLB 15, 0's based). */
static void read_sqe(uint8_t *s)
{
	memset(s, 0, 64);
	s[0] = 0x02;
	s[1] = 0x40;                        /* PSDT 01b: SGL */
	put_le(s + 2, 0x1234, 2);
	put_le(s + 4, 1, 4);
	put_le(s + 24, 0x1122334455667788ull, 8);
	put_le(s + 32, 8192, 3);
	put_le(s + 35, 0xA1B2C3D4u, 4);
	s[39] = 0x40;
	put_le(s + 40, 0x10, 8);            /* CDW10-11: SLBA */
	put_le(s + 48, 15, 2);              /* CDW12: NLB */
}

static void decode(const uint8_t *t, uint32_t tlen, struct rs_frame *f)
{
	ck_assert_msg(rt_decode_transport(t, tlen, f, NULL) == RS_OK, "%s", rt_why(f));
	rt_assert_layers_tile(f);
}

START_TEST(test_keyed_command)
{
	uint8_t t[BTH + 64];
	struct rs_frame f;
	bth(t, 0x04);
	read_sqe(t + BTH);
	decode(t, sizeof t, &f);
	ck_assert(rs_frame_pdu(&f, RS_PDU_NVME));
	ck_assert_uint_eq(f.pdu->nvme.kind, RS_NVME_CMD);
	ck_assert_uint_eq(f.pdu->nvme.state, RS_NVME_OK);
	ck_assert_uint_eq(f.pdu->nvme.opcode, 0x02);
	ck_assert_uint_eq(f.pdu->nvme.cid, 0x1234);
	ck_assert_uint_eq(f.pdu->nvme.nsid, 1);
	ck_assert(rs_nvme_keyed(&f.pdu->nvme));
	ck_assert(f.pdu->nvme.sgl_addr == 0x1122334455667788ull);
	ck_assert_uint_eq(f.pdu->nvme.sgl_len, 8192);
	ck_assert_uint_eq(f.pdu->nvme.sgl_key, 0xA1B2C3D4u);
	ck_assert_uint_eq(f.pdu->nvme.cdw10, 0x10);
	ck_assert_uint_eq(f.pdu->nvme.cdw12 & 0xFFFF, 15);
	ck_assert_uint_eq(f.pdu->nvme.incapsule, 0);
	const struct rs_layer *l = rt_layer(&f, RS_L_NVME);
	ck_assert_ptr_nonnull(l);
	ck_assert_uint_eq(l->off, RT_BTH_OFF + BTH);
	ck_assert_uint_eq(l->len, 64);
	ck_assert_ptr_null(rt_layer(&f, RS_L_PAYLOAD));
}
END_TEST

/* Fabrics Connect (opcode 7Fh, FCTYPE 01h at byte 4; QID at 42, SQSIZE at
 * 44) with 1024 bytes of in-capsule data (SGL data block, sub type 1). */
START_TEST(test_connect_in_capsule)
{
	static uint8_t t[BTH + 64 + 1024];
	struct rs_frame f;
	memset(t, 0, sizeof t);
	bth(t, 0x04);
	uint8_t *s = t + BTH;
	s[0] = 0x7F;
	s[1] = 0x40;
	put_le(s + 2, 7, 2);
	s[4] = 0x01;
	put_le(s + 24, 0, 8);
	put_le(s + 32, 1024, 4);
	s[39] = 0x01;
	put_le(s + 42, 3, 2);
	put_le(s + 44, 127, 2);
	decode(t, sizeof t, &f);
	ck_assert(rs_frame_pdu(&f, RS_PDU_NVME));
	ck_assert_uint_eq(f.pdu->nvme.kind, RS_NVME_CMD);
	ck_assert_uint_eq(f.pdu->nvme.state, RS_NVME_OK);
	ck_assert_uint_eq(f.pdu->nvme.fctype, 0x01);
	ck_assert_uint_eq(f.pdu->nvme.cid, 7);
	ck_assert_uint_eq(f.pdu->nvme.connect_qid, 3);
	ck_assert_uint_eq(f.pdu->nvme.cdw11 & 0xFFFF, 127);
	ck_assert(rs_nvme_incapsule(&f.pdu->nvme));
	ck_assert_uint_eq(f.pdu->nvme.sgl_len, 1024);
	ck_assert_uint_eq(f.pdu->nvme.incapsule, 1024);
	const struct rs_layer *p = rt_layer(&f, RS_L_PAYLOAD);
	ck_assert_ptr_nonnull(p);
	ck_assert_uint_eq(p->off, RT_BTH_OFF + BTH + 64);
	ck_assert_uint_eq(p->len, 1024);
}
END_TEST

/* An in-capsule SGL longer than the data after the SQE: malformed in a
 * SEND Only (the whole message), not in a SEND First (the rest follows). */
START_TEST(test_in_capsule_lies)
{
	uint8_t t[BTH + 64 + 100];
	struct rs_frame f;
	memset(t, 0, sizeof t);
	bth(t, 0x04);
	uint8_t *s = t + BTH;
	s[0] = 0x01;
	s[1] = 0x40;
	put_le(s + 32, 4096, 4);
	s[39] = 0x01;
	decode(t, sizeof t, &f);
	ck_assert(rs_frame_pdu(&f, RS_PDU_NVME));
	ck_assert_uint_eq(f.pdu->nvme.kind, RS_NVME_CMD);
	ck_assert_uint_eq(f.pdu->nvme.state, RS_NVME_BAD);
	ck_assert_ptr_nonnull(f.pdu->nvme.why);
	bth(t, 0x00); /* SEND First */
	decode(t, sizeof t, &f);
	ck_assert(rs_frame_pdu(&f, RS_PDU_NVME));
	ck_assert_uint_eq(f.pdu->nvme.kind, RS_NVME_CMD);
	ck_assert_uint_eq(f.pdu->nvme.state, RS_NVME_OK);
}
END_TEST

/* A CQE: DW0 0xCAFE, SQHD 9, SQID 1, CID 0x1234, status: phase 1, SC 80h
 * (LBA Out of Range), SCT 0, DNR: Status Field bits 15:1 = 0x4080. */
START_TEST(test_response)
{
	uint8_t t[BTH + 16];
	struct rs_frame f;
	bth(t, 0x04);
	uint8_t *c = t + BTH;
	memset(c, 0, 16);
	put_le(c, 0xCAFE, 4);
	put_le(c + 8, 9, 2);
	put_le(c + 10, 1, 2);
	put_le(c + 12, 0x1234, 2);
	put_le(c + 14, (0x4080u << 1) | 1, 2);
	decode(t, sizeof t, &f);
	ck_assert(rs_frame_pdu(&f, RS_PDU_NVME));
	ck_assert_uint_eq(f.pdu->nvme.kind, RS_NVME_RSP);
	ck_assert_uint_eq(f.pdu->nvme.dw0, 0xCAFE);
	ck_assert_uint_eq(f.pdu->nvme.sqhd, 9);
	ck_assert_uint_eq(f.pdu->nvme.sqid, 1);
	ck_assert_uint_eq(f.pdu->nvme.cid, 0x1234);
	ck_assert_uint_eq(f.pdu->nvme.phase, 1);
	ck_assert_uint_eq(f.pdu->nvme.status, 0x4080);
	ck_assert_uint_eq(rs_nvme_sc(f.pdu->nvme.status), 0x80);
	ck_assert_uint_eq(rs_nvme_sct(f.pdu->nvme.status), 0);
	ck_assert_str_eq(rs_nvme_status_name(f.pdu->nvme.status), "LBA Out of Range");
	/* The same 16 bytes in a SEND First are no response: a message's start. */
	bth(t, 0x00);
	decode(t, sizeof t, &f);
	ck_assert(!rs_frame_pdu(&f, RS_PDU_NVME));
}
END_TEST

/* Not capsules: PRPs (PSDT 00b, not allowed over fabrics), reserved flag
 * bits set, 63 bytes, an RDMA WRITE, a UC SEND. */
START_TEST(test_not_capsules)
{
	uint8_t t[BTH + 64];
	struct rs_frame f;
	bth(t, 0x04);
	read_sqe(t + BTH);
	t[BTH + 1] = 0x00;
	decode(t, sizeof t, &f);
	ck_assert(!rs_frame_pdu(&f, RS_PDU_NVME));
	ck_assert_ptr_nonnull(rt_layer(&f, RS_L_PAYLOAD));
	t[BTH + 1] = 0x44;
	decode(t, sizeof t, &f);
	ck_assert(!rs_frame_pdu(&f, RS_PDU_NVME));
	t[BTH + 1] = 0x40;
	decode(t, sizeof t - 1, &f);
	ck_assert(!rs_frame_pdu(&f, RS_PDU_NVME));
	bth(t, 0x24); /* UC SEND Only */
	decode(t, sizeof t, &f);
	ck_assert(!rs_frame_pdu(&f, RS_PDU_NVME));
}
END_TEST

/* Cut by the capture: the fields before the cut are read, the capsule is
 * RS_NVME_CUT, the frame itself stays whole-but-sliced (not malformed). */
START_TEST(test_cut)
{
	uint8_t s[64];
	read_sqe(s);
	struct rs_cursor c;
	struct rs_nvme n;
	rs_cur_init(&c, s, 30);
	rs_nvmeof_decode(&c, 64, true, &n);
	ck_assert_uint_eq(n.kind, RS_NVME_CMD);
	ck_assert_uint_eq(n.state, RS_NVME_CUT);
	ck_assert_uint_eq(n.opcode, 0x02);
	ck_assert_uint_eq(n.cid, 0x1234);
	ck_assert_uint_eq(n.sgl_len, 0);
	rs_cur_init(&c, s, 1); /* not even the flags: nothing says it is a capsule */
	rs_nvmeof_decode(&c, 64, true, &n);
	ck_assert_uint_eq(n.kind, RS_NVME_NONE);
}
END_TEST

/* IANA service names and port numbers registry: nvme 4420, nvme-disc 8009,
 * iscsi-target 3260 (iSER, RFC 7145), smbdirect 5445, nfsrdma 20049. */
START_TEST(test_ulp_ports)
{
	ck_assert_str_eq(rs_proto_name(rs_proto_of_port(4420)), "NVMe-oF");
	ck_assert_str_eq(rs_proto_name(rs_proto_of_port(8009)), "NVMe-disc");
	ck_assert_str_eq(rs_proto_name(rs_proto_of_port(3260)), "iSER");
	ck_assert_str_eq(rs_proto_name(rs_proto_of_port(5445)), "SMB-Direct");
	ck_assert_str_eq(rs_proto_name(rs_proto_of_port(20049)), "NFS/RDMA");
	ck_assert_uint_eq(rs_proto_of_port(7471), 0);
	ck_assert_uint_eq(rs_proto_of_port(0), 0);
	ck_assert_str_eq(rs_proto_name(0), "");
	ck_assert_str_eq(rs_proto_name(rs_nprotos), "");
	/* NVMe-oF's two services share its queue analysis; iSER has none. */
	ck_assert(rs_proto_hooks(rs_proto_of_port(8009)) == rs_proto_hooks(rs_proto_of_port(4420)));
	ck_assert(rs_proto_hooks(rs_proto_of_port(4420))->queue_new != NULL);
	ck_assert(rs_proto_hooks(rs_proto_user())->queue_new == NULL);
	/* --ulp PORT=NAME: a name starting nvme or nvmf (any case) decodes NVMe-oF. */
	ck_assert_uint_eq(rs_proto_of_user_name("NVMf-test"), rs_proto_of_port(4420));
	ck_assert_uint_eq(rs_proto_of_user_name("nvme"), rs_proto_of_port(4420));
	ck_assert_uint_eq(rs_proto_of_user_name("myproto"), rs_proto_user());
	ck_assert_str_eq(rs_protos[rs_proto_user()].word, "user");
}
END_TEST

static Suite *nvmeof_suite(void)
{
	Suite *s = suite_create("nvmeof");
	TCase *tc = tcase_create("capsules");
	tcase_add_test(tc, test_keyed_command);
	tcase_add_test(tc, test_connect_in_capsule);
	tcase_add_test(tc, test_in_capsule_lies);
	tcase_add_test(tc, test_response);
	tcase_add_test(tc, test_not_capsules);
	tcase_add_test(tc, test_cut);
	tcase_add_test(tc, test_ulp_ports);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return rt_run_suite(nvmeof_suite());
}
