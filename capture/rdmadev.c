/*
 * rdmadev.c — read RDMA devices from sysfs (see rdmadev.h for the layout),
 * resolve an RDMA device to the netdev to capture on, and render -D.
 *
 * Nothing here needs an RDMA library or a real device: it is all files, so
 * a fake tree under another root tests every path.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capture/rdmadev.h"

#define PATH_LEN 1024

/* The first line of a sysfs attribute, without its newline. False if it
 * cannot be read (absent, or the kernel refuses, as for unused GIDs). */
static bool read_attr(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	ssize_t n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return false;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return true;
}

static bool is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int not_dot(const struct dirent *e)
{
	return e->d_name[0] != '.';
}

/* Entries named by numbers ("0", "1", ... "10") in numeric order. */
static int by_number(const struct dirent **a, const struct dirent **b)
{
	unsigned long x = strtoul((*a)->d_name, NULL, 10), y = strtoul((*b)->d_name, NULL, 10);
	return x < y ? -1 : x > y;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

typedef int (*dir_order)(const struct dirent **, const struct dirent **);

/* The entries of a directory (no dot files), sorted; -1 if unreadable. */
static int list_dir(const char *path, struct dirent ***ents, dir_order order)
{
	return scandir(path, ents, not_dot, order);
}

static void free_ents(struct dirent **ents, int n)
{
	for (int i = 0; i < n; i++)
		free(ents[i]);
	free(ents);
}

enum rs_gid_type rs_gid_type_parse(const char *s)
{
	size_t n = strcspn(s, "\n");
	if (n == 10 && strncmp(s, "IB/RoCE v1", 10) == 0)
		return RS_GID_IB_ROCE_V1;
	if (n == 7 && strncmp(s, "RoCE v2", 7) == 0)
		return RS_GID_ROCE_V2;
	return RS_GID_UNKNOWN;
}

const char *rs_gid_type_label(enum rs_gid_type t, const char *link_layer)
{
	switch (t) {
	case RS_GID_IB_ROCE_V1:
		return strcmp(link_layer, "InfiniBand") == 0 ? "IB" : "RoCE v1";
	case RS_GID_ROCE_V2:
		return "RoCE v2";
	default:
		return "unknown type";
	}
}

/* "fe80:0000:...:3456" -> 16 bytes; false if it is not 8 groups of hex. */
static bool parse_gid(const char *s, uint8_t out[16])
{
	for (int g = 0; g < 8; g++) {
		char *end;
		unsigned long v = strtoul(s, &end, 16);
		if (end == s || end - s > 4 || v > 0xFFFF || (g < 7 ? *end != ':' : *end != '\0'))
			return false;
		out[2 * g] = (uint8_t)(v >> 8);
		out[2 * g + 1] = (uint8_t)v;
		s = end + 1;
	}
	return true;
}

static void read_gids(const char *portdir, struct rs_rdma_port *port, struct rs_rdmadev *d)
{
	char path[PATH_LEN], buf[128];
	struct dirent **ents;
	rs_errf(path, sizeof path, "%s/gids", portdir);
	int n = list_dir(path, &ents, by_number);
	if (n < 0)
		return;
	struct rs_rdma_gid *more = realloc(d->gids, (d->ngids + (unsigned)n) * sizeof *d->gids);
	if (!more) {
		free_ents(ents, n);
		return;
	}
	d->gids = more;
	for (int i = 0; i < n; i++) {
		const char *idx = ents[i]->d_name;
		uint8_t raw[16];
		static const uint8_t zero[16];
		rs_errf(path, sizeof path, "%s/gids/%s", portdir, idx);
		if (!read_attr(path, buf, sizeof buf) || !parse_gid(buf, raw) || memcmp(raw, zero, 16) == 0)
			continue; /* unused entry */
		struct rs_rdma_gid *g = &d->gids[d->ngids];
		memset(g, 0, sizeof *g);
		g->port = port->num;
		g->index = (unsigned)strtoul(idx, NULL, 10);
		inet_ntop(AF_INET6, raw, g->addr, sizeof g->addr);
		rs_errf(path, sizeof path, "%s/gid_attrs/types/%s", portdir, idx);
		if (read_attr(path, buf, sizeof buf))
			g->type = rs_gid_type_parse(buf);
		else if (strcmp(port->link_layer, "InfiniBand") == 0)
			g->type = RS_GID_IB_ROCE_V1; /* kernels before gid_attrs: IB GIDs only */
		else
			continue; /* the kernel refuses: not a live entry */
		rs_errf(path, sizeof path, "%s/gid_attrs/ndevs/%s", portdir, idx);
		if (!read_attr(path, g->ndev, sizeof g->ndev))
			g->ndev[0] = '\0';
		d->ngids++;
	}
	free_ents(ents, n);
}

bool rs_rdmadev_read(const char *sysfs_root, const char *name, struct rs_rdmadev *d, char errbuf[RS_ERRBUF_SIZE])
{
	char dir[PATH_LEN], path[PATH_LEN + 64], buf[128];
	memset(d, 0, sizeof *d);
	rs_errf(dir, sizeof dir, "%s/class/infiniband/%s", sysfs_root, name);
	if (strchr(name, '/') || !*name || !is_dir(dir)) {
		rs_errf(errbuf, RS_ERRBUF_SIZE, "%s: no such RDMA device (%s)", name, dir);
		return false;
	}
	snprintf(d->name, sizeof d->name, "%s", name);
	rs_errf(path, sizeof path, "%s/node_guid", dir);
	if (!read_attr(path, d->node_guid, sizeof d->node_guid))
		d->node_guid[0] = '\0';

	rs_errf(path, sizeof path, "%s/parent", dir);
	if (read_attr(path, buf, sizeof buf) && buf[0]) {
		d->soft = true;
		rs_errf(d->netdevs[0], sizeof d->netdevs[0], "%s", buf);
		d->nnetdevs = 1;
	} else {
		struct dirent **ents;
		rs_errf(path, sizeof path, "%s/device/net", dir);
		int n = list_dir(path, &ents, by_name);
		for (int i = 0; i < n; i++)
			if (d->nnetdevs < RS_RDMA_MAX_NETDEVS)
				rs_errf(d->netdevs[d->nnetdevs++], RS_RDMA_NAME_MAX, "%s", ents[i]->d_name);
		if (n >= 0)
			free_ents(ents, n);
	}

	struct dirent **ports;
	rs_errf(path, sizeof path, "%s/ports", dir);
	int np = list_dir(path, &ports, by_number);
	for (int i = 0; i < np; i++) {
		if (d->nports == RS_RDMA_MAX_PORTS)
			break;
		char portdir[PATH_LEN + 128];
		struct rs_rdma_port *p = &d->ports[d->nports++];
		p->num = (unsigned)strtoul(ports[i]->d_name, NULL, 10);
		rs_errf(portdir, sizeof portdir, "%s/ports/%s", dir, ports[i]->d_name);
		rs_errf(path, sizeof path, "%s/link_layer", portdir);
		if (!read_attr(path, p->link_layer, sizeof p->link_layer))
			snprintf(p->link_layer, sizeof p->link_layer, "unknown");
		rs_errf(path, sizeof path, "%s/state", portdir);
		if (read_attr(path, buf, sizeof buf)) {
			const char *colon = strchr(buf, ':'); /* "4: ACTIVE" */
			rs_errf(p->state, sizeof p->state, "%s", colon ? colon + 1 + strspn(colon + 1, " ") : buf);
		}
		read_gids(portdir, p, d);
	}
	if (np >= 0)
		free_ents(ports, np);
	return true;
}

unsigned rs_rdmadev_list(const char *sysfs_root, struct rs_rdmadev **devs)
{
	char dir[PATH_LEN], err[RS_ERRBUF_SIZE];
	struct dirent **ents;
	*devs = NULL;
	rs_errf(dir, sizeof dir, "%s/class/infiniband", sysfs_root);
	int n = list_dir(dir, &ents, by_name);
	if (n <= 0) {
		if (n == 0)
			free(ents);
		return 0;
	}
	unsigned count = 0;
	*devs = calloc((size_t)n, sizeof **devs);
	for (int i = 0; i < n && *devs; i++)
		if (rs_rdmadev_read(sysfs_root, ents[i]->d_name, &(*devs)[count], err))
			count++;
	free_ents(ents, n);
	return count;
}

void rs_rdmadev_free(struct rs_rdmadev *devs, unsigned n)
{
	for (unsigned i = 0; devs && i < n; i++)
		free(devs[i].gids);
	free(devs);
}

static bool all_infiniband(const struct rs_rdmadev *d)
{
	for (unsigned i = 0; i < d->nports; i++)
		if (strcmp(d->ports[i].link_layer, "InfiniBand") != 0)
			return false;
	return d->nports > 0;
}

enum rs_resolve rs_rdmadev_resolve(const char *sysfs_root, const char *name, char netdev[RS_RDMA_NAME_MAX],
				   char how[RS_ERRBUF_SIZE])
{
	struct rs_rdmadev d;
	netdev[0] = how[0] = '\0';
	if (!rs_rdmadev_read(sysfs_root, name, &d, how)) {
		how[0] = '\0';
		return RS_RESOLVE_NOT_RDMA;
	}
	enum rs_resolve r;
	if (all_infiniband(&d)) {
		snprintf(how, RS_ERRBUF_SIZE,
			 "%s is an InfiniBand device: its traffic passes through no network interface (%s is IPoIB "
			 "at most); capture it with a libpcap built with RDMA support, where -i %s works directly",
			 name, d.nnetdevs ? d.netdevs[0] : "its netdev", name);
		r = RS_RESOLVE_NO_NETDEV;
	} else if (d.nnetdevs == 0) {
		snprintf(how, RS_ERRBUF_SIZE,
			 "%s is an RDMA device, but %s/class/infiniband/%s has neither a parent attribute nor a "
			 "device/net/ entry to say which network interface it uses; give -i the interface (rocestat -D)",
			 name, sysfs_root, name);
		r = RS_RESOLVE_NO_NETDEV;
	} else if (d.soft) {
		snprintf(netdev, RS_RDMA_NAME_MAX, "%s", d.netdevs[0]);
		snprintf(how, RS_ERRBUF_SIZE, "%s is a Soft-RoCE device on %s (its sysfs parent); capturing on %s", name,
			 netdev, netdev);
		r = RS_RESOLVE_OK;
	} else {
		snprintf(netdev, RS_RDMA_NAME_MAX, "%s", d.netdevs[0]);
		int n = snprintf(how, RS_ERRBUF_SIZE,
				 "%s is an RDMA device on %s (its PCI function's network interface); capturing on %s",
				 name, netdev, netdev);
		if (d.nnetdevs > 1 && n > 0 && n < RS_ERRBUF_SIZE)
			n += snprintf(how + n, RS_ERRBUF_SIZE - (size_t)n, " (it also has %s%s)", d.netdevs[1],
				      d.nnetdevs > 2 ? " and more" : "");
		if (n > 0 && n < RS_ERRBUF_SIZE)
			snprintf(how + n, RS_ERRBUF_SIZE - (size_t)n,
				 "; RoCE traffic the NIC offloads reaches the netdev only if the NIC mirrors it");
		r = RS_RESOLVE_OK;
	}
	free(d.gids);
	return r;
}

/* ---- -D ------------------------------------------------------------------ */

static bool bound_to(const struct rs_rdmadev *d, const char *ifname)
{
	if (strcmp(d->name, ifname) == 0) /* libpcap's own RDMA sniffer device */
		return true;
	for (unsigned i = 0; i < d->nnetdevs; i++)
		if (strcmp(d->netdevs[i], ifname) == 0)
			return true;
	return false;
}

static void render_dev(FILE *out, const struct rs_rdmadev *d, const char *under)
{
	fprintf(out, "     %s%s", d->name, d->soft ? " (Soft-RoCE)" : "");
	if (d->node_guid[0])
		fprintf(out, "  node GUID %s", d->node_guid);
	if (!under && d->nnetdevs)
		fprintf(out, "  on %s", d->netdevs[0]);
	fputc('\n', out);
	for (unsigned p = 0; p < d->nports; p++) {
		const struct rs_rdma_port *port = &d->ports[p];
		bool eth = strcmp(port->link_layer, "Ethernet") == 0;
		fprintf(out, "       port %u: %s%s%s\n", port->num, eth ? "RoCE (Ethernet)" : port->link_layer,
			port->state[0] ? ", " : "", port->state);
		for (unsigned g = 0; g < d->ngids; g++) {
			const struct rs_rdma_gid *gid = &d->gids[g];
			if (gid->port != port->num)
				continue;
			fprintf(out, "         GID %-3u %-40s %s", gid->index, gid->addr,
				rs_gid_type_label(gid->type, port->link_layer));
			if (gid->ndev[0] && (!under || strcmp(gid->ndev, under) != 0))
				fprintf(out, "  via %s", gid->ndev);
			fputc('\n', out);
		}
	}
}

void rs_rdmadev_render(FILE *out, const struct rs_iface *ifs, unsigned nifs, const struct rs_rdmadev *devs,
		       unsigned ndevs)
{
	bool *shown = calloc(ndevs ? ndevs : 1, sizeof *shown);
	for (unsigned i = 0; i < nifs; i++) {
		fprintf(out, "%u.%s", i + 1, ifs[i].name);
		if (ifs[i].description && *ifs[i].description)
			fprintf(out, " (%s)", ifs[i].description);
		if (ifs[i].flags && *ifs[i].flags)
			fprintf(out, " [%s]", ifs[i].flags);
		fputc('\n', out);
		for (unsigned k = 0; k < ndevs; k++)
			if (bound_to(&devs[k], ifs[i].name)) {
				render_dev(out, &devs[k], ifs[i].name);
				if (shown)
					shown[k] = true;
			}
	}
	bool header = false;
	for (unsigned k = 0; k < ndevs; k++) {
		if (shown && shown[k])
			continue;
		if (!header) {
			fprintf(out, "RDMA devices on no interface listed above:\n");
			header = true;
		}
		render_dev(out, &devs[k], NULL);
	}
	free(shown);
}
