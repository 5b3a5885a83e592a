/*
 * conn.c — a CM connection's state, from the messages counted on it (and
 * whether data flowed): what reports, the live view and the flow table
 * (a QP number reused after a disconnect) read of it. Calls nothing else in
 * the analyzer.
 */
#include "analyzer/records/records.h"

const char *const rs_conn_state_names[RS_CONN_STATES] = {
	[RS_CONN_ESTABLISHED] = "established", [RS_CONN_CLOSED] = "closed",     [RS_CONN_CLOSING] = "closing",
	[RS_CONN_REJECTED] = "rejected",       [RS_CONN_RESOLVED] = "resolved", [RS_CONN_INCOMPLETE] = "incomplete",
	[RS_CONN_FAILED] = "failed",
};

bool rs_conn_closed_before(const struct rs_conn *c, uint64_t t)
{
	const unsigned dreq = UMAD_CM_ATTR_DREQ - UMAD_CM_ATTR_REQ, drep = UMAD_CM_ATTR_DREP - UMAD_CM_ATTR_REQ;
	return c->kind == RS_CONN_RC && ((c->n[dreq] && c->ts[dreq] < t) || (c->n[drep] && c->ts[drep] < t));
}

uint64_t rs_conn_active_ts(const struct rs_conn *c)
{
	uint64_t t = c->last_ts;
	if (c->c2s && c->c2s->last_ts > t)
		t = c->c2s->last_ts;
	if (c->s2c && c->s2c->last_ts > t)
		t = c->s2c->last_ts;
	return t;
}

bool rs_conn_over(const struct rs_conn *c, uint64_t t)
{
	const uint32_t *n = c->n;
	enum { REQ = 0, MRA, REJ, REP, RTU };
	if (c->kind != RS_CONN_RC)
		return false;
	if (rs_conn_closed_before(c, t) || (n[REJ] && c->ts[REJ] < t))
		return true;
	/* CM retries come within the CM response timeout; a REQ a second
	 * after the connection was set up and quiet is another exchange. */
	return (n[RTU] || (c->c2s && c->c2s->packets)) && t > rs_conn_active_ts(c) + RS_STALE_NS;
}

/* A side whose requester gave up (settle_dead), at the end of the capture. */
static bool gave_up(const struct rs_flow *fl)
{
	const struct rs_psn_loss *l = fl ? fl->req.loss : NULL;
	return l && (l->dead == RS_DEAD_RETRY || l->dead == RS_DEAD_RNR);
}

uint64_t rs_conn_begun(const struct rs_conn *c)
{
	uint64_t begun = UINT64_MAX;
	for (unsigned i = 0; i < G_N_ELEMENTS(c->n); i++)
		if (c->n[i] && c->ts[i] < begun)
			begun = c->ts[i];
	return begun;
}

/* Did the client's data reach the server? IBA 12.9.4: the first packet
 * the passive side receives may stand in for a lost RTU. */
static bool data_flowed(const struct rs_conn *c)
{
	return c->c2s && c->c2s->packets && c->n[UMAD_CM_ATTR_REP - UMAD_CM_ATTR_REQ];
}

bool rs_conn_dreq_drep(const struct rs_conn *c, uint64_t *dreq, uint64_t *drep)
{
	enum { DREQ = UMAD_CM_ATTR_DREQ - UMAD_CM_ATTR_REQ, DREP = UMAD_CM_ATTR_DREP - UMAD_CM_ATTR_REQ };
	for (int from = 0; from < 2; from++)
		if (c->n_dir[DREQ][from] && c->n_dir[DREP][!from] && c->drep_ts[!from] >= c->dreq_ts[from]) {
			*dreq = c->dreq_ts[from];
			*drep = c->drep_ts[!from];
			return true;
		}
	return false;
}

enum rs_conn_state rs_conn_state_of(const struct rs_conn *c)
{
	const uint32_t *n = c->n;
	enum { REQ = 0, MRA, REJ, REP, RTU, DREQ, DREP, SIDR_REQ, SIDR_REP };
	if (c->kind == RS_CONN_SIDR) {
		if (!n[SIDR_REP])
			return RS_CONN_INCOMPLETE;
		return c->sidr_status == 0 ? RS_CONN_RESOLVED : RS_CONN_REJECTED;
	}
	if (n[REJ])
		return RS_CONN_REJECTED;
	/* A QP in error: the teardown that follows does not undo that. */
	if (gave_up(c->c2s) || gave_up(c->s2c))
		return RS_CONN_FAILED;
	if (n[DREQ] || n[DREP])
		return n[DREP] ? RS_CONN_CLOSED : RS_CONN_CLOSING;
	if (n[RTU] || data_flowed(c))
		return RS_CONN_ESTABLISHED;
	return RS_CONN_INCOMPLETE;
}

const char *rs_conn_state(const struct rs_conn *c)
{
	return rs_conn_state_names[rs_conn_state_of(c)];
}
