/*
 * fuzz-channel.c - libFuzzer target for the results channel (harness/channel.c),
 * the parser of everything an untrusted guest sends. Each input is a byte
 * stream; its first byte seeds how it is cut into reads (as a socket would
 * deliver it). The stream is fed, ended, and the channel's state checked:
 * no crash, no leak, and every failure a classified error with a reason.
 * Built and run by `make fuzz` (clang -fsanitize=fuzzer,address,undefined);
 * not part of make check, which runs tests/unit/t-channel.c's 12000 inputs.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "channel.h"

struct seen {
	uint64_t records, samples;
	int hello, done;
};

static int cb(void *user, enum rec_type type, json_t *rec, const char *line, size_t len)
{
	struct seen *s = user;

	if (!rec || !len || memchr(line, '\n', len) || len >= CHANNEL_RECORD_MAX)
		abort();	/* the channel handed on something it should not have */
	if ((uint64_t)json_integer_value(json_object_get(rec, "seq")) != s->records)
		abort();	/* out of sequence, yet accepted */
	if (s->done || (type != REC_HELLO && type != REC_ERROR && !s->hello))
		abort();	/* after done, or before hello */
	s->records++;
	s->samples += type == REC_SAMPLE;
	s->hello |= type == REC_HELLO;
	s->done |= type == REC_DONE;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct channel ch;	/* 4 KiB buffer: keep it off the stack */
	struct seen s = { 0 };
	uint32_t r = size ? data[0] * 2654435761u + 1 : 1;
	size_t off = size ? 1 : 0;
	enum rec_type type;
	json_t *rec;
	char why[256];

	channel_init(&ch, cb, &s);
	while (off < size) {
		size_t k;

		r = r * 1103515245u + 12345u;
		k = 1 + (r >> 16) % 97;
		if (k > size - off)
			k = size - off;
		channel_feed(&ch, (const char *)data + off, k);
		off += k;
	}
	channel_end(&ch);
	if (ch.failed != (ch.why[0] != '\0'))
		abort();	/* a failure without a reason, or a reason without one */
	if (strnlen(ch.why, sizeof(ch.why)) == sizeof(ch.why))
		abort();
	if (ch.next_seq != s.records || ch.samples != s.samples || ch.got_done != s.done)
		abort();	/* the channel's count and what it handed on disagree */
	/* the record checker alone, on the whole input */
	if (channel_check_record((const char *)data, size, &type, &rec, why, sizeof(why)) == 0)
		json_decref(rec);
	else if (!why[0] || rec)
		abort();
	return 0;
}
