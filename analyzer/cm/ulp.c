/*
 * ulp.c — a CM connection's upper-layer protocol: its row of the table of
 * protocol modules (proto/modules.c), from the RDMA CM port of its service
 * ID or a --ulp PORT=NAME, and the module's queue state when the module
 * keeps one (its hooks, proto/proto.h, feed it; analyzer.c calls them).
 */
#include "analyzer/cm/cm.h"
#include "proto/proto.h"

void rs_ulp_assign(struct rs_analyzer *a, struct rs_conn *c)
{
	if (!rs_cm_service_is_rdma_cm(c->service_id) || c->ulp)
		return;
	uint16_t port = rs_cm_service_port(c->service_id);
	for (unsigned i = 0; i < a->opts.n_ulp && i < G_N_ELEMENTS(a->opts.ulp); i++)
		if (a->opts.ulp[i].port == port) {
			c->ulp = (uint8_t)rs_proto_of_user_name(a->opts.ulp[i].name);
			c->ulp_user = a->opts.ulp[i].name;
			break;
		}
	if (!c->ulp)
		c->ulp = (uint8_t)rs_proto_of_port(port);
	const struct rs_proto_hooks *h = rs_proto_hooks(c->ulp);
	if (h->queue_new && !c->pq)
		c->pq = h->queue_new();
}

const char *rs_conn_ulp_name(const struct rs_conn *c)
{
	return c->ulp_user ? c->ulp_user : rs_proto_name(c->ulp);
}

unsigned rs_conn_ulp(const struct rs_conn *c)
{
	return c->ulp;
}
