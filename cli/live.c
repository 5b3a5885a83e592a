/*
 * live.c — `rocestat -i IFACE`: opening the capture, and `-D`.
 *
 * The order matters and is tcpdump's: open the device (needs privileges),
 * then drop them (-Z), then create the -w output (so it belongs to the user
 * we became). The capture loop itself (livefeed.c) is a producer of the
 * messages rs_run_files' reading loop produces (feed.h): frames go through
 * the dissector into the -w writer and, a batch at a time, to the sink, so
 * --fields and --walk work live and the analyzer's sink plugs in the same
 * way; the sink's tick runs every --refresh seconds even when nothing
 * arrives. When -j allows two threads, the loop runs in a thread of its
 * own that only captures, writes and dissects, and this thread analyses
 * (pipeline.c): a slow analysis then holds up the capture only once the
 * ring is full, and the kernel drops fewer frames. With -j 1 both run in
 * this thread.
 * Either way the sink sees begin_file, the frames and ticks in order,
 * capture_stats and end_file, as in one thread.
 *
 * SIGINT/SIGTERM only set a flag (stop.c, as when reading files): the
 * wait in poll(2) ends with EINTR (in the capturing thread: the other
 * blocks them), the loop stops, the output is flushed, closed and renamed into place, then the sink's end_file runs
 * and the counts are printed. A second signal kills at once (SA_RESETHAND),
 * leaving only the temporary file.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pcap/pcap.h>

#include "capture/live.h"
#include "capture/rdmadev.h"
#include "capture/writer.h"
#include "cli/cli.h"
#include "cli/feed.h"
#include "report/report.h"

/* Does libpcap offer this name itself (a netdev, "any", an RDMA sniffer)? */
static bool pcap_offers(const char *name)
{
	pcap_if_t *all;
	char err[PCAP_ERRBUF_SIZE];
	bool found = false;
	if (pcap_findalldevs(&all, err) != 0)
		return false;
	for (pcap_if_t *d = all; d && !found; d = d->next)
		found = strcmp(d->name, name) == 0;
	pcap_freealldevs(all);
	return found;
}

/* -i NAME as libpcap should see it; NULL (message printed) if unusable. */
static const char *capture_device(const struct rs_cli_opts *o, char netdev[RS_RDMA_NAME_MAX])
{
	char how[RS_ERRBUF_SIZE];
	if (pcap_offers(o->iface))
		return o->iface;
	switch (rs_rdmadev_resolve(o->sysfs_root, o->iface, netdev, how)) {
	case RS_RESOLVE_OK:
		rs_eprintf("rocestat: %s\n", how);
		return netdev;
	case RS_RESOLVE_NO_NETDEV:
		rs_eprintf("rocestat: %s\n", how);
		return NULL;
	case RS_RESOLVE_NOT_RDMA:
	default:
		return o->iface; /* pcap_activate says if it does not exist */
	}
}

static void print_stats(const struct rs_capture_stats *st, bool have)
{
	rs_eprintf("%" PRIu64 " frames captured\n", st->captured);
	if (!have)
		return;
	rs_eprintf("%" PRIu64 " frames received by filter\n", st->received);
	rs_eprintf("%" PRIu64 " frames dropped by kernel\n", st->dropped);
	if (st->ifdropped)
		rs_eprintf("%" PRIu64 " frames dropped by interface\n", st->ifdropped);
}

int rs_run_live(const struct rs_cli_opts *o, const struct rs_sink *sink)
{
	return rs_run_live_hooked(o, sink, NULL, NULL);
}

int rs_run_live_hooked(const struct rs_cli_opts *o, const struct rs_sink *sink,
		       bool (*started)(void *ctx, char *err, size_t len), void *ctx)
{
	char err[RS_ERRBUF_SIZE], netdev[RS_RDMA_NAME_MAX];
	const char *dev = capture_device(o, netdev);
	if (!dev)
		return RS_EXIT_INPUT;

	char *filter = rs_capture_filter(o->capture_all, o->dissect.extra_ports, o->dissect.n_extra_ports, o->filter);
	struct rs_live_config cfg = {
		.device = dev, .snaplen = o->snaplen, .buffer_kib = o->buffer_kib,
		.filter = filter, .user_filter = o->filter,
	};
	enum rs_live_failure why;
	struct rs_live_handle *l = rs_live_open(&cfg, &why, err);
	free(filter);
	if (!l) {
		rs_eprintf("rocestat: %s\n", err);
		return why == RS_LIVE_FAIL_FILTER ? RS_EXIT_USAGE : RS_EXIT_INPUT;
	}
	if (rs_live_warning(l))
		rs_eprintf("rocestat: warning: %s\n", rs_live_warning(l));
	if (o->drop_user && !rs_drop_privileges(o->drop_user, err)) {
		rs_eprintf("rocestat: %s\n", err);
		rs_live_close(l);
		return RS_EXIT_USAGE;
	}

	if (started && !started(ctx, err, sizeof err)) {
		rs_eprintf("rocestat: %s\n", err);
		rs_live_close(l);
		return RS_EXIT_USAGE;
	}

	struct rs_capture c = { .l = l, .dlt = rs_live_datalink(l), .rc = RS_EXIT_OK };
	if (o->write_file) {
		struct rs_writer_config wc = {
			.path = o->write_file, .dlt = c.dlt, .snaplen = (uint32_t)rs_live_snaplen(l),
			.rotate_bytes = o->rotate_bytes, .rotate_seconds = o->rotate_seconds,
			.max_files = o->rotate_files, .if_name = dev,
		};
		if (!(c.writer = rs_writer_open(&wc, err))) {
			rs_eprintf("rocestat: %s\n", err);
			rs_live_close(l);
			return RS_EXIT_INPUT;
		}
	}
	struct rs_stop_saved saved;
	rs_stop_catch(true, &saved);

	/* Said once signals are handled: from here on, ^C ends cleanly. */
	const char *ln = pcap_datalink_val_to_name(c.dlt);
	rs_eprintf("rocestat: capturing on %s, link type %s, %s%s%s%s, snaplen %d%s%s\n", dev, ln ? ln : "?",
		o->capture_all ? "every frame" : "RoCE frames only", o->filter ? " matching \"" : "",
		o->filter ? o->filter : "", o->filter ? "\"" : "", rs_live_snaplen(l),
		o->write_file ? ", writing to " : "", o->write_file ? o->write_file : "");

	rs_sink_event(sink, &(struct rs_sink_event){ .kind = RS_SINK_BEGIN, .name = dev, .dlt = c.dlt });
	int rc = rs_feed_run(o, sink, rs_feed_live, &c);
	if (c.rc > rc)
		rc = c.rc; /* RS_EXIT_INPUT > RS_EXIT_ANOMALIES > RS_EXIT_OK */
	/* The -w output is complete and under its name by now (livefeed.c). */
	rs_sink_event(sink, &(struct rs_sink_event){ .kind = RS_SINK_STATS, .stats = &c.stats });
	rs_sink_event(sink, &(struct rs_sink_event){ .kind = RS_SINK_END, .name = dev });
	if (rs_stop_requested())
		fputc('\n', stderr); /* after the ^C the terminal echoed */
	print_stats(&c.stats, c.have_stats);
	if (!c.have_stats)
		rs_eprintf("rocestat: %s\n", c.stats_err);
	rs_stop_release(&saved);
	rs_live_close(l);
	return rc;
}

/* tcpdump -D's flags, in its words. */
static void iface_flags(const pcap_if_t *d, char *out, size_t len)
{
	out[0] = '\0';
	struct { bpf_u_int32 bit; const char *name; } names[] = {
		{ PCAP_IF_UP, "Up" }, { PCAP_IF_RUNNING, "Running" },
		{ PCAP_IF_LOOPBACK, "Loopback" }, { PCAP_IF_WIRELESS, "Wireless" },
	};
	for (size_t i = 0; i < sizeof names / sizeof *names; i++)
		if (d->flags & names[i].bit)
			snprintf(out + strlen(out), len - strlen(out), "%s%s", out[0] ? ", " : "", names[i].name);
	if (!(d->flags & PCAP_IF_LOOPBACK)) {
		bpf_u_int32 s = d->flags & PCAP_IF_CONNECTION_STATUS;
		const char *cs = s == PCAP_IF_CONNECTION_STATUS_CONNECTED ? "Connected"
				 : s == PCAP_IF_CONNECTION_STATUS_DISCONNECTED ? "Disconnected" : NULL;
		if (cs)
			snprintf(out + strlen(out), len - strlen(out), "%s%s", out[0] ? ", " : "", cs);
	}
}

int rs_list_interfaces(const struct rs_cli_opts *o, FILE *out)
{
	pcap_if_t *all;
	char err[PCAP_ERRBUF_SIZE];
	if (pcap_findalldevs(&all, err) != 0) {
		rs_eprintf("rocestat: cannot list the capture interfaces: %s\n", err);
		return RS_EXIT_INPUT;
	}
	unsigned n = 0;
	for (pcap_if_t *d = all; d; d = d->next)
		n++;
	struct rs_iface *ifs = calloc(n ? n : 1, sizeof *ifs);
	char (*flags)[96] = calloc(n ? n : 1, sizeof *flags);
	if (!ifs || !flags) {
		rs_eprintf("rocestat: out of memory\n");
		free(ifs);
		free(flags);
		pcap_freealldevs(all);
		return RS_EXIT_INPUT;
	}
	unsigned i = 0;
	for (pcap_if_t *d = all; d; d = d->next, i++) {
		iface_flags(d, flags[i], sizeof flags[i]);
		ifs[i] = (struct rs_iface){ d->name, d->description, flags[i] };
	}
	struct rs_rdmadev *devs;
	unsigned ndevs = rs_rdmadev_list(o->sysfs_root, &devs);
	rs_rdmadev_render(out, ifs, n, devs, ndevs);
	rs_rdmadev_free(devs, ndevs);
	free(ifs);
	free(flags);
	pcap_freealldevs(all);
	return RS_EXIT_OK;
}
