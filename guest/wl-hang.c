/*
 * wl-hang.c - TEST ONLY (fault injection): the guest hangs. After hello the
 * workload never finishes; with beat > 0 it sends a heartbeat sample
 * (hang_beat, a counter) every beat ms, so the harness keeps receiving records
 * while waiting. The harness must stop it at job.timeout: workload-timeout.
 * Used by tests/boot/t-35-faults.t and t-36-host-faults.t; not a benchmark.
 */
#include <unistd.h>

#include "record.h"
#include "workload.h"

enum { P_BEAT };

static const struct wl_param hang_params[] = {
	[P_BEAT] = { "beat", UNIT_DURATION, "0", 0, 60000, "ms between heartbeat samples (0: none)" },
	{ NULL },
};

static int hang_run(struct wl_ctx *ctx)
{
	uint64_t beat = ctx->val[P_BEAT], n = 0;

	for (;;) {
		if (!beat) {
			pause();
			continue;
		}
		rec_sample("hang_beat", "", (double)n++);
		usleep(beat * 1000);
	}
	return 0;
}

const struct workload wl_hang = {
	.name = "hang",
	.help = "TEST ONLY: never finishes after hello (workload-timeout); beat > 0 sends heartbeats",
	.params = hang_params,
	.run = hang_run,
};
