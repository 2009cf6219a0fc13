/* kneeds.c - a job's kernel options: gathered, checked against a config, made a fragment */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "kconfig.h"
#include "kneeds.h"
#include "util.h"

/* does the space-separated list @list hold @word? */
static int lists(const char *list, const char *word)
{
	size_t n = strlen(word);
	const char *p = list;

	while (p && *p) {
		p += strspn(p, " \t");
		if (!strncmp(p, word, n) && (p[n] == '\0' || p[n] == ' ' || p[n] == '\t'))
			return 1;
		p += strcspn(p, " \t");
	}
	return 0;
}

static int add(struct kneed *out, int n, const char *option, const char *who, const char *why)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(out[i].option, option))
			return n;
	if (n < KNEED_MAX)
		out[n++] = (struct kneed){ option, who, why };
	return n;
}

int job_kneeds(const struct job *job, struct kneed *out)
{
	const struct wl_kneed *k;
	int n = 0, i;

	for (k = job->wl->kneeds; k && k->option; k++) {
		if (k->param) {
			i = workload_param_index(job->wl, k->param);
			if (i < 0 || !lists(job_param_text(job, i), k->word))
				continue;
		}
		n = add(out, n, k->option, job->wl->name, k->why);
	}
	if (job->wl->host_root) {
		n = add(out, n, "NET_9P", job->wl->name, "the host's / is shared over virtio-9p");
		n = add(out, n, "NET_9P_VIRTIO", job->wl->name, "the host's / is shared over virtio-9p");
		n = add(out, n, "9P_FS", job->wl->name, "the host's / is mounted as a 9p file system");
	}
	if (!strcmp(job->fs, "ext4") || !strcmp(job->fs, "ext3"))
		n = add(out, n, "EXT4_FS", job->fs, "the scratch fs; ext3 is the ext4 driver's too");
	else if (!strcmp(job->fs, "ext2"))
		n = add(out, n, "EXT2_FS|EXT4_USE_FOR_EXT2", job->fs, "the scratch file system");
	else if (!strcmp(job->fs, "xfs"))
		n = add(out, n, "XFS_FS", job->fs, "the scratch file system");
	if (!strcmp(job->backing, "ram"))
		n = add(out, n, "BLK_DEV_RAM", "disk.backing = ram", "the scratch image is copied "
			"into a RAM disk (brd) in the guest");
	return n;
}

/* is "A|B" set to y or m in @config? */
static int met(const char *config, const char *option)
{
	char opt[64], val[64];
	const char *p = option;

	while (*p) {
		size_t n = strcspn(p, "|");

		snprintf(opt, sizeof(opt), "%.*s", (int)n, p);
		if (kconfig_get(config, opt, val, sizeof(val)) && (!strcmp(val, "y") || !strcmp(val, "m")))
			return 1;
		p += n + (p[n] == '|');
	}
	return 0;
}

int kneeds_check(const char *config, const char *id, const struct job *job, char *why,
		 size_t len)
{
	struct kneed k[KNEED_MAX];
	int n = job_kneeds(job, k), i;

	for (i = 0; i < n; i++) {
		char first[64];

		if (met(config, k[i].option))
			continue;
		snprintf(first, sizeof(first), "%.*s", (int)strcspn(k[i].option, "|"), k[i].option);
		snprintf(why, len, "kernel '%s' does not set CONFIG_%s, which %s needs (%s): use a "
			 "kernel whose config has CONFIG_%s=y (kpair kernel build --fragment FILE "
			 "with that line, or --config FILE that sets it; kpair's own builds add it: "
			 "configs/kconfig/workloads.config)", id, k[i].option, k[i].who, k[i].why,
			 first);
		return -1;
	}
	return 0;
}

int kernel_kneeds_check(const struct kernel *k, const struct job *job, char *why, size_t len)
{
	char *path = xasprintf("%s/config", k->dir), *text = NULL;
	int ret = 0;

	if (path_exists(path)) {
		if (read_file(path, &text, NULL) < 0) {
			snprintf(why, len, "kernel '%s': %s", k->id, error_last());
			ret = -1;
		} else {
			ret = kneeds_check(text, k->id, job, why, len);
		}
	}
	free(text);
	free(path);
	return ret;
}

char *kneeds_fragment(const struct job *job)
{
	struct kneed k[KNEED_MAX];
	struct text t = { NULL, 0 };
	int n = job_kneeds(job, k), i;

	text_add(&t, "%s", "");
	for (i = 0; i < n; i++)
		text_add(&t, "CONFIG_%.*s=y\n", (int)strcspn(k[i].option, "|"), k[i].option);
	return t.s;
}
