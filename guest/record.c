/* record.c - JSON records written to the results port, one write(2) each */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "record.h"

static int rec_fd = -1;
static int rec_echo_fd = -1;	/* the console too, "kpair-record: <record>" a line */
static int rec_echo_counters;	/* and the counters a line each, kept for rec_echo_end() */
static char *ctr_lines;
static size_t ctr_len;
static uint64_t rec_seq;
static uint64_t rec_nsamples;

struct rbuf {
	char b[REC_MAX];
	size_t n;
	int overflow;
};

static void rb_put(struct rbuf *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void rb_put(struct rbuf *r, const char *fmt, ...)
{
	va_list ap;
	int k;

	if (r->overflow)
		return;
	va_start(ap, fmt);
	k = vsnprintf(r->b + r->n, sizeof(r->b) - r->n, fmt, ap);
	va_end(ap);
	if (k < 0 || (size_t)k >= sizeof(r->b) - r->n)
		r->overflow = 1;
	else
		r->n += k;
}

/* a JSON string with the escapes RFC 8259 requires */
static void rb_str(struct rbuf *r, const char *s)
{
	rb_put(r, "\"");
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			rb_put(r, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			rb_put(r, "\\u%04x", c);
		else
			rb_put(r, "%c", c);
	}
	rb_put(r, "\"");
}

static void rb_begin(struct rbuf *r, const char *type)
{
	r->n = 0;
	r->overflow = 0;
	rb_put(r, "{\"type\":\"%s\",\"seq\":%llu", type, (unsigned long long)rec_seq);
}

/* all of @buf to @fd, through EINTR and short writes; -1 when it fails */
static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t k = write(fd, p, len);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		p += k;
		len -= k;
	}
	return 0;
}

/* one write, so a console reader (LAVA's monitors) sees the record whole on one line */
static void rb_echo(const struct rbuf *r)
{
	static const char prefix[] = REC_ECHO_PREFIX;
	char line[sizeof(prefix) + REC_MAX];

	if (rec_echo_fd < 0)
		return;
	memcpy(line, prefix, sizeof(prefix) - 1);
	memcpy(line + sizeof(prefix) - 1, r->b, r->n);
	if (write(rec_echo_fd, line, sizeof(prefix) - 1 + r->n) < 0)
		rec_echo_fd = -1;	/* the results port still has every record */
}

static int rb_send(struct rbuf *r)
{
	rb_put(r, "}\n");
	if (r->overflow)
		return -1;
	rec_seq++;
	rb_echo(r);
	return rec_fd < 0 ? 0 : write_all(rec_fd, r->b, r->n);
}

void rec_set_fd(int fd)
{
	rec_fd = fd;
}

void rec_set_echo(int fd, int counters)
{
	rec_echo_fd = fd;
	rec_echo_counters = counters;
}

static void echo_write(const char *s, size_t n)
{
	if (rec_echo_fd >= 0 && write_all(rec_echo_fd, s, n) < 0)
		rec_echo_fd = -1;	/* the results port still has every record */
}

/* after the done record, so a monitor of them starts after the samples' monitor has ended */
void rec_echo_end(void)
{
	static const char begin[] = REC_ECHO_COUNTERS "\n", end[] = REC_ECHO_END "\n";

	if (rec_echo_counters) {
		echo_write(begin, sizeof(begin) - 1);
		echo_write(ctr_lines, ctr_len);
	}
	echo_write(end, sizeof(end) - 1);
	free(ctr_lines);
	ctr_lines = NULL;
	ctr_len = 0;
}

/* "kpair-counter: NAME DELTA\n", kept until rec_echo_end(); a line that cannot be kept is lost */
static void ctr_line(const char *name, long long v)
{
	char line[256];
	int k = snprintf(line, sizeof(line), REC_ECHO_COUNTER "%s %lld\n", name, v);
	char *p;

	if (k < 0 || (size_t)k >= sizeof(line))
		return;
	p = realloc(ctr_lines, ctr_len + k);
	if (!p)
		return;
	memcpy(p + ctr_len, line, k);
	ctr_lines = p;
	ctr_len += k;
}

uint64_t rec_next_seq(void)
{
	return rec_seq;
}

int rec_raw(const void *buf, size_t len)
{
	return rec_fd < 0 ? 0 : write_all(rec_fd, buf, len);
}

uint64_t rec_samples(void)
{
	return rec_nsamples;
}

/*
 * ,"boot":"<the kernel's boot_id>" on hello and done: a reader that gets a run's records from a
 * log (LAVA's, which joins the lines of a job its lab ran again onto the first attempt's) can
 * tell a run from two boots. Nothing when /proc is not there.
 */
static void rb_boot(struct rbuf *r)
{
	static char id[40];
	int fd;
	ssize_t n;

	if (!id[0]) {
		fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return;
		n = read(fd, id, sizeof(id) - 1);
		close(fd);
		if (n < 36) {
			id[0] = '\0';
			return;
		}
		id[36] = '\0';
	}
	rb_put(r, ",\"boot\":");
	rb_str(r, id);
}

int rec_hello(const char *workload, double uptime, double init_uptime, double modules_s,
	      long page_size)
{
	struct utsname u;
	struct rbuf r;

	if (uname(&u) < 0)
		memset(&u, 0, sizeof(u));
	rb_begin(&r, "hello");
	rb_put(&r, ",\"agent\":\"kpair-agent 1\",\"workload\":");
	rb_str(&r, workload);
	rb_put(&r, ",\"release\":");
	rb_str(&r, u.release);
	rb_put(&r, ",\"version\":");
	rb_str(&r, u.version);
	rb_put(&r, ",\"machine\":");
	rb_str(&r, u.machine);
	rb_put(&r, ",\"page_size\":%ld,\"uptime\":%.6f,\"init_uptime\":%.6f,\"modules_s\":%.6f",
	       page_size, uptime, init_uptime, modules_s);
	rb_boot(&r);
	return rb_send(&r);
}

int rec_sample(const char *metric, const char *unit, double value)
{
	return rec_sample_better(metric, unit, value, NULL);
}

int rec_sample_better(const char *metric, const char *unit, double value, const char *better)
{
	struct rbuf r;

	if (value != value || value - value != 0)	/* NaN or infinite: not JSON */
		return rec_error(metric, EDOM, "metric %s is not a finite number", metric);
	rb_begin(&r, "sample");
	rb_put(&r, ",\"metric\":");
	rb_str(&r, metric);
	rb_put(&r, ",\"unit\":");
	rb_str(&r, unit);
	rb_put(&r, ",\"value\":%.9g", value);
	if (better) {
		rb_put(&r, ",\"better\":");
		rb_str(&r, better);
	}
	if (rb_send(&r) < 0)
		return -1;
	rec_nsamples++;
	return 0;
}

int rec_counters(size_t n, char *const *names, const long long *values, double snapshot_s)
{
	struct rbuf r;
	size_t i = 0;

	for (i = 0; rec_echo_counters && rec_echo_fd >= 0 && i < n; i++)
		ctr_line(names[i], values[i]);
	i = 0;
	while (i < n) {
		int first = 1;

		rb_begin(&r, "counters");
		if (!i)
			rb_put(&r, ",\"snapshot_s\":%.6f", snapshot_s);
		rb_put(&r, ",\"values\":{");
		/* as many as fit one record, with room for the closing braces */
		for (; i < n && r.n + 2 * strlen(names[i]) + 32 < REC_MAX - 8; i++) {
			rb_put(&r, "%s", first ? "" : ",");
			rb_str(&r, names[i]);
			rb_put(&r, ":%lld", values[i]);
			first = 0;
		}
		rb_put(&r, "}");
		if (first || rb_send(&r) < 0)
			return -1;
	}
	return 0;
}

int rec_error(const char *stage, int err, const char *fmt, ...)
{
	char msg[512];
	struct rbuf r;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(stderr, "kpair-agent: %s: %s\n", stage, msg);
	rb_begin(&r, "error");
	rb_put(&r, ",\"stage\":");
	rb_str(&r, stage);
	rb_put(&r, ",\"errno\":%d,\"message\":", err);
	rb_str(&r, msg);
	rb_send(&r);
	return -1;
}

int rec_done(double uptime, double workload_s, double poweron)
{
	struct rbuf r;

	rb_begin(&r, "done");
	rb_put(&r, ",\"samples\":%llu,\"uptime\":%.6f,\"workload_s\":%.6f",
	       (unsigned long long)rec_nsamples, uptime, workload_s);
	if (poweron >= 0)
		rb_put(&r, ",\"poweron\":%.6f", poweron);
	rb_boot(&r);
	return rb_send(&r);
}
