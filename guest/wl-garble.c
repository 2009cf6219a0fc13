/*
 * wl-garble.c - TEST ONLY (fault injection): a guest that lies on the
 * results channel. After one good sample it sends one bad thing, by mode:
 *   1 garbage (not JSON)        2 a duplicated record (same seq again)
 *   3 out of order (seq skips)  4 an oversized record (8 KiB, limit 4 KiB)
 *   5 a truncated record, then power-off (the stream ends mid-record)
 *   6 a record with a key the schema does not know
 *   7 a NUL byte inside a record
 * Every mode must end the run as bad-record with the channel's reason; the
 * agent's own done record, sent after it, must not make the run look ok.
 * Not a benchmark.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/reboot.h>
#include <unistd.h>

#include "record.h"
#include "workload.h"

enum { P_MODE };

static const struct wl_param garble_params[] = {
	[P_MODE] = { "mode", UNIT_COUNT, "1", 1, 7, "1 garbage, 2 duplicate, 3 out of order, "
		     "4 oversized, 5 truncated, 6 unknown key, 7 NUL byte" },
	{ NULL },
};

static int sample_text(char *buf, size_t len, unsigned long long seq, const char *extra)
{
	return snprintf(buf, len, "{\"type\":\"sample\",\"seq\":%llu,\"metric\":\"garble\","
			"\"unit\":\"\",\"value\":1%s}\n", seq, extra);
}

static int garble_run(struct wl_ctx *ctx)
{
	static char big[8192];
	unsigned long long seq;
	char rec[512];
	int n;

	rec_sample("garble_ok", "", 1);
	seq = rec_next_seq();
	switch (ctx->val[P_MODE]) {
	case 1:
		n = snprintf(rec, sizeof(rec), "\x01\xfe{{this is not json\n");
		break;
	case 2:	/* the good sample again, seq and all */
		n = snprintf(rec, sizeof(rec), "{\"type\":\"sample\",\"seq\":%llu,"
			     "\"metric\":\"garble_ok\",\"unit\":\"\",\"value\":1}\n", seq - 1);
		break;
	case 3:
		n = sample_text(rec, sizeof(rec), seq + 1, "");
		break;
	case 4:
		memset(big, ' ', sizeof(big));
		n = sample_text(big, sizeof(big), seq, "");
		big[n - 1] = big[n] = ' ';	/* pad the record with spaces to 8 KiB */
		big[sizeof(big) - 1] = '\n';
		return rec_raw(big, sizeof(big));
	case 5:
		n = sample_text(rec, sizeof(rec), seq, "");
		rec_raw(rec, n / 2);
		sync();
		sleep(1);	/* let the host drain the port, then stop mid-record */
		reboot(RB_AUTOBOOT);
		return rec_error("garble", errno, "reboot: %s", strerror(errno));
	case 6:
		n = sample_text(rec, sizeof(rec), seq, ",\"bogus\":2");
		break;
	default:
		n = sample_text(rec, sizeof(rec), seq, "");
		rec[10] = '\0';
		break;
	}
	return rec_raw(rec, n);
}

const struct workload wl_garble = {
	.name = "garble",
	.help = "TEST ONLY: sends a garbled, duplicated, out-of-order, oversized or truncated record",
	.params = garble_params,
	.run = garble_run,
};
