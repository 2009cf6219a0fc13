/*
 * counters.c - which kernel counters moved: snapshots right before and right after the
 * workload (outside its timed region) of /proc/vmstat, /proc/stat (context switches,
 * forks, interrupts), /proc/softirqs and /proc/interrupts (per type, summed over CPUs),
 * /proc/meminfo (kB), /proc/slabinfo (active objects per cache, where readable) and the
 * scratch disk's /sys/block/<dev>/stat; the deltas that are not zero go to the host as
 * counters records. A file a kernel lacks is skipped.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "counters.h"
#include "record.h"

#define NAME_MAX_LEN 64

static void ctr_add(struct counters *c, const char *prefix, const char *name, long long v)
{
	char n[NAME_MAX_LEN];

	if (snprintf(n, sizeof(n), "%s.%s", prefix, name) >= (int)sizeof(n))
		return;
	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 512;
		char **names = realloc(c->names, cap * sizeof(*names));
		long long *v2 = names ? realloc(c->v, cap * sizeof(*v2)) : NULL;

		if (!names || !v2) {
			if (names)
				c->names = names;
			return;
		}
		c->names = names;
		c->v = v2;
		c->cap = cap;
	}
	c->names[c->n] = strdup(n);
	if (!c->names[c->n])
		return;
	c->v[c->n++] = v;
}

/* "name value" lines (vmstat) or "name: value kB" (meminfo) */
static void read_pairs(struct counters *c, const char *path, const char *prefix)
{
	char line[256], name[NAME_MAX_LEN];
	long long v;
	FILE *f = fopen(path, "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%63[^: ]%*[: ]%lld", name, &v) == 2)
			ctr_add(c, prefix, name, v);
	if (f)
		fclose(f);
}

/* /proc/stat: ctxt, processes, intr (the total), softirq (the total) */
static void read_stat(struct counters *c)
{
	char line[4096], name[32];
	long long v;
	FILE *f = fopen("/proc/stat", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%31s %lld", name, &v) == 2 &&
		    (!strcmp(name, "ctxt") || !strcmp(name, "processes") || !strcmp(name, "intr") ||
		     !strcmp(name, "softirq")))
			ctr_add(c, "stat", name, v);
	if (f)
		fclose(f);
}

/* /proc/interrupts and /proc/softirqs: "NAME: n n n ..." summed over the CPUs */
static void read_per_cpu(struct counters *c, const char *path, const char *prefix)
{
	char line[4096], name[NAME_MAX_LEN];
	FILE *f = fopen(path, "r");

	if (f && !fgets(line, sizeof(line), f)) {	/* the CPU header */
		fclose(f);
		return;
	}
	while (f && fgets(line, sizeof(line), f)) {
		char *p = line, *end;
		long long sum = 0, v;
		int any = 0;

		while (isspace((unsigned char)*p))
			p++;
		if (sscanf(p, "%63[^:]", name) != 1 || !(p = strchr(p, ':')))
			continue;
		for (p++;; p = end) {
			v = strtoll(p, &end, 10);
			if (end == p)
				break;
			sum += v;
			any = 1;
		}
		if (any)
			ctr_add(c, prefix, name, sum);
	}
	if (f)
		fclose(f);
}

/* /proc/slabinfo: active objects per cache (root, and a kernel that has it) */
static void read_slabinfo(struct counters *c)
{
	char line[512], name[NAME_MAX_LEN];
	long long active;
	FILE *f = fopen("/proc/slabinfo", "r");

	while (f && fgets(line, sizeof(line), f))
		if (line[0] != '#' && sscanf(line, "%63s %lld", name, &active) == 2)
			ctr_add(c, "slab", name, active);
	if (f)
		fclose(f);
}

/* /sys/block/<dev>/stat: the fields of Documentation/block/stat.rst */
static void read_block(struct counters *c, const char *dev)
{
	static const char *const fields[] = {
		"reads", "read_merges", "read_sectors", "read_ticks", "writes", "write_merges",
		"write_sectors", "write_ticks", "in_flight", "io_ticks", "time_in_queue",
		"discards", "discard_merges", "discard_sectors", "discard_ticks", "flushes",
		"flush_ticks",
	};
	const char *base = strrchr(dev, '/');
	char path[128], name[48];
	long long v;
	size_t i;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/block/%s/stat", base ? base + 1 : dev);
	f = fopen(path, "r");
	for (i = 0; f && i < sizeof(fields) / sizeof(fields[0]) && fscanf(f, "%lld", &v) == 1; i++) {
		snprintf(name, sizeof(name), "%s", fields[i]);
		ctr_add(c, "block", name, v);
	}
	if (f)
		fclose(f);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

void counters_snapshot(struct counters *c, const char *dev)
{
	double t0 = now_s();

	read_pairs(c, "/proc/vmstat", "vmstat");
	read_stat(c);
	read_per_cpu(c, "/proc/softirqs", "softirq");
	read_per_cpu(c, "/proc/interrupts", "irq");
	read_pairs(c, "/proc/meminfo", "meminfo");
	read_slabinfo(c);
	if (dev && *dev)
		read_block(c, dev);
	c->took_s = now_s() - t0;
}

void counters_release(struct counters *c)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		free(c->names[i]);
	free(c->names);
	free(c->v);
	memset(c, 0, sizeof(*c));
}

int counters_send(const struct counters *before, const struct counters *after)
{
	struct counters d = { 0 };
	size_t i, j = 0;
	int ret;

	for (i = 0; i < after->n; i++) {
		long long b = 0;

		/* mostly in the same order: look from where the last one was found */
		if (j < before->n && !strcmp(before->names[j], after->names[i])) {
			b = before->v[j++];
		} else {
			size_t k;

			for (k = 0; k < before->n; k++)
				if (!strcmp(before->names[k], after->names[i]))
					break;
			if (k < before->n) {
				b = before->v[k];
				j = k + 1;
			}
		}
		if (after->v[i] != b) {
			d.names = realloc(d.names, (d.n + 1) * sizeof(*d.names));
			d.v = realloc(d.v, (d.n + 1) * sizeof(*d.v));
			if (!d.names || !d.v)
				return -1;
			d.names[d.n] = after->names[i];	/* borrowed */
			d.v[d.n++] = after->v[i] - b;
		}
	}
	ret = d.n ? rec_counters(d.n, d.names, d.v, before->took_s + after->took_s) : 0;
	free(d.names);
	free(d.v);
	return ret;
}
