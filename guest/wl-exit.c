/*
 * wl-exit.c - TEST ONLY (fault injection): the guest agent crashes. The
 * workload runs inside the agent, PID 1, so after one sample (exit_armed) it
 * brings the agent down: how=1 abort() (the kernel does not deliver SIGABRT
 * to PID 1, so glibc's abort falls back to a faulting instruction: signal 11),
 * how=2 a NULL pointer store (SIGSEGV), how=3 exit(3). PID 1 dying panics the kernel with "Attempted to kill init!
 * exitcode=0x...", which the harness classifies as agent-exit (the agent
 * died), not kernel-panic, and decodes the exit code. Not a benchmark.
 */
#include <stdlib.h>
#include <unistd.h>

#include "record.h"
#include "workload.h"

enum { P_HOW };

static const struct wl_param exit_params[] = {
	[P_HOW] = { "how", UNIT_COUNT, "1", 1, 3, "1 abort() (PID 1 ignores SIGABRT, so glibc's "
		    "abort ends in a fault: reported as signal 11), 2 a NULL store (SIGSEGV), "
		    "3 exit(3)" },
	{ NULL },
};

static int exit_run(struct wl_ctx *ctx)
{
	volatile int *volatile nowhere = NULL;

	rec_sample("exit_armed", "", (double)ctx->val[P_HOW]);
	sync();
	switch (ctx->val[P_HOW]) {
	case 1:
		abort();
	case 2:
		*nowhere = 1;
		break;
	default:
		exit(3);
	}
	return 0;
}

const struct workload wl_exit = {
	.name = "exit",
	.help = "TEST ONLY: one sample, then the agent (PID 1) aborts, segfaults or exits: agent-exit",
	.params = exit_params,
	.run = exit_run,
};
