/*
 * rdmadev.h — RDMA devices as sysfs shows them, for `-i rxe0` and `-D`.
 *
 * Everything is read under a sysfs root given by the caller (normally /sys;
 * tests pass a fake tree):
 *   class/infiniband/<dev>/parent               Soft-RoCE (rdma_rxe, siw): the netdev's name
 *   class/infiniband/<dev>/device/net/<netdev>  hardware: the PCI function's netdevs
 *   class/infiniband/<dev>/node_guid            "xxxx:xxxx:xxxx:xxxx"
 *   class/infiniband/<dev>/ports/<n>/link_layer "Ethernet" (RoCE) or "InfiniBand"
 *   class/infiniband/<dev>/ports/<n>/state      "4: ACTIVE"
 *   class/infiniband/<dev>/ports/<n>/gids/<i>   "fe80:0000:...:3456"; unused entries read as zeros
 *   .../ports/<n>/gid_attrs/types/<i>           "IB/RoCE v1" or "RoCE v2"; unused entries fail to read
 *   .../ports/<n>/gid_attrs/ndevs/<i>           the netdev the GID belongs to
 */
#ifndef RS_RDMADEV_H
#define RS_RDMADEV_H

#include <stdbool.h>
#include <stdio.h>

#include "capture/source.h"

#define RS_RDMA_NAME_MAX 64
#define RS_RDMA_MAX_NETDEVS 8
#define RS_RDMA_MAX_PORTS 8

enum rs_gid_type { RS_GID_UNKNOWN = 0, RS_GID_IB_ROCE_V1, RS_GID_ROCE_V2 };

struct rs_rdma_gid {
	unsigned port, index;
	char addr[48];                 /* compressed IPv6 form (RoCE v2 IPv4 GIDs show as ::ffff:a.b.c.d) */
	enum rs_gid_type type;
	char ndev[RS_RDMA_NAME_MAX];   /* "" when sysfs does not say */
};

struct rs_rdma_port {
	unsigned num;
	char link_layer[16];           /* "Ethernet", "InfiniBand", ... as read */
	char state[24];                /* "ACTIVE", "DOWN", ... ("" if unreadable) */
};

struct rs_rdmadev {
	char name[RS_RDMA_NAME_MAX];
	bool soft;                     /* has a `parent` attribute (Soft-RoCE) */
	char node_guid[24];
	unsigned nnetdevs;
	char netdevs[RS_RDMA_MAX_NETDEVS][RS_RDMA_NAME_MAX]; /* the parent, or device/net entries sorted */
	unsigned nports;
	struct rs_rdma_port ports[RS_RDMA_MAX_PORTS];
	unsigned ngids;
	struct rs_rdma_gid *gids;      /* populated RoCE/IB GIDs, by port then index */
};

/* "IB/RoCE v1" -> RS_GID_IB_ROCE_V1, "RoCE v2" -> RS_GID_ROCE_V2 (trailing newline allowed). */
enum rs_gid_type rs_gid_type_parse(const char *s);
/* "RoCE v1" / "RoCE v2" on an Ethernet port, "IB" on an InfiniBand one. */
const char *rs_gid_type_label(enum rs_gid_type t, const char *link_layer);

/* Read one device. False (errbuf names the directory) if it is not there. */
bool rs_rdmadev_read(const char *sysfs_root, const char *name, struct rs_rdmadev *d, char errbuf[RS_ERRBUF_SIZE]);
/* Every device, sorted by name; *devs is malloc()ed. Returns the count (0
 * when there is no class/infiniband at all). */
unsigned rs_rdmadev_list(const char *sysfs_root, struct rs_rdmadev **devs);
void rs_rdmadev_free(struct rs_rdmadev *devs, unsigned n);

enum rs_resolve {
	RS_RESOLVE_NOT_RDMA = 0, /* no such RDMA device: the name is used as it is */
	RS_RESOLVE_OK,           /* netdev holds the network interface to capture on */
	RS_RESOLVE_NO_NETDEV,    /* an RDMA device, but sysfs names no netdev for it */
};

/* -i NAME: map an RDMA device to the netdev it sends through. `how` gets
 * one sentence for the user saying what was resolved, and from where. */
enum rs_resolve rs_rdmadev_resolve(const char *sysfs_root, const char *name, char netdev[RS_RDMA_NAME_MAX],
				   char how[RS_ERRBUF_SIZE]);

/* A capture interface as -D lists it. */
struct rs_iface {
	const char *name;
	const char *description; /* or NULL */
	const char *flags;       /* "Up, Running" ... or NULL */
};

/* -D: the interfaces, numbered, each followed by the RDMA devices bound to
 * it (name, node GUID, link layer, GIDs with their RoCE type); then the RDMA
 * devices bound to no listed interface. */
void rs_rdmadev_render(FILE *out, const struct rs_iface *ifs, unsigned nifs, const struct rs_rdmadev *devs,
		       unsigned ndevs);

#endif
