// SPDX-License-Identifier: GPL-2.0
/*
 * ketw: stopping a command that runs until told (record, stream,
 * listen): SIGINT, SIGTERM and SIGHUP set cli_stop; and the clock such
 * commands measure their time with.
 */
#include <signal.h>
#include <string.h>
#include <time.h>

#include "cli.h"

static const int cli_stop_signals[CLI_STOP_NR_SIGNALS] = {
	SIGINT, SIGTERM, SIGHUP,
};

volatile sig_atomic_t cli_stop;

static void cli_stop_signal(int sig)
{
	(void)sig;
	cli_stop = 1;
}

/*
 * Handle the stop signals from now on, and deliver those already pending
 * (blocked by whoever started us); one ignored by whoever started us
 * (nohup, a background job's SIGINT) stays ignored, SIGTERM excepted.
 */
void cli_stop_signals_catch(struct sigaction *old)
{
	struct sigaction sa;
	sigset_t set;
	unsigned int i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = cli_stop_signal;
	sa.sa_flags = SA_RESTART;	/* nanosleep() still returns early */
	sigemptyset(&sa.sa_mask);
	sigemptyset(&set);
	for (i = 0; i < CLI_STOP_NR_SIGNALS; i++) {
		sigaddset(&sa.sa_mask, cli_stop_signals[i]);
		sigaddset(&set, cli_stop_signals[i]);
	}
	cli_stop = 0;
	for (i = 0; i < CLI_STOP_NR_SIGNALS; i++) {
		sigaction(cli_stop_signals[i], NULL, &old[i]);
		if (old[i].sa_handler == SIG_IGN &&
		    cli_stop_signals[i] != SIGTERM)
			continue;
		sigaction(cli_stop_signals[i], &sa, NULL);
	}
	sigprocmask(SIG_UNBLOCK, &set, NULL);
}

void cli_stop_signals_restore(const struct sigaction *old)
{
	unsigned int i;

	for (i = 0; i < CLI_STOP_NR_SIGNALS; i++)
		sigaction(cli_stop_signals[i], &old[i], NULL);
}

uint64_t cli_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}
