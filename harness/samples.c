/* samples.c - append records to samples.jsonl with fsync, and keep them for the result */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "samples.h"
#include "util.h"

int samples_open(struct samples *s, const char *path)
{
	memset(s, 0, sizeof(*s));
	s->fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (s->fd < 0)
		return error("cannot open '%s': %s", path, strerror(errno));
	s->path = xstrdup(path);
	s->snapshot_s = -1;
	s->list = json_array();
	s->errors = json_array();
	return 0;
}

void samples_release(struct samples *s)
{
	if (s->fd >= 0)
		close(s->fd);
	free(s->path);
	json_decref(s->hello);
	json_decref(s->done);
	json_decref(s->list);
	json_decref(s->errors);
	json_decref(s->counters);
	memset(s, 0, sizeof(*s));
	s->fd = -1;
}

static int append_line(struct samples *s, const char *line, size_t len)
{
	struct iovec_like {
		const char *p;
		size_t n;
	} parts[2] = { { line, len }, { "\n", 1 } };
	int i;

	for (i = 0; i < 2; i++) {
		const char *p = parts[i].p;
		size_t n = parts[i].n;

		while (n) {
			ssize_t k = write(s->fd, p, n);

			if (k < 0 && errno == EINTR)
				continue;
			if (k < 0)
				return error("cannot append to '%s': %s", s->path, strerror(errno));
			p += k;
			n -= k;
		}
	}
	if (fsync(s->fd) < 0)
		return error("cannot fsync '%s': %s", s->path, strerror(errno));
	return 0;
}

int samples_record(void *user, enum rec_type type, json_t *rec, const char *line, size_t len)
{
	struct samples *s = user;

	if (append_line(s, line, len) < 0)
		return -1;
	switch (type) {
	case REC_HELLO:
		s->hello = json_incref(rec);
		break;
	case REC_DONE:
		s->done = json_incref(rec);
		break;
	case REC_ERROR:
		json_array_append(s->errors, rec);
		break;
	case REC_SAMPLE:
		json_array_append(s->list, rec);
		break;
	case REC_COUNTERS:	/* several records: one object */
		if (!s->counters)
			s->counters = json_object();
		json_object_update(s->counters, json_object_get(rec, "values"));
		if (json_object_get(rec, "snapshot_s"))
			s->snapshot_s = json_number_value(json_object_get(rec, "snapshot_s"));
		break;
	}
	return 0;
}

json_t *samples_by_metric(const struct samples *s)
{
	json_t *out = json_object(), *rec;
	size_t i;

	json_array_foreach(s->list, i, rec) {
		const char *metric = json_string_value(json_object_get(rec, "metric"));
		json_t *m = json_object_get(out, metric);

		if (!m) {
			m = json_pack("{s:O, s:[]}", "unit", json_object_get(rec, "unit"), "values");
			/* the direction the guest said, for a unit that does not tell it */
			if (json_object_get(rec, "better"))
				json_object_set(m, "better", json_object_get(rec, "better"));
			json_object_set_new(out, metric, m);
		}
		json_array_append(json_object_get(m, "values"), json_object_get(rec, "value"));
	}
	return out;
}
