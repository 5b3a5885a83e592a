/*
 * destfile.c — what an output written under a temporary name and renamed
 * over its destination owes the file it replaces. A rename needs only the
 * directory's permission, so without these checks a 0444 report, or one
 * that belongs to someone else, would be replaced by anyone who may write
 * the directory, and with the new file's mode and owner. tcpdump opens the
 * destination and truncates it; rocestat keeps the rename (readers see the
 * old file or the whole new one), and:
 *   - refuses, as tcpdump does ("Permission denied"), a file this user
 *     could not open for writing;
 *   - gives the new file the old one's mode, owner and group;
 *   - where that owner cannot be kept (a group-writable file of another
 *     user), or the file has other hard links, or the directory cannot
 *     take the temporary file, writes the file itself in place when the
 *     output is complete, as tcpdump would have from the start;
 *   - follows symbolic links: the file a link leads to is the one written
 *     (and checked), and the link stays.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture/destfile.h"

/* path, its symbolic links followed (the last one may name a file that does
 * not exist yet); malloc'ed, NULL with errno set (ELOOP) past 40 links. */
static char *follow_links(const char *path)
{
	char *cur = strdup(path);
	for (int hops = 0; cur; hops++) {
		char target[PATH_MAX];
		ssize_t n = readlink(cur, target, sizeof target - 1);
		if (n < 0)
			return cur; /* not a link (or nothing there): the file itself */
		if (hops == 40) {
			free(cur);
			errno = ELOOP;
			return NULL;
		}
		target[n] = '\0';
		char *next;
		const char *slash = strrchr(cur, '/');
		if (target[0] == '/' || !slash) {
			next = strdup(target);
		} else {
			size_t dl = (size_t)(slash - cur) + 1;
			next = malloc(dl + (size_t)n + 1);
			if (next) {
				memcpy(next, cur, dl);
				memcpy(next + dl, target, (size_t)n + 1);
			}
		}
		free(cur);
		cur = next;
	}
	errno = ENOMEM;
	return NULL;
}

bool rs_dest_prepare(struct rs_dest *d, const char *path, char err[RS_ERRBUF_SIZE])
{
	memset(d, 0, sizeof d[0]);
	d->path = follow_links(path);
	if (!d->path) {
		rs_errf(err, RS_ERRBUF_SIZE, "%s: %s", path, strerror(errno));
		return false;
	}
	if (stat(d->path, &d->st) != 0)
		return true; /* a new file */
	d->exists = true;
	if (!S_ISREG(d->st.st_mode))
		return true;
	/* Could this user write it? Opening it for writing, without
	 * truncating, asks the kernel exactly that (ACLs, read-only mounts,
	 * root included) and changes nothing. */
	int fd = open(d->path, O_WRONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		rs_errf(err, RS_ERRBUF_SIZE, "%s: %s", path, strerror(errno));
		free(d->path);
		d->path = NULL;
		return false;
	}
	close(fd);
	d->in_place = d->st.st_nlink > 1;
	return true;
}

bool rs_dest_adopt(struct rs_dest *d, int fd, mode_t new_mode)
{
	if (!d->exists)
		return fchmod(fd, new_mode) == 0;
	if (fchmod(fd, d->st.st_mode & 07777) != 0)
		return false;
	struct stat t;
	if (fstat(fd, &t) != 0)
		return false;
	if ((t.st_uid != d->st.st_uid || t.st_gid != d->st.st_gid) &&
	    fchown(fd, d->st.st_uid, d->st.st_gid) != 0)
		d->in_place = true; /* not ours to give away: written in place */
	else if (t.st_uid != d->st.st_uid || t.st_gid != d->st.st_gid)
		(void)fchmod(fd, d->st.st_mode & 07777); /* chown cleared set-id bits */
	return true;
}

bool rs_dest_copy_in(const struct rs_dest *d, int from, char err[RS_ERRBUF_SIZE])
{
	int to = open(d->path, O_WRONLY | O_TRUNC | O_NOCTTY | O_CLOEXEC);
	if (to < 0) {
		rs_errf(err, RS_ERRBUF_SIZE, "%s: %s", d->path, strerror(errno));
		return false;
	}
	if (lseek(from, 0, SEEK_SET) != 0) {
		rs_errf(err, RS_ERRBUF_SIZE, "%s: %s", d->path, strerror(errno));
		close(to);
		return false;
	}
	char buf[1 << 16];
	ssize_t n;
	while ((n = read(from, buf, sizeof buf)) > 0) {
		for (ssize_t off = 0; off < n;) {
			ssize_t k = write(to, buf + off, (size_t)(n - off));
			if (k < 0 && errno == EINTR)
				continue;
			if (k < 0) {
				rs_errf(err, RS_ERRBUF_SIZE, "%s: writing failed: %s", d->path, strerror(errno));
				close(to);
				return false;
			}
			off += k;
		}
	}
	if (n < 0 || fsync(to) != 0 || close(to) != 0) {
		rs_errf(err, RS_ERRBUF_SIZE, "%s: writing failed: %s", d->path, strerror(errno));
		if (n < 0)
			close(to);
		return false;
	}
	return true;
}

void rs_dest_free(struct rs_dest *d)
{
	free(d->path);
	d->path = NULL;
}
