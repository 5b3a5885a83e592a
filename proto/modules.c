/*
 * modules.c — the table of upper-layer protocols: one row per service
 * (name, RDMA CM ports, --ulp name prefixes, hooks). A new module is its
 * folder under proto/ and its row here (CONTRIBUTING.md says how).
 *
 * The rows keep the order the connections' ulp values were given before
 * the table existed, so a row's index is stable.
 */
#include <string.h>

#include <glib.h>

#include "proto/iser/iser.h"
#include "proto/nfsrdma/nfsrdma.h"
#include "proto/nvmeof/nvmeof.h"
#include "proto/pdu.h"
#include "proto/proto.h"
#include "proto/smbdirect/smbdirect.h"

const struct rs_proto_hooks rs_nvmeof_hooks = {
	.claims_sends = true,
	.queue_new = rs_nvmeq_new,
	.queue_free = rs_nvmeq_free,
	.queue_frame = rs_nvme_frame,
	.recognize = rs_nvme_recognize,
	.recog_pdus = RS_PDU_NVME,
	.text = rs_text_nvme,
	.brief = rs_brief_nvme,
	.json_conn = rs_json_nvme,
	.op_name = rs_nvme_op_name,
	.note = rs_nvme_note,
};

const struct rs_proto_hooks rs_iser_hooks = {
	.queue_new = rs_iserq_new,
	.queue_free = rs_iserq_free,
	.queue_frame = rs_iser_frame,
	.queue_resent = rs_iser_resent,
	.queue_finish = rs_iserq_finish,
	.recognize = rs_iser_recognize,
	.recog_pdus = RS_PDU_ISER,
	.text = rs_text_iser,
	.brief = rs_brief_iser,
	.json_conn = rs_json_iser,
	.op_name = rs_iser_op_name,
	.note = rs_iser_note,
	.walk = rs_iser_walk,
};

const struct rs_proto_hooks rs_smbd_hooks = {
	.queue_new = rs_smbdq_new,
	.queue_free = rs_smbdq_free,
	.queue_frame = rs_smbd_frame,
	.queue_message = rs_smbd_message,
	.queue_resent = rs_smbd_resent,
	.recognize = rs_smbd_recognize,
	.recog_pdus = RS_PDU_SMBD_START,
	.recog_wait = RS_PDU_SMBD,
	.text = rs_text_smbd,
	.brief = rs_brief_smbd,
	.json_conn = rs_json_smbd,
	.op_name = rs_smbd_op_name,
	.note = rs_smbd_note,
	.walk = rs_smbd_walk,
};

const struct rs_proto_hooks rs_nfsrdma_hooks = {
	.queue_new = rs_nfsq_new,
	.queue_free = rs_nfsq_free,
	.queue_frame = rs_nfs_frame,
	.queue_resent = rs_nfs_resent,
	.queue_finish = rs_nfsq_finish,
	.recognize = rs_nfs_recognize,
	.recog_pdus = RS_PDU_RPCRDMA,
	.text = rs_text_nfs,
	.brief = rs_brief_nfs,
	.json_conn = rs_json_nfs,
	.op_name = rs_nfs_op_name,
	.note = rs_nfs_note,
	.walk = rs_nfs_walk,
};

const struct rs_proto rs_protos[] = {
	{ .name = "", .word = "" }, /* none */
	/* IANA nvme: NVMe-oF I/O and admin queues */
	{ .name = "NVMe-oF", .word = "nvme-of", .ports = { 4420 }, .prefixes = { "nvme", "nvmf" },
	  .hooks = &rs_nvmeof_hooks, .roles = { "host", "target" } },
	/* IANA nvme-disc: the NVMe-oF discovery controller */
	{ .name = "NVMe-disc", .word = "nvme-disc", .ports = { 8009 }, .hooks = &rs_nvmeof_hooks,
	  .roles = { "host", "target" } },
	/* iSCSI's port; iSER listens on the same one (RFC 7145) */
	{ .name = "iSER", .word = "iser", .ports = { 3260 }, .hooks = &rs_iser_hooks, .roles = { "initiator", "target" } },
	/* IANA smbdirect (MS-SMBD) */
	{ .name = "SMB-Direct", .word = "smb-direct", .ports = { 5445 }, .prefixes = { "smb" }, .hooks = &rs_smbd_hooks },
	/* IANA nfsrdma (RFC 5667) */
	{ .name = "NFS/RDMA", .word = "nfs-rdma", .ports = { 20049 }, .prefixes = { "nfs" },
	  .hooks = &rs_nfsrdma_hooks },
	/* --ulp PORT=NAME with a NAME no row's prefix picks: the name is the user's */
	{ .name = "", .word = "user" },
};

const unsigned rs_nprotos = G_N_ELEMENTS(rs_protos);
_Static_assert(G_N_ELEMENTS(rs_protos) <= RS_PROTOS_MAX, "RS_PROTOS_MAX holds every row");

static const struct rs_proto_hooks no_hooks;

unsigned rs_proto_of_port(uint16_t port)
{
	for (unsigned i = 1; port && i < rs_nprotos; i++)
		for (unsigned k = 0; k < RS_PROTO_PORTS; k++)
			if (rs_protos[i].ports[k] == port)
				return i;
	return 0;
}

unsigned rs_proto_user(void)
{
	return rs_nprotos - 1;
}

unsigned rs_proto_of_user_name(const char *name)
{
	for (unsigned i = 1; i < rs_nprotos; i++)
		for (unsigned k = 0; k < RS_PROTO_PREFIXES && rs_protos[i].prefixes[k]; k++) {
			const char *p = rs_protos[i].prefixes[k];
			if (!g_ascii_strncasecmp(name, p, strlen(p)))
				return i;
		}
	return rs_proto_user();
}

const char *rs_proto_name(unsigned id)
{
	return id < rs_nprotos ? rs_protos[id].name : "";
}

const struct rs_proto_hooks *rs_proto_hooks(unsigned id)
{
	return id < rs_nprotos && rs_protos[id].hooks ? rs_protos[id].hooks : &no_hooks;
}

bool rs_proto_first_row(unsigned i)
{
	for (unsigned k = 1; k < i; k++)
		if (rs_protos[k].hooks == rs_protos[i].hooks)
			return false;
	return true;
}

unsigned rs_proto_briefs(const struct rs_view *v, struct rs_proto_brief *out, unsigned max)
{
	unsigned n = 0;
	for (unsigned i = 1; i < rs_nprotos; i++) {
		const struct rs_proto_hooks *h = rs_protos[i].hooks;
		struct rs_proto_brief b = { .name = rs_protos[i].name, .row = i };
		if (!h || !h->brief || !rs_proto_first_row(i) || !h->brief(v, &b))
			continue;
		if (n < max)
			out[n] = b;
		n++;
	}
	return n;
}
