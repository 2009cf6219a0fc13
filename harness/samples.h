/*
 * samples.h - a run's records on disk and in memory: every valid record is
 * appended to samples.jsonl and fsynced as it arrives, so nothing measured is
 * lost when the harness or the guest dies later.
 */
#ifndef KPAIR_SAMPLES_H
#define KPAIR_SAMPLES_H

#include <jansson.h>
#include <stddef.h>

#include "channel.h"

struct samples {
	int fd;
	char *path;
	json_t *hello;		/* owned, or NULL */
	json_t *done;		/* owned, or NULL */
	json_t *list;		/* owned array of sample records */
	json_t *errors;		/* owned array of error records */
	json_t *counters;	/* owned: kernel counter -> delta over the workload, or NULL */
	double snapshot_s;	/* what reading the counters cost the guest, or -1 */
};

int samples_open(struct samples *s, const char *path);
void samples_release(struct samples *s);	/* closes the file */
/* a channel_cb: user is a struct samples */
int samples_record(void *user, enum rec_type type, json_t *rec, const char *line, size_t len);
/* { metric: {unit, values:[...]} } for result.json (new reference) */
json_t *samples_by_metric(const struct samples *s);

#endif
