/* rocegen: command line. See usage() or samples/README.md. */
#include "rocegen.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f)
{
	fprintf(f,
"usage: rocegen (--server ADDR | --client ADDR) [options] SCENARIO\n"
"\n"
"Runs one side of a named RDMA scenario over RDMA CM (librdmacm) and\n"
"libibverbs, and writes that side's ground truth as JSON. Run the server\n"
"first, then the client with the same SCENARIO and options.\n"
"\n"
"Scenarios (the client is the requester unless said otherwise):\n"
"  send        COUNT SENDs of SIZE bytes into receives the server posted\n"
"  send-imm    the same with SEND_WITH_IMM (immediate 0xc0de0000 + i)\n"
"  write       COUNT RDMA WRITEs into the server's buffer\n"
"  write-imm   COUNT RDMA_WRITE_WITH_IMM, each consuming a server receive\n"
"  read        COUNT RDMA READs of the server's buffer, data checked\n"
"  atomic-cas  COUNT compare-and-swap on one 64-bit word; the last compare\n"
"              is wrong on purpose, so it returns without swapping\n"
"  atomic-faa  COUNT fetch-and-add (add i+1) on one 64-bit word\n"
"  mixed       per step: WRITE payload, zero-length WRITE_WITH_IMM as a\n"
"              ready signal, READ back; COUNT steps, one at a time\n"
"  ud          UD QPs over RDMA CM's UDP port space (SIDR REQ/REP); the\n"
"              client sends COUNT, the server answers each to its src QP\n"
"  reject      the server rejects the REQ with private data (REJ)\n"
"  rnr         SENDs while the server holds its receives back for\n"
"              --rnr-delay ms: RNR NAKs, then retries (rnr_retry 7)\n"
"  bad-rkey    a WRITE to an rkey the server never issued (NAK: remote\n"
"              access error), then COUNT-1 valid WRITEs that get flushed\n"
"  disconnect  the server SENDs COUNT, then disconnects (DREQ) while the\n"
"              client still has DEPTH-COUNT receives posted (flushed)\n"
"  rnr-exhaust the server posts PREPOST receives and no more; the client\n"
"              SENDs COUNT until one fails with RNR retry exceeded (give\n"
"              --rnr-retry below 7); the rest are flushed\n"
"  dead-peer   the client WRITEs COUNT; once STOP_AFTER have landed the\n"
"              server destroys its QP without a DREQ, so the client's\n"
"              retries go unanswered until transport retry exceeded\n"
"              (or, with --give-up, until the client stops waiting)\n"
"  disconnect-both  the server SENDs one message; both sides then call\n"
"              rdma_disconnect at about the same time (the client waits\n"
"              --cross-delay ms first), so the two DREQs cross\n"
"\n"
"Options:\n"
"  --server ADDR      run the server side, bound to ADDR\n"
"  --client ADDR      run the client side, connecting to the server at ADDR\n"
"  --port PORT        RDMA CM port (default 7471)\n"
"  --size BYTES       message size (default 64; atomics always 8)\n"
"  --count N          messages, operations or steps (default 4)\n"
"  --depth N          queue depth: send and receive queue size, and the most\n"
"                     WRs kept outstanding (default 8)\n"
"  --inline           post SENDs/WRITEs with IBV_SEND_INLINE\n"
"  -4, --ipv4         ADDR is IPv4 (default)\n"
"  -6, --ipv6         ADDR is IPv6\n"
"  --truth FILE       write this side's ground truth JSON to FILE\n"
"  --ready-file FILE  server: create FILE once listening\n"
"  --timeout SEC      give up after SEC seconds (default 60)\n"
"  --rnr-delay MS     rnr: how long receives are held back (default 1000)\n"
"  --retry-cnt N      QP retry count, 0..7 (default 7)\n"
"  --rnr-retry N      QP RNR retry count, 0..7, 7 = for ever (default 7)\n"
"  --ack-timeout N    Local ACK Timeout exponent (4.096 us * 2^N), 0..31\n"
"                     (default: rdma_cm's, 19 with RoCE on Linux 6.1)\n"
"  --prepost N        rnr, rnr-exhaust: receives the server posts before it\n"
"                     accepts (default 0)\n"
"  --stop-after K     dead-peer: messages the server takes before its QP\n"
"                     goes (default COUNT/4, at least 1)\n"
"  --give-up MS       dead-peer client: stop waiting MS after the first WRITE\n"
"                     and disconnect (for --retry-cnt 7, retried for ever)\n"
"  --cross-delay MS   disconnect-both: the client's wait (default 20; give\n"
"                     both guests a netem delay of about that much)\n"
"  --qps N            N connections at once, one process each, on ports\n"
"                     PORT..PORT+N-1; --truth FILE then holds all N\n"
"  --list             print the scenario names\n"
"  -h, --help         this text\n"
"\n"
"Exit status 0 when the scenario did what it says and every check passed.\n");
}

static unsigned parse_uint(const char *s, const char *what, unsigned lo, unsigned hi)
{
	char *end;
	unsigned long v = strtoul(s, &end, 0);
	if (!*s || *end || v < lo || v > hi) {
		fprintf(stderr, "rocegen: %s must be %u..%u, not '%s'\n", what, lo, hi, s);
		exit(2);
	}
	return (unsigned)v;
}

static void parse(int argc, char **argv, struct options *o)
{
	enum { O_SERVER = 256, O_CLIENT, O_PORT, O_SIZE, O_COUNT, O_DEPTH, O_INLINE,
	       O_TRUTH, O_READY, O_TIMEOUT, O_RNR, O_LIST,
	       O_RETRY, O_RNR_RETRY, O_ACK_TIMEOUT, O_PREPOST, O_STOP_AFTER,
	       O_GIVE_UP, O_CROSS_DELAY, O_QPS };
	static const struct option longs[] = {
		{ "server", required_argument, NULL, O_SERVER },
		{ "client", required_argument, NULL, O_CLIENT },
		{ "port", required_argument, NULL, O_PORT },
		{ "size", required_argument, NULL, O_SIZE },
		{ "count", required_argument, NULL, O_COUNT },
		{ "depth", required_argument, NULL, O_DEPTH },
		{ "inline", no_argument, NULL, O_INLINE },
		{ "ipv4", no_argument, NULL, '4' },
		{ "ipv6", no_argument, NULL, '6' },
		{ "truth", required_argument, NULL, O_TRUTH },
		{ "ready-file", required_argument, NULL, O_READY },
		{ "timeout", required_argument, NULL, O_TIMEOUT },
		{ "rnr-delay", required_argument, NULL, O_RNR },
		{ "retry-cnt", required_argument, NULL, O_RETRY },
		{ "rnr-retry", required_argument, NULL, O_RNR_RETRY },
		{ "ack-timeout", required_argument, NULL, O_ACK_TIMEOUT },
		{ "prepost", required_argument, NULL, O_PREPOST },
		{ "stop-after", required_argument, NULL, O_STOP_AFTER },
		{ "give-up", required_argument, NULL, O_GIVE_UP },
		{ "cross-delay", required_argument, NULL, O_CROSS_DELAY },
		{ "qps", required_argument, NULL, O_QPS },
		{ "list", no_argument, NULL, O_LIST },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool have_role = false;
	int ch;

	*o = (struct options){ .port = "7471", .size = 64, .count = 4, .depth = 8,
			       .timeout_s = 60, .rnr_delay_ms = 1000, .retry_cnt = 7,
			       .rnr_retry = 7, .ack_timeout = -1,
			       .cross_delay_ms = 20, .qps = 1 };
	while ((ch = getopt_long(argc, argv, "46h", longs, NULL)) != -1) {
		switch (ch) {
		case O_SERVER:
		case O_CLIENT:
			if (have_role) {
				fprintf(stderr, "rocegen: give one of --server or --client\n");
				exit(2);
			}
			have_role = true;
			o->server = ch == O_SERVER;
			o->addr = optarg;
			break;
		case O_PORT: parse_uint(optarg, "--port", 1, 65535); o->port = optarg; break;
		case O_SIZE: o->size = parse_uint(optarg, "--size", 1, 1u << 20); break;
		case O_COUNT: o->count = parse_uint(optarg, "--count", 1, 4096); break;
		case O_DEPTH: o->depth = parse_uint(optarg, "--depth", 1, 1024); break;
		case O_INLINE: o->inline_data = true; break;
		case '4': o->ipv6 = false; break;
		case '6': o->ipv6 = true; break;
		case O_TRUTH: o->truth_path = optarg; break;
		case O_READY: o->ready_path = optarg; break;
		case O_TIMEOUT: o->timeout_s = parse_uint(optarg, "--timeout", 1, 3600); break;
		case O_RNR: o->rnr_delay_ms = parse_uint(optarg, "--rnr-delay", 0, 60000); break;
		case O_RETRY: o->retry_cnt = parse_uint(optarg, "--retry-cnt", 0, 7); break;
		case O_RNR_RETRY: o->rnr_retry = parse_uint(optarg, "--rnr-retry", 0, 7); break;
		case O_ACK_TIMEOUT:
			o->ack_timeout = (int)parse_uint(optarg, "--ack-timeout", 0, 31);
			break;
		case O_PREPOST: o->prepost = parse_uint(optarg, "--prepost", 0, 1024); break;
		case O_STOP_AFTER: o->stop_after = parse_uint(optarg, "--stop-after", 1, 4096); break;
		case O_GIVE_UP: o->give_up_ms = parse_uint(optarg, "--give-up", 1, 600000); break;
		case O_CROSS_DELAY:
			o->cross_delay_ms = parse_uint(optarg, "--cross-delay", 0, 10000);
			break;
		case O_QPS: o->qps = parse_uint(optarg, "--qps", 1, 64); break;
		case O_LIST:
			for (int i = 0; i < SC_COUNT; i++)
				printf("%s\n", scenario_name((enum scenario)i));
			exit(0);
		case 'h': usage(stdout); exit(0);
		default: usage(stderr); exit(2);
		}
	}
	if (!have_role || optind != argc - 1) {
		usage(stderr);
		exit(2);
	}
	if (!scenario_from_name(argv[optind], &o->scenario)) {
		fprintf(stderr, "rocegen: unknown scenario '%s' (try --list)\n", argv[optind]);
		exit(2);
	}
	if (o->scenario == SC_ATOMIC_CAS || o->scenario == SC_ATOMIC_FAA)
		o->size = 8;
	if (o->scenario == SC_UD && o->size > 1024) {
		fprintf(stderr, "rocegen: ud messages must fit one MTU (--size <= 1024)\n");
		exit(2);
	}
	if (o->scenario == SC_DISCONNECT && o->count >= o->depth) {
		fprintf(stderr, "rocegen: disconnect needs --count < --depth so receives remain\n");
		exit(2);
	}
	if (o->scenario == SC_DEAD_PEER) {
		if (!o->stop_after)
			o->stop_after = o->count / 4 ? o->count / 4 : 1;
		if (o->stop_after >= o->count) {
			fprintf(stderr, "rocegen: dead-peer needs --stop-after < --count\n");
			exit(2);
		}
	}
	if ((o->scenario == SC_RNR || o->scenario == SC_RNR_EXHAUST) && o->prepost > o->depth) {
		fprintf(stderr, "rocegen: --prepost must not exceed --depth\n");
		exit(2);
	}
	if (o->scenario == SC_BAD_RKEY && o->count > o->depth) {
		fprintf(stderr, "rocegen: bad-rkey posts all WRITEs at once: --count <= --depth\n");
		exit(2);
	}
}

/* One connection: the scenario, then this side's truth. */
static int run_one(struct options *opt)
{
	static struct conn c;
	memset(&c, 0, sizeof(c));
	c.opt = opt;
	c.side = opt->server ? "server" : "client";
	c.t0 = now_s();
	die_conn = &c;

	if (opt->server)
		run_server(&c);
	else
		run_client(&c);

	die_conn = NULL;
	truth_write(&c);
	fprintf(stderr, "rocegen %s: scenario %s %s\n", c.side, scenario_name(opt->scenario),
		c.failed ? "FAILED" : "done");
	return c.failed ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct options opt;
	parse(argc, argv, &opt);
	setvbuf(stdout, NULL, _IOLBF, 0);
	return opt.qps > 1 ? multi_run(&opt, run_one) : run_one(&opt);
}
