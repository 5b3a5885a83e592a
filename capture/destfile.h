/*
 * destfile.h — the file an output replaces: its permission, mode, owner
 * and symbolic links honoured (destfile.c).
 */
#ifndef RS_DESTFILE_H
#define RS_DESTFILE_H

#include <stdbool.h>
#include <sys/stat.h>

#include "capture/source.h"

struct rs_dest {
	char *path;    /* the file to write: the name given, its symbolic links followed */
	bool exists;
	bool in_place; /* write the file itself at the end, not rename over it */
	struct stat st; /* the existing file's */
};
/* Follow path's links; refuse (err: "PATH: Permission denied") an existing
 * regular file this user could not open for writing. */
bool rs_dest_prepare(struct rs_dest *d, const char *path, char err[RS_ERRBUF_SIZE]);
/* Give the temporary file fd the existing file's mode, owner and group
 * (new_mode for a new file); where the owner cannot be kept, in_place. */
bool rs_dest_adopt(struct rs_dest *d, int fd, mode_t new_mode);
/* in_place: copy the complete temporary file (fd) over the destination. */
bool rs_dest_copy_in(const struct rs_dest *d, int from, char err[RS_ERRBUF_SIZE]);
void rs_dest_free(struct rs_dest *d);
#endif
