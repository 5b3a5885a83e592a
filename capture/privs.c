/*
 * privs.c — -Z USER: give up root once the capture device is open, as
 * tcpdump does. Supplementary groups first (initgroups needs root), then the
 * group, then the user; and a check that root cannot be taken back.
 */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "capture/live.h"

bool rs_drop_privileges(const char *user, char errbuf[RS_ERRBUF_SIZE])
{
	errno = 0;
	struct passwd *pw = getpwnam(user);
	if (!pw) {
		snprintf(errbuf, RS_ERRBUF_SIZE, "-Z %s: %s", user, errno ? strerror(errno) : "no such user");
		return false;
	}
	if (initgroups(user, pw->pw_gid) != 0 || setgid(pw->pw_gid) != 0 || setuid(pw->pw_uid) != 0) {
		snprintf(errbuf, RS_ERRBUF_SIZE, "-Z %s: cannot become uid %u gid %u: %s", user, (unsigned)pw->pw_uid,
			 (unsigned)pw->pw_gid, strerror(errno));
		return false;
	}
	if (pw->pw_uid != 0 && (setuid(0) == 0 || geteuid() == 0)) {
		snprintf(errbuf, RS_ERRBUF_SIZE, "-Z %s: root privileges could be taken back; not going on", user);
		return false;
	}
	return true;
}
