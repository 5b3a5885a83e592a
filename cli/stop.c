/*
 * stop.c — SIGINT and SIGTERM, for reading files and for capturing alike:
 * the handler only sets a flag, which the producing loops (run.c's reading,
 * livefeed.c's capture) test between frames and after every wait. The
 * signal also ends a wait in progress (a read from a pipe, poll(2) on a
 * device) with EINTR, in the thread that waits: the delivering thread
 * blocks both (pipeline.c, and feed.c around a batch's delivery). What
 * was read is then reported and every output completed.
 */
#include <signal.h>
#include <stdatomic.h>
#include <string.h>

#include "cli/feed.h"

static atomic_int stop_signal;

static void on_signal(int sig)
{
	atomic_store_explicit(&stop_signal, sig, memory_order_relaxed);
}

void rs_stop_catch(bool second_kills, struct rs_stop_saved *saved)
{
	/* A capture can be waiting on a device that never answers: the second
	 * ^C then kills at once (SA_RESETHAND), leaving the -w output's
	 * temporary file. Reading files always comes to an end, and a second
	 * signal while the report is written would lose it. */
	struct sigaction sa = { .sa_handler = on_signal, .sa_flags = second_kills ? SA_RESETHAND : 0 };
	sigemptyset(&sa.sa_mask);
	atomic_store_explicit(&stop_signal, 0, memory_order_relaxed);
	sigaction(SIGINT, &sa, &saved->sigint);
	sigaction(SIGTERM, &sa, &saved->sigterm);
}

void rs_stop_release(const struct rs_stop_saved *saved)
{
	sigaction(SIGINT, &saved->sigint, NULL);
	sigaction(SIGTERM, &saved->sigterm, NULL);
}

bool rs_stop_requested(void)
{
	return atomic_load_explicit(&stop_signal, memory_order_relaxed) != 0;
}
