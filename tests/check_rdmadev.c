/*
 * check_rdmadev.c — RDMA device resolution and -D against fake sysfs trees
 * laid out as the kernel does (drivers/infiniband/core/sysfs.c, rdma_rxe's
 * `parent` attribute):
 *   rxe0    Soft-RoCE on eth0: `parent`, RoCE v1 and v2 GIDs for a link-local
 *           and an IPv4 address, an unused entry, one GID on a VLAN netdev
 *   mlx5_0  hardware: `device` is a symlink to the PCI function, whose net/
 *           holds ens1f0
 *   mlx5_1  hardware with no netdev in sysfs, port down
 *   mlx5_2  InfiniBand port with an IPoIB netdev, a kernel without gid_attrs
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capture/rdmadev.h"
#include "tests/support/rstest.h"

static char root[256];

static void mkdirs(const char *path)
{
	char tmp[1024];
	snprintf(tmp, sizeof tmp, "%s", path);
	for (char *p = tmp + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			mkdir(tmp, 0755);
			*p = '/';
		}
	mkdir(tmp, 0755);
}

/* Write `content` to root/rel, creating the directories on the way. */
static void put(const char *rel, const char *content)
{
	char path[1024];
	snprintf(path, sizeof path, "%s/%s", root, rel);
	char *slash = strrchr(path, '/');
	*slash = '\0';
	mkdirs(path);
	*slash = '/';
	FILE *f = fopen(path, "w");
	ck_assert_msg(f != NULL, "%s: %s", path, strerror(errno));
	fputs(content, f);
	fclose(f);
}

static void gid(const char *dev, int port, int idx, const char *addr, const char *type, const char *ndev)
{
	char rel[256];
	snprintf(rel, sizeof rel, "class/infiniband/%s/ports/%d/gids/%d", dev, port, idx);
	put(rel, addr);
	if (type) {
		snprintf(rel, sizeof rel, "class/infiniband/%s/ports/%d/gid_attrs/types/%d", dev, port, idx);
		put(rel, type);
	}
	if (ndev) {
		snprintf(rel, sizeof rel, "class/infiniband/%s/ports/%d/gid_attrs/ndevs/%d", dev, port, idx);
		put(rel, ndev);
	}
}

static void setup(void)
{
	snprintf(root, sizeof root, "/tmp/check_rdmadev.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(root));

	put("class/infiniband/rxe0/parent", "eth0\n");
	put("class/infiniband/rxe0/node_guid", "5054:00ff:fe12:3456\n");
	put("class/infiniband/rxe0/ports/1/link_layer", "Ethernet\n");
	put("class/infiniband/rxe0/ports/1/state", "4: ACTIVE\n");
	gid("rxe0", 1, 0, "fe80:0000:0000:0000:5054:00ff:fe12:3456\n", "IB/RoCE v1\n", "eth0\n");
	gid("rxe0", 1, 1, "fe80:0000:0000:0000:5054:00ff:fe12:3456\n", "RoCE v2\n", "eth0\n");
	gid("rxe0", 1, 2, "0000:0000:0000:0000:0000:ffff:c000:0201\n", "IB/RoCE v1\n", "eth0\n");
	gid("rxe0", 1, 3, "0000:0000:0000:0000:0000:ffff:c000:0201\n", "RoCE v2\n", "eth0\n");
	/* An unused entry: zeros, and the kernel refuses to read its type
	 * (EINVAL): here the type file is simply absent. */
	gid("rxe0", 1, 4, "0000:0000:0000:0000:0000:0000:0000:0000\n", NULL, NULL);
	gid("rxe0", 1, 10, "0000:0000:0000:0000:0000:ffff:c000:0264\n", "RoCE v2\n", "eth0.100\n");

	char path[1024], target[1024];
	snprintf(path, sizeof path, "%s/devices/pci0000:00/0000:03:00.0/net/ens1f0", root);
	mkdirs(path);
	put("class/infiniband/mlx5_0/node_guid", "b859:9f03:00a1:b2c4\n");
	put("class/infiniband/mlx5_0/ports/1/link_layer", "Ethernet\n");
	put("class/infiniband/mlx5_0/ports/1/state", "4: ACTIVE\n");
	gid("mlx5_0", 1, 0, "fe80:0000:0000:0000:ba59:9fff:fea1:b2c4\n", "IB/RoCE v1\n", "ens1f0\n");
	gid("mlx5_0", 1, 1, "fe80:0000:0000:0000:ba59:9fff:fea1:b2c4\n", "RoCE v2\n", "ens1f0\n");
	snprintf(path, sizeof path, "%s/class/infiniband/mlx5_0/device", root);
	snprintf(target, sizeof target, "../../../devices/pci0000:00/0000:03:00.0");
	ck_assert_int_eq(symlink(target, path), 0);

	put("class/infiniband/mlx5_1/node_guid", "b859:9f03:00a1:b2c5\n");
	put("class/infiniband/mlx5_1/ports/1/link_layer", "Ethernet\n");
	put("class/infiniband/mlx5_1/ports/1/state", "1: DOWN\n");

	put("class/infiniband/mlx5_2/node_guid", "0002:c903:00a1:b2c6\n");
	put("class/infiniband/mlx5_2/device/net/ib0/type", "32\n");
	put("class/infiniband/mlx5_2/ports/1/link_layer", "InfiniBand\n");
	put("class/infiniband/mlx5_2/ports/1/state", "4: ACTIVE\n");
	gid("mlx5_2", 1, 0, "fe80:0000:0000:0000:0002:c903:00a1:b2c6\n", NULL, NULL);
}

static void teardown(void)
{
	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
	ck_assert_int_eq(system(cmd), 0);
}

START_TEST(gid_types)
{
	ck_assert_int_eq(rs_gid_type_parse("IB/RoCE v1\n"), RS_GID_IB_ROCE_V1);
	ck_assert_int_eq(rs_gid_type_parse("IB/RoCE v1"), RS_GID_IB_ROCE_V1);
	ck_assert_int_eq(rs_gid_type_parse("RoCE v2\n"), RS_GID_ROCE_V2);
	ck_assert_int_eq(rs_gid_type_parse("RoCE v2 "), RS_GID_UNKNOWN);
	ck_assert_int_eq(rs_gid_type_parse("RoCE v1"), RS_GID_UNKNOWN);
	ck_assert_int_eq(rs_gid_type_parse(""), RS_GID_UNKNOWN);
	ck_assert_str_eq(rs_gid_type_label(RS_GID_IB_ROCE_V1, "Ethernet"), "RoCE v1");
	ck_assert_str_eq(rs_gid_type_label(RS_GID_IB_ROCE_V1, "InfiniBand"), "IB");
	ck_assert_str_eq(rs_gid_type_label(RS_GID_ROCE_V2, "Ethernet"), "RoCE v2");
}
END_TEST

START_TEST(resolve_rxe_through_parent)
{
	char nd[RS_RDMA_NAME_MAX], how[RS_ERRBUF_SIZE];
	ck_assert_int_eq(rs_rdmadev_resolve(root, "rxe0", nd, how), RS_RESOLVE_OK);
	ck_assert_str_eq(nd, "eth0");
	ck_assert_msg(strstr(how, "rxe0") && strstr(how, "Soft-RoCE") && strstr(how, "eth0"), "%s", how);
}
END_TEST

START_TEST(resolve_hardware_through_device_net)
{
	char nd[RS_RDMA_NAME_MAX], how[RS_ERRBUF_SIZE];
	ck_assert_int_eq(rs_rdmadev_resolve(root, "mlx5_0", nd, how), RS_RESOLVE_OK);
	ck_assert_str_eq(nd, "ens1f0");
	ck_assert_msg(strstr(how, "mlx5_0") && strstr(how, "ens1f0"), "%s", how);
}
END_TEST

START_TEST(resolve_device_without_netdev)
{
	char nd[RS_RDMA_NAME_MAX], how[RS_ERRBUF_SIZE];
	ck_assert_int_eq(rs_rdmadev_resolve(root, "mlx5_1", nd, how), RS_RESOLVE_NO_NETDEV);
	ck_assert_str_eq(nd, "");
	ck_assert_msg(strstr(how, "mlx5_1") && strstr(how, "device/net") && !strchr(how, '\n'), "%s", how);
	/* An InfiniBand port: its IPoIB netdev is not where its traffic is. */
	ck_assert_int_eq(rs_rdmadev_resolve(root, "mlx5_2", nd, how), RS_RESOLVE_NO_NETDEV);
	ck_assert_msg(strstr(how, "mlx5_2") && strstr(how, "InfiniBand"), "%s", how);
}
END_TEST

START_TEST(resolve_missing_device)
{
	char nd[RS_RDMA_NAME_MAX], how[RS_ERRBUF_SIZE];
	ck_assert_int_eq(rs_rdmadev_resolve(root, "nosuch0", nd, how), RS_RESOLVE_NOT_RDMA);
	ck_assert_int_eq(rs_rdmadev_resolve(root, "eth0", nd, how), RS_RESOLVE_NOT_RDMA);
	ck_assert_int_eq(rs_rdmadev_resolve(root, "../rxe0", nd, how), RS_RESOLVE_NOT_RDMA);
	ck_assert_int_eq(rs_rdmadev_resolve(root, "", nd, how), RS_RESOLVE_NOT_RDMA);
	ck_assert_int_eq(rs_rdmadev_resolve("/nonexistent-sysfs", "rxe0", nd, how), RS_RESOLVE_NOT_RDMA);
	struct rs_rdmadev d;
	char err[RS_ERRBUF_SIZE];
	ck_assert(!rs_rdmadev_read(root, "nosuch0", &d, err));
	ck_assert_msg(strstr(err, "nosuch0"), "%s", err);
}
END_TEST

START_TEST(read_rxe_gid_table)
{
	struct rs_rdmadev d;
	char err[RS_ERRBUF_SIZE];
	ck_assert_msg(rs_rdmadev_read(root, "rxe0", &d, err), "%s", err);
	ck_assert(d.soft);
	ck_assert_str_eq(d.node_guid, "5054:00ff:fe12:3456");
	ck_assert_uint_eq(d.nports, 1);
	ck_assert_str_eq(d.ports[0].link_layer, "Ethernet");
	ck_assert_str_eq(d.ports[0].state, "ACTIVE");
	/* 0, 1, 2, 3, 10 in numeric order; the unused entry 4 is left out. */
	ck_assert_uint_eq(d.ngids, 5);
	static const unsigned idx[] = { 0, 1, 2, 3, 10 };
	static const char *const addr[] = { "fe80::5054:ff:fe12:3456", "fe80::5054:ff:fe12:3456", "::ffff:192.0.2.1",
					    "::ffff:192.0.2.1", "::ffff:192.0.2.100" };
	static const enum rs_gid_type type[] = { RS_GID_IB_ROCE_V1, RS_GID_ROCE_V2, RS_GID_IB_ROCE_V1, RS_GID_ROCE_V2,
						 RS_GID_ROCE_V2 };
	for (unsigned i = 0; i < 5; i++) {
		ck_assert_uint_eq(d.gids[i].index, idx[i]);
		ck_assert_str_eq(d.gids[i].addr, addr[i]);
		ck_assert_int_eq(d.gids[i].type, type[i]);
	}
	ck_assert_str_eq(d.gids[4].ndev, "eth0.100");
	free(d.gids);
}
END_TEST

START_TEST(list_all_devices)
{
	struct rs_rdmadev *devs;
	unsigned n = rs_rdmadev_list(root, &devs);
	ck_assert_uint_eq(n, 4);
	ck_assert_str_eq(devs[0].name, "mlx5_0");
	ck_assert_str_eq(devs[1].name, "mlx5_1");
	ck_assert_str_eq(devs[2].name, "mlx5_2");
	ck_assert_str_eq(devs[3].name, "rxe0");
	ck_assert_uint_eq(devs[2].ngids, 1);
	ck_assert_int_eq(devs[2].gids[0].type, RS_GID_IB_ROCE_V1);
	rs_rdmadev_free(devs, n);
	ck_assert_uint_eq(rs_rdmadev_list("/nonexistent-sysfs", &devs), 0);
	rs_rdmadev_free(devs, 0);
}
END_TEST

/* The expected -D output, written out by hand from the tree above. */
static const char expected_listing[] =
	"1.eth0 [Up, Running, Connected]\n"
	"     rxe0 (Soft-RoCE)  node GUID 5054:00ff:fe12:3456\n"
	"       port 1: RoCE (Ethernet), ACTIVE\n"
	"         GID 0   fe80::5054:ff:fe12:3456                  RoCE v1\n"
	"         GID 1   fe80::5054:ff:fe12:3456                  RoCE v2\n"
	"         GID 2   ::ffff:192.0.2.1                         RoCE v1\n"
	"         GID 3   ::ffff:192.0.2.1                         RoCE v2\n"
	"         GID 10  ::ffff:192.0.2.100                       RoCE v2  via eth0.100\n"
	"2.any (Pseudo-device that captures on all interfaces) [Up, Running]\n"
	"3.ens1f0 [Up]\n"
	"     mlx5_0  node GUID b859:9f03:00a1:b2c4\n"
	"       port 1: RoCE (Ethernet), ACTIVE\n"
	"         GID 0   fe80::ba59:9fff:fea1:b2c4                RoCE v1\n"
	"         GID 1   fe80::ba59:9fff:fea1:b2c4                RoCE v2\n"
	"4.lo [Up, Running, Loopback]\n"
	"RDMA devices on no interface listed above:\n"
	"     mlx5_1  node GUID b859:9f03:00a1:b2c5\n"
	"       port 1: RoCE (Ethernet), DOWN\n"
	"     mlx5_2  node GUID 0002:c903:00a1:b2c6  on ib0\n"
	"       port 1: InfiniBand, ACTIVE\n"
	"         GID 0   fe80::2:c903:a1:b2c6                     IB\n";

START_TEST(render_listing)
{
	struct rs_iface ifs[] = {
		{ "eth0", NULL, "Up, Running, Connected" },
		{ "any", "Pseudo-device that captures on all interfaces", "Up, Running" },
		{ "ens1f0", NULL, "Up" },
		{ "lo", NULL, "Up, Running, Loopback" },
	};
	struct rs_rdmadev *devs;
	unsigned n = rs_rdmadev_list(root, &devs);
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	rs_rdmadev_render(out, ifs, 4, devs, n);
	fclose(out);
	ck_assert_str_eq(buf, expected_listing);
	free(buf);
	rs_rdmadev_free(devs, n);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("rdmadev");
	TCase *t = tcase_create("rdmadev");
	tcase_add_checked_fixture(t, setup, teardown);
	tcase_add_test(t, gid_types);
	tcase_add_test(t, resolve_rxe_through_parent);
	tcase_add_test(t, resolve_hardware_through_device_net);
	tcase_add_test(t, resolve_device_without_netdev);
	tcase_add_test(t, resolve_missing_device);
	tcase_add_test(t, read_rxe_gid_table);
	tcase_add_test(t, list_all_devices);
	tcase_add_test(t, render_listing);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	return rt_run_suite(suite());
}
