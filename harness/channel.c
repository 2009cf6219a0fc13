/* channel.c - split, validate and sequence the guest's JSON records */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "channel.h"

void channel_init(struct channel *ch, channel_cb cb, void *user)
{
	memset(ch, 0, sizeof(*ch));
	ch->cb = cb;
	ch->user = user;
}

static int ch_fail(struct channel *ch, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int ch_fail(struct channel *ch, const char *fmt, ...)
{
	va_list ap;

	if (!ch->failed) {
		va_start(ap, fmt);
		vsnprintf(ch->why, sizeof(ch->why), fmt, ap);
		va_end(ap);
	}
	ch->failed = 1;
	return -1;
}

static int finite_number(json_t *v)
{
	double d;

	if (!json_is_number(v))
		return 0;
	d = json_number_value(v);
	return d == d && d - d == 0;	/* not NaN, not infinite */
}

int channel_check_record(const char *line, size_t len, enum rec_type *type,
			 json_t **rec, char *why, size_t whylen)
{
	const char *t, *s1, *s2, *s3, *s4;
	json_int_t seq, i1;
	json_t *v1 = NULL, *v2 = NULL, *v3 = NULL;
	json_error_t jerr;
	json_t *j;
	int r;

	*rec = NULL;
	if (len >= CHANNEL_RECORD_MAX) {
		snprintf(why, whylen, "record of %zu bytes is over the %d-byte limit", len,
			 CHANNEL_RECORD_MAX);
		return -1;
	}
	if (memchr(line, '\0', len)) {
		snprintf(why, whylen, "NUL byte in record");
		return -1;
	}
	j = json_loadb(line, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!j) {
		snprintf(why, whylen, "bad JSON at column %d: %s", jerr.column, jerr.text);
		return -1;
	}
	if (json_unpack_ex(j, &jerr, 0, "{s:s, s:I}", "type", &t, "seq", &seq) < 0) {
		snprintf(why, whylen, "record without type and seq: %s", jerr.text);
		goto out_bad;
	}
	if (seq < 0) {
		snprintf(why, whylen, "negative seq");
		goto out_bad;
	}
	if (!strcmp(t, "hello")) {
		*type = REC_HELLO;
		r = json_unpack_ex(j, &jerr, JSON_STRICT,
				   "{s:s, s:I, s:s, s:s, s:s, s:s, s:s, s:I, s:o, s?o, s?o, s?s}",
				   "type", &t, "seq", &seq, "agent", &s1, "workload", &s2,
				   "release", &s3, "version", &s4, "machine", &s1, "page_size", &i1,
				   "uptime", &v1, "modules_s", &v2, "init_uptime", &v3, "boot", &s4);
		if (!r && (!finite_number(v1) || i1 <= 0 || (i1 & (i1 - 1)) ||
			   (v2 && (!finite_number(v2) || json_number_value(v2) < 0)) ||
			   (v3 && (!finite_number(v3) || json_number_value(v3) < 0 ||
				   json_number_value(v3) > json_number_value(v1))))) {
			snprintf(why, whylen, "hello: bad uptime, page_size, modules_s or init_uptime");
			goto out_bad;
		}
	} else if (!strcmp(t, "sample")) {
		*type = REC_SAMPLE;
		s3 = NULL;	/* better: optional, lower or higher */
		r = json_unpack_ex(j, &jerr, JSON_STRICT, "{s:s, s:I, s:s, s:s, s:o, s?s}",
				   "type", &t, "seq", &seq, "metric", &s1, "unit", &s2,
				   "value", &v1, "better", &s3);
		if (!r && (!finite_number(v1) || !*s1 || strlen(s1) > 64 || strlen(s2) > 16)) {
			snprintf(why, whylen, "sample: bad metric, unit or value");
			goto out_bad;
		}
		if (!r && s3 && strcmp(s3, "lower") && strcmp(s3, "higher")) {
			snprintf(why, whylen, "sample: better is lower or higher, not '%.16s'", s3);
			goto out_bad;
		}
	} else if (!strcmp(t, "counters")) {
		const char *k;
		json_t *v;

		*type = REC_COUNTERS;
		r = json_unpack_ex(j, &jerr, JSON_STRICT, "{s:s, s:I, s?o, s:o}", "type", &t, "seq",
				   &seq, "snapshot_s", &v2, "values", &v1);
		if (!r && v2 && (!finite_number(v2) || json_number_value(v2) < 0)) {
			snprintf(why, whylen, "counters: snapshot_s is not a time in seconds");
			goto out_bad;
		}
		if (!r && (!json_is_object(v1) || !json_object_size(v1))) {
			snprintf(why, whylen, "counters: values is not an object of counters");
			goto out_bad;
		}
		json_object_foreach(r ? NULL : v1, k, v)
			if (!json_is_integer(v) || !*k || strlen(k) > 64) {
				snprintf(why, whylen, "counters: '%.64s' is not a name with a whole "
					 "number", k);
				goto out_bad;
			}
	} else if (!strcmp(t, "error")) {
		*type = REC_ERROR;
		r = json_unpack_ex(j, &jerr, JSON_STRICT, "{s:s, s:I, s:s, s:I, s:s}",
				   "type", &t, "seq", &seq, "stage", &s1, "errno", &i1,
				   "message", &s2);
	} else if (!strcmp(t, "done")) {
		*type = REC_DONE;
		/* poweron: the guest's seconds since power-on, where its cycle counter tells */
		s1 = NULL;
		r = json_unpack_ex(j, &jerr, JSON_STRICT, "{s:s, s:I, s:I, s:o, s:o, s?o, s?s}",
				   "type", &t, "seq", &seq, "samples", &i1, "uptime", &v2,
				   "workload_s", &v3, "poweron", &v1, "boot", &s1);
		if (!r && (!finite_number(v2) || !finite_number(v3) || i1 < 0 ||
			   (v1 && (!finite_number(v1) || json_number_value(v1) < 0)))) {
			snprintf(why, whylen, "done: bad samples, uptime, workload_s or poweron");
			goto out_bad;
		}
	} else {
		snprintf(why, whylen, "unknown record type '%.32s'", t);
		goto out_bad;
	}
	if (r < 0) {
		snprintf(why, whylen, "%s record: %s", t, jerr.text);
		goto out_bad;
	}
	*rec = j;
	return 0;
out_bad:
	json_decref(j);
	return -1;
}

static int ch_record(struct channel *ch, const char *line, size_t len)
{
	static const char *const names[] = { "hello", "sample", "error", "done", "counters" };
	enum rec_type type = REC_SAMPLE;
	char why[200];
	json_int_t seq;
	json_t *rec;
	int ret;

	if (len && line[len - 1] == '\r')
		len--;
	if (!len)
		return ch_fail(ch, "empty record");
	if (channel_check_record(line, len, &type, &rec, why, sizeof(why)) < 0)
		return ch_fail(ch, "record %llu: %s", (unsigned long long)ch->next_seq, why);
	seq = json_integer_value(json_object_get(rec, "seq"));
	if ((uint64_t)seq != ch->next_seq) {
		json_decref(rec);
		return ch_fail(ch, "%s record has seq %lld, expected %llu", names[type],
			       (long long)seq, (unsigned long long)ch->next_seq);
	}
	if (ch->got_done) {
		json_decref(rec);
		return ch_fail(ch, "%s record after done", names[type]);
	}
	if (!ch->got_hello && type != REC_HELLO && type != REC_ERROR) {
		json_decref(rec);
		return ch_fail(ch, "%s record before hello", names[type]);
	}
	if (ch->got_hello && type == REC_HELLO) {
		json_decref(rec);
		return ch_fail(ch, "second hello record");
	}
	if (type == REC_DONE) {
		json_int_t said = json_integer_value(json_object_get(rec, "samples"));
		const char *boot = json_string_value(json_object_get(rec, "boot"));

		if ((uint64_t)said != ch->samples) {
			json_decref(rec);
			return ch_fail(ch, "done says %lld samples, %llu arrived", (long long)said,
				       (unsigned long long)ch->samples);
		}
		/* a log that joins two boots' lines (a LAVA job its lab ran again) */
		if (boot && ch->boot[0] && strcmp(boot, ch->boot)) {
			ch_fail(ch, "done record from another boot (%.36s) than hello (%s): "
				"the records of two boots joined", boot, ch->boot);
			json_decref(rec);
			return -1;
		}
	}
	if (type == REC_HELLO && json_is_string(json_object_get(rec, "boot")))
		snprintf(ch->boot, sizeof(ch->boot), "%s",
			 json_string_value(json_object_get(rec, "boot")));
	ch->next_seq++;
	if (type == REC_HELLO)
		ch->got_hello = 1;
	else if (type == REC_SAMPLE)
		ch->samples++;
	else if (type == REC_DONE)
		ch->got_done = 1;
	ret = ch->cb ? ch->cb(ch->user, type, rec, line, len) : 0;
	json_decref(rec);
	if (ret < 0)
		return ch_fail(ch, "record %lld could not be stored", (long long)seq);
	return 0;
}

int channel_feed(struct channel *ch, const char *data, size_t n)
{
	size_t i;

	if (ch->failed)
		return -1;
	ch->total += n;
	if (ch->total > CHANNEL_RUN_MAX)
		return ch_fail(ch, "guest sent more than %d bytes", CHANNEL_RUN_MAX);
	for (i = 0; i < n; i++) {
		if (data[i] == '\n') {
			if (ch_record(ch, ch->buf, ch->len) < 0)
				return -1;
			ch->len = 0;
			continue;
		}
		if (ch->len + 1 >= CHANNEL_RECORD_MAX)
			return ch_fail(ch, "record %llu is over the %d-byte limit",
				       (unsigned long long)ch->next_seq, CHANNEL_RECORD_MAX);
		ch->buf[ch->len++] = data[i];
	}
	return 0;
}

int channel_end(struct channel *ch)
{
	if (ch->failed)
		return -1;
	if (ch->len)
		return ch_fail(ch, "stream ends inside record %llu (%zu bytes, no newline)",
			       (unsigned long long)ch->next_seq, ch->len);
	return 0;
}
