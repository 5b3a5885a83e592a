/*
 * outfile.c — report files are written next to their final name under a
 * temporary one (NAME.XXXXXX) and renamed when complete: rename() within a
 * directory is atomic, so readers see either the old file or the whole new
 * one, never a prefix. The file gets the mode a plain fopen() would give
 * (0666 less the umask), and a symbolic link is followed: the file it
 * points to is replaced, not the link.
 */
#include <errno.h>
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"

#define OUTFILE_BUFFER (256u << 10)

bool rs_outfile_open(struct rs_outfile *of, const char *path, char err[RS_ERRBUF_SIZE])
{
	memset(of, 0, sizeof *of);
	if (strcmp(path, "-") == 0) {
		of->fp = stdout;
		of->path = g_strdup(path);
		return true;
	}
	of->path = g_strdup(path);
	/* A device or pipe (/dev/null, /dev/stdout, a FIFO) is written directly:
	 * there is no file to replace atomically. */
	struct stat st;
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		of->fp = fopen(path, "w");
		if (!of->fp) {
			snprintf(err, RS_ERRBUF_SIZE, "%s: %s", path, strerror(errno));
			g_free(of->path);
			of->path = NULL;
			return false;
		}
		return true;
	}
	/* Follow a symbolic link to the file it names, so the link survives. */
	char *target = g_file_read_link(path, NULL);
	if (target) {
		char *dir = g_path_get_dirname(path);
		char *resolved = g_path_is_absolute(target) ? g_strdup(target) : g_build_filename(dir, target, NULL);
		g_free(of->path);
		of->path = resolved;
		g_free(target);
		g_free(dir);
	}
	of->tmp = g_strdup_printf("%s.XXXXXX", of->path);
	int fd = mkstemp(of->tmp);
	if (fd < 0) {
		snprintf(err, RS_ERRBUF_SIZE, "%s: cannot create: %s", path, strerror(errno));
		g_free(of->tmp);
		g_free(of->path);
		of->tmp = of->path = NULL;
		return false;
	}
	mode_t mask = umask(0);
	umask(mask);
	if (fchmod(fd, 0666 & ~mask) != 0) {
		snprintf(err, RS_ERRBUF_SIZE, "%s: %s", path, strerror(errno));
		close(fd);
		rs_outfile_abort(of);
		return false;
	}
	of->fp = fdopen(fd, "w");
	if (!of->fp) {
		snprintf(err, RS_ERRBUF_SIZE, "%s: %s", path, strerror(errno));
		close(fd);
		rs_outfile_abort(of);
		return false;
	}
	/* stdio's buffer for a file is its block size, 4 KiB: the --timeline
	 * of a 10 M-frame capture (about 40 MB) took 10,000 write() calls.
	 * Nobody reads the temporary file, so a larger buffer delays nothing:
	 * the whole file appears at the rename. (glibc ignores the size
	 * unless it is given the buffer too.) */
	of->buf = g_malloc(OUTFILE_BUFFER);
	setvbuf(of->fp, of->buf, _IOFBF, OUTFILE_BUFFER);
	return true;
}

bool rs_outfile_commit(struct rs_outfile *of, char err[RS_ERRBUF_SIZE])
{
	bool ok = true;
	if (!of->fp)
		return false;
	if (!of->tmp) { /* stdout or a device */
		ok = fflush(of->fp) == 0 && !ferror(of->fp);
		if (!ok)
			snprintf(err, RS_ERRBUF_SIZE, "%s: writing failed: %s", of->path, strerror(errno));
		if (of->fp != stdout && fclose(of->fp) != 0 && ok) {
			snprintf(err, RS_ERRBUF_SIZE, "%s: closing failed: %s", of->path, strerror(errno));
			ok = false;
		}
		g_free(of->path);
		of->path = NULL;
		of->fp = NULL;
		return ok;
	}
	if (fflush(of->fp) != 0 || ferror(of->fp) || fsync(fileno(of->fp)) != 0) {
		snprintf(err, RS_ERRBUF_SIZE, "%s: writing failed: %s", of->path, strerror(errno));
		ok = false;
	}
	if (fclose(of->fp) != 0 && ok) {
		snprintf(err, RS_ERRBUF_SIZE, "%s: closing failed: %s", of->path, strerror(errno));
		ok = false;
	}
	of->fp = NULL;
	g_free(of->buf);
	of->buf = NULL;
	if (ok && rename(of->tmp, of->path) != 0) {
		snprintf(err, RS_ERRBUF_SIZE, "%s: cannot rename %s into place: %s", of->path, of->tmp, strerror(errno));
		ok = false;
	}
	if (!ok)
		unlink(of->tmp);
	g_free(of->tmp);
	g_free(of->path);
	of->tmp = of->path = NULL;
	return ok;
}

void rs_outfile_abort(struct rs_outfile *of)
{
	if (of->fp && of->fp != stdout)
		fclose(of->fp);
	g_free(of->buf);
	if (of->tmp)
		unlink(of->tmp);
	g_free(of->tmp);
	g_free(of->path);
	memset(of, 0, sizeof *of);
}
