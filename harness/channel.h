/*
 * channel.h - the host side of the results channel. Bytes from the guest's
 * org.kpair.results port are split into newline-delimited records; each is
 * checked against a strict schema (guest/record.h), a size limit and the
 * sequence before it is handed on. The guest is untrusted: a bad record stops
 * the channel with a reason, it never crashes or stalls the harness.
 */
#ifndef KPAIR_CHANNEL_H
#define KPAIR_CHANNEL_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#define CHANNEL_RECORD_MAX 4096		/* bytes in one record, newline included */
#define CHANNEL_RUN_MAX (64 << 20)	/* bytes in one run */

enum rec_type { REC_HELLO, REC_SAMPLE, REC_ERROR, REC_DONE, REC_COUNTERS };

/*
 * Called for each valid record; @rec is borrowed (valid during the call),
 * @line the record's exact text without the newline. Return 0, or -1 to stop.
 */
typedef int (*channel_cb)(void *user, enum rec_type type, json_t *rec,
			  const char *line, size_t len);

struct channel {
	char buf[CHANNEL_RECORD_MAX];
	size_t len;
	uint64_t total;		/* bytes seen */
	uint64_t next_seq;
	uint64_t samples;
	int got_hello, got_done;
	int failed;
	char why[256];		/* the first protocol error */
	char boot[40];		/* hello's boot (the guest kernel's boot_id), or "" */
	channel_cb cb;
	void *user;
};

void channel_init(struct channel *ch, channel_cb cb, void *user);
/* feed bytes as they arrive; -1 once the stream is bad (ch->why says why) */
int channel_feed(struct channel *ch, const char *data, size_t n);
/* end of stream: a partial record left over is an error */
int channel_end(struct channel *ch);
/* check one record's text alone (no sequence state); for tests and fuzzing */
int channel_check_record(const char *line, size_t len, enum rec_type *type,
			 json_t **rec, char *why, size_t whylen);

#endif
