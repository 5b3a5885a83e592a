/*
 * rusage.c — run a command and report what it cost, for the benchmark:
 *
 *   rocestat-rusage OUT CMD ARGS...
 *
 * runs CMD (stdout and stderr untouched) and writes one line to OUT:
 * "wall_s user_s sys_s maxrss_kib exit_status". Same figures as
 * /usr/bin/time -v, without depending on it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: rocestat-rusage OUT CMD [ARGS...]\n");
		return 2;
	}
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid_t pid = fork();
	if (pid < 0) {
		perror("rocestat-rusage: fork");
		return 2;
	}
	if (pid == 0) {
		execvp(argv[2], argv + 2);
		perror(argv[2]);
		_exit(127);
	}
	int st;
	struct rusage ru;
	if (wait4(pid, &st, 0, &ru) < 0) {
		perror("rocestat-rusage: wait4");
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	FILE *o = fopen(argv[1], "w");
	if (!o) {
		perror(argv[1]);
		return 2;
	}
	fprintf(o, "%.3f %.3f %.3f %ld %d\n", (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9,
		ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6, ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6,
		ru.ru_maxrss, WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
	fclose(o);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}
