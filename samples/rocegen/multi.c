/* --qps N: N connections at once. Each is its own process running the
 * one-connection scenario on port PORT+i with its own truth file, so the
 * CM exchange, the QP and the completion handling are exactly those of a
 * single run; the QPs' traffic interleaves on the wire because the
 * processes run at the same time. The server touches the ready file once
 * all N listen. The truth file then holds the N truths, in port order. */
#include "rocegen.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_QPS 64

struct child {
	pid_t pid;
	int status;		/* exit status once reaped, -1 before */
	char port[8];
	char truth[4096];
	char ready[4096];
};

static void touch(const char *path)
{
	FILE *f = fopen(path, "w");
	if (!f || fclose(f))
		die("cannot create %s: %m", path);
}

static void reap(struct child *ch, bool block)
{
	if (ch->status >= 0)
		return;
	int st;
	pid_t r = waitpid(ch->pid, &st, block ? 0 : WNOHANG);
	if (r == ch->pid)
		ch->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	else if (r < 0 && errno != EINTR)
		ch->status = 127;
}

/* Wait until every child listens (its ready file exists) or has exited. */
static void wait_listening(struct child *ch, unsigned n)
{
	struct timespec ms10 = { .tv_sec = 0, .tv_nsec = 10000000L };
	for (;;) {
		unsigned settled = 0;
		for (unsigned i = 0; i < n; i++) {
			reap(&ch[i], false);
			if (ch[i].status >= 0 || access(ch[i].ready, F_OK) == 0)
				settled++;
		}
		if (settled == n)
			return;
		nanosleep(&ms10, NULL);
	}
}

/* The children's truth files, verbatim, as one JSON object. */
static void write_truth(const struct options *o, struct child *ch, unsigned n, bool ok)
{
	FILE *f = fopen(o->truth_path, "w");
	if (!f)
		die("cannot write %s: %m", o->truth_path);
	fprintf(f, "{\n\"format\": \"rocegen-side-multi/1\",\n\"side\": \"%s\",\n"
		"\"scenario\": \"%s\",\n\"qps\": %u,\n\"ok\": %s,\n\"connections\": [\n",
		o->server ? "server" : "client", scenario_name(o->scenario), n,
		ok ? "true" : "false");
	for (unsigned i = 0; i < n; i++) {
		FILE *in = fopen(ch[i].truth, "r");
		if (in) {
			char buf[8192];
			size_t k;
			while ((k = fread(buf, 1, sizeof(buf), in)) > 0)
				fwrite(buf, 1, k, f);
			fclose(in);
		} else {
			fprintf(f, "null\n");	/* that process left nothing */
		}
		fprintf(f, "%s", i + 1 < n ? ",\n" : "");
	}
	fprintf(f, "]\n}\n");
	if (fclose(f))
		die("cannot write %s: %m", o->truth_path);
}

int multi_run(const struct options *o, int (*one)(struct options *))
{
	static struct child ch[MAX_QPS];
	unsigned n = o->qps, base = (unsigned)strtoul(o->port, NULL, 10);
	if (n > MAX_QPS || base + n - 1 > 65535)
		die("--qps %u from port %u does not fit", n, base);
	fflush(NULL);
	for (unsigned i = 0; i < n; i++) {
		snprintf(ch[i].port, sizeof(ch[i].port), "%u", base + i);
		snprintf(ch[i].truth, sizeof(ch[i].truth), "%s.%u",
			 o->truth_path ? o->truth_path : "/dev/null", i);
		snprintf(ch[i].ready, sizeof(ch[i].ready), "%s.%u",
			 o->ready_path ? o->ready_path : "/tmp/rocegen-ready", i);
		unlink(ch[i].ready);
		ch[i].status = -1;
		ch[i].pid = fork();
		if (ch[i].pid < 0)
			die("fork: %m");
		if (ch[i].pid == 0) {
			struct options sub = *o;
			sub.qps = 1;
			sub.port = ch[i].port;
			sub.truth_path = o->truth_path ? ch[i].truth : NULL;
			sub.ready_path = o->server ? ch[i].ready : NULL;
			_exit(one(&sub));
		}
	}
	if (o->server) {
		wait_listening(ch, n);
		if (o->ready_path)
			touch(o->ready_path);
	}
	bool ok = true;
	for (unsigned i = 0; i < n; i++) {
		reap(&ch[i], true);
		if (ch[i].status != 0) {
			fprintf(stderr, "rocegen: connection %u (port %s) exited with %d\n",
				i, ch[i].port, ch[i].status);
			ok = false;
		}
	}
	if (o->truth_path)
		write_truth(o, ch, n, ok);
	fprintf(stderr, "rocegen %s: %u connections, %s\n", o->server ? "server" : "client",
		n, ok ? "all done" : "FAILED");
	return ok ? 0 : 1;
}
