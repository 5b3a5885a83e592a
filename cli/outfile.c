/*
 * outfile.c — report files are written next to their final name under a
 * temporary one (NAME.XXXXXX) and renamed when complete: rename() within a
 * directory is atomic, so readers see either the old file or the whole new
 * one, never a prefix. The file replaced is honoured (capture/destfile.c):
 * one this user could not write is refused, its mode, owner and group are
 * kept (else it is written in place once complete), and a symbolic link
 * is followed: the file it leads to is replaced, not the link. A new file
 * gets the mode a plain fopen() would give (0666 less the umask).
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

static bool open_error(struct rs_outfile *of, const char *path, const char *what, int e, char err[RS_ERRBUF_SIZE])
{
	snprintf(err, RS_ERRBUF_SIZE, "%s: %s%s", path, what, strerror(e));
	rs_outfile_abort(of);
	return false;
}

bool rs_outfile_open(struct rs_outfile *of, const char *path, char err[RS_ERRBUF_SIZE])
{
	memset(of, 0, sizeof *of);
	if (strcmp(path, "-") == 0) {
		of->fp = stdout;
		of->path = g_strdup(path);
		return true;
	}
	if (!rs_dest_prepare(&of->dest, path, err))
		return false;
	/* A device or pipe (/dev/null, /dev/stdout, a FIFO) is written directly:
	 * there is no file to replace atomically. */
	if (of->dest.exists && !S_ISREG(of->dest.st.st_mode)) {
		of->path = g_strdup(path);
		of->fp = fopen(of->dest.path, "w");
		if (!of->fp)
			return open_error(of, path, "", errno, err);
		return true;
	}
	of->path = g_strdup(of->dest.path);
	of->tmp = g_strdup_printf("%s.XXXXXX", of->path);
	int fd = mkstemp(of->tmp);
	bool beside = fd >= 0;
	if (fd < 0 && of->dest.exists && (errno == EACCES || errno == EPERM || errno == EROFS)) {
		/* The directory takes no new file, the file may be written: it
		 * is, once complete, from a private temporary file. */
		g_free(of->tmp);
		of->tmp = g_build_filename(g_get_tmp_dir(), "rocestat.XXXXXX", NULL);
		fd = mkstemp(of->tmp);
		of->dest.in_place = true;
	}
	if (fd < 0) {
		g_free(of->tmp);
		of->tmp = NULL;
		return open_error(of, path, "cannot create: ", errno, err);
	}
	mode_t mask = umask(0);
	umask(mask);
	if (beside && !rs_dest_adopt(&of->dest, fd, 0666 & ~mask)) {
		close(fd);
		return open_error(of, path, "", errno, err);
	}
	of->fp = fdopen(fd, "w");
	if (!of->fp) {
		close(fd);
		return open_error(of, path, "", errno, err);
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
		of->fp = NULL;
		rs_outfile_abort(of);
		return ok;
	}
	if (fflush(of->fp) != 0 || ferror(of->fp) || fsync(fileno(of->fp)) != 0) {
		snprintf(err, RS_ERRBUF_SIZE, "%s: writing failed: %s", of->path, strerror(errno));
		ok = false;
	}
	if (ok && of->dest.in_place)
		ok = rs_dest_copy_in(&of->dest, fileno(of->fp), err);
	if (fclose(of->fp) != 0 && ok) {
		snprintf(err, RS_ERRBUF_SIZE, "%s: closing failed: %s", of->path, strerror(errno));
		ok = false;
	}
	of->fp = NULL;
	if (ok && !of->dest.in_place && rename(of->tmp, of->path) != 0) {
		snprintf(err, RS_ERRBUF_SIZE, "%s: cannot rename %s into place: %s", of->path, of->tmp, strerror(errno));
		ok = false;
	}
	if (!ok || of->dest.in_place)
		unlink(of->tmp);
	g_free(of->tmp);
	of->tmp = NULL;
	rs_outfile_abort(of);
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
	rs_dest_free(&of->dest);
	memset(of, 0, sizeof *of);
}
