/*
 * mserver.c — the --metrics endpoint: libmicrohttpd serves the latest
 * metrics the analysis published (cli/summary.c, every --refresh period),
 * at /metrics, to GET and HEAD only; / says where they are; anything else
 * gets an error. The HTTP parsing, the limits on connections, header size
 * and idle time are libmicrohttpd's, in its own thread; this side only
 * copies a buffer under a lock, so a slow or hostile client never holds up
 * the capture.
 *
 * The format is chosen as Prometheus' own exporters choose it: OpenMetrics
 * when the scraper's Accept header asks for application/openmetrics-text
 * (Prometheus does), else the text format 0.0.4 (curl, promtool).
 *
 * The listening socket is made here, not by libmicrohttpd, so that an
 * address in use or not ours is an error that says so, at start.
 */
#include <errno.h>
#include <netdb.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <microhttpd.h>

#include "cli/cli.h"

/* Connections at once (enough that slow clients holding some open leave
 * room for the scraper, which shares their address when on loopback: no
 * limit per address), the bytes one may use for its request (headers
 * included: a bigger request is refused), and how long one may stay idle
 * (a client sending a byte a minute is cut off). */
#define MS_CONNECTIONS 256
#define MS_CONN_MEMORY (32 * 1024)
#define MS_IDLE_SECONDS 10

struct rs_mserver {
	struct MHD_Daemon *d;
	int fd;
	pthread_mutex_t lock;
	char *prom, *om;          /* the latest, NUL-terminated */
	size_t nprom, nom;
};

static const char ROOT_PAGE[] = "rocestat: metrics at /metrics\n";

static enum MHD_Result reply(struct MHD_Connection *c, unsigned status, const char *type, const char *body, size_t n)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(n, (void *)body, MHD_RESPMEM_MUST_COPY);
	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	enum MHD_Result ok = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ok;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url, const char *method,
			      const char *version, const char *upload, size_t *upload_size, void **con_cls)
{
	(void)version;
	(void)con_cls;
	struct rs_mserver *m = cls;
	static const char text[] = "text/plain; charset=utf-8";
	if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 && strcmp(method, MHD_HTTP_METHOD_HEAD) != 0) {
		static const char msg[] = "only GET and HEAD are served\n";
		(void)upload;
		*upload_size = 0; /* a body is not read */
		return reply(c, MHD_HTTP_METHOD_NOT_ALLOWED, text, msg, sizeof msg - 1);
	}
	if (strcmp(url, "/") == 0)
		return reply(c, MHD_HTTP_OK, text, ROOT_PAGE, sizeof ROOT_PAGE - 1);
	if (strcmp(url, "/metrics") != 0) {
		static const char msg[] = "not found: the metrics are at /metrics\n";
		return reply(c, MHD_HTTP_NOT_FOUND, text, msg, sizeof msg - 1);
	}
	const char *accept = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT);
	bool om = accept && strstr(accept, "application/openmetrics-text");
	pthread_mutex_lock(&m->lock);
	enum MHD_Result ok = reply(c, MHD_HTTP_OK,
				   om ? "application/openmetrics-text; version=1.0.0; charset=utf-8"
				      : "text/plain; version=0.0.4; charset=utf-8",
				   om ? m->om : m->prom, om ? m->nom : m->nprom);
	pthread_mutex_unlock(&m->lock);
	return ok;
}

/* "[ADDR]:PORT", "ADDR:PORT" or ":PORT" (loopback): a bound, listening socket. */
static int listen_on(const char *spec, char *err, size_t len)
{
	const char *colon = strrchr(spec, ':');
	if (!colon || !colon[1]) {
		snprintf(err, len, "--metrics %s: expected [ADDR]:PORT (ADDR: loopback if left out)", spec);
		return -1;
	}
	char host[256];
	size_t hl = (size_t)(colon - spec);
	if (hl >= sizeof host) {
		snprintf(err, len, "--metrics %s: the address is too long", spec);
		return -1;
	}
	memcpy(host, spec, hl);
	host[hl] = '\0';
	if (hl >= 2 && host[0] == '[' && host[hl - 1] == ']') {
		memmove(host, host + 1, hl - 2);
		host[hl - 2] = '\0';
	}
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_NUMERICHOST | AI_NUMERICSERV | AI_PASSIVE };
	struct addrinfo *ai;
	int rc = getaddrinfo(host[0] ? host : "127.0.0.1", colon + 1, &hints, &ai);
	if (rc) {
		snprintf(err, len, "--metrics %s: %s (give a numeric address and port)", spec, gai_strerror(rc));
		return -1;
	}
	int fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int one = 1;
	if (fd >= 0)
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	if (fd < 0 || bind(fd, ai->ai_addr, ai->ai_addrlen) != 0 || listen(fd, 64) != 0) {
		snprintf(err, len, "--metrics %s: %s", spec, strerror(errno));
		if (fd >= 0)
			close(fd);
		fd = -1;
	}
	freeaddrinfo(ai);
	return fd;
}

struct rs_mserver *rs_mserver_start(const char *spec, char *err, size_t len)
{
	int fd = listen_on(spec, err, len);
	if (fd < 0)
		return NULL;
	struct rs_mserver *m = calloc(1, sizeof *m);
	if (!m) {
		close(fd);
		snprintf(err, len, "--metrics: out of memory");
		return NULL;
	}
	pthread_mutex_init(&m->lock, NULL);
	m->fd = fd;
	m->prom = strdup("");
	m->om = strdup("# EOF\n");
	m->nom = m->om ? strlen(m->om) : 0;
	/* Its thread inherits our signal mask: SIGINT and SIGTERM are for the
	 * capturing thread, whose wait they end (cli/live.c). */
	sigset_t stop, was;
	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &stop, &was);
	m->d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL, 0, NULL, NULL, handle, m,
				MHD_OPTION_LISTEN_SOCKET, fd, MHD_OPTION_CONNECTION_LIMIT, (unsigned)MS_CONNECTIONS,
				MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)MS_CONN_MEMORY,
				MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)MS_IDLE_SECONDS, MHD_OPTION_END);
	pthread_sigmask(SIG_SETMASK, &was, NULL);
	if (!m->d || !m->prom || !m->om) {
		snprintf(err, len, "--metrics %s: the HTTP server did not start", spec);
		rs_mserver_stop(m);
		return NULL;
	}
	return m;
}

void rs_mserver_publish(struct rs_mserver *m, const char *prom, size_t nprom, const char *om, size_t nom)
{
	char *p = malloc(nprom + 1), *o = malloc(nom + 1);
	if (!p || !o) { /* the last ones stay */
		free(p);
		free(o);
		return;
	}
	memcpy(p, prom, nprom);
	p[nprom] = '\0';
	memcpy(o, om, nom);
	o[nom] = '\0';
	pthread_mutex_lock(&m->lock);
	char *oldp = m->prom, *oldo = m->om;
	m->prom = p;
	m->nprom = nprom;
	m->om = o;
	m->nom = nom;
	pthread_mutex_unlock(&m->lock);
	free(oldp);
	free(oldo);
}

void rs_mserver_stop(struct rs_mserver *m)
{
	if (!m)
		return;
	if (m->d)
		MHD_stop_daemon(m->d);
	else if (m->fd >= 0)
		close(m->fd);
	pthread_mutex_destroy(&m->lock);
	free(m->prom);
	free(m->om);
	free(m);
}
