/* kconfig.c - forcing kpair's required options onto a whole .config, and checking them */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kconfig.h"
#include "util.h"

/* tristates the initramfs loads as modules when a config builds them so */
static const char *const module_ok[] = {
	"VIRTIO", "VIRTIO_PCI", "VIRTIO_MMIO", "VIRTIO_BLK", "VIRTIO_CONSOLE", "EXT4_FS",
	"XFS_FS", "BLK_DEV_RAM", "CRYPTO_CRC32C", NULL,
};

/* the start of CONFIG_@opt's line in @config, or NULL; *set tells "=" from "is not set" */
static const char *find_line(const char *config, const char *opt, int *set)
{
	size_t n = strlen(opt);
	const char *p;

	for (p = config; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		if (!strncmp(p, "CONFIG_", 7) && !strncmp(p + 7, opt, n) && p[7 + n] == '=') {
			*set = 1;
			return p;
		}
		if (!strncmp(p, "# CONFIG_", 9) && !strncmp(p + 9, opt, n) &&
		    !strncmp(p + 9 + n, " is not set", 11)) {
			*set = 0;
			return p;
		}
	}
	return NULL;
}

int kconfig_get(const char *config, const char *opt, char *buf, size_t len)
{
	int set = 0;
	const char *p = find_line(config, opt, &set), *v;

	if (len)
		buf[0] = '\0';
	if (!p || !set)
		return 0;
	v = p + 7 + strlen(opt) + 1;
	snprintf(buf, len, "%.*s", (int)strcspn(v, "\n"), v);
	return 1;
}

/* one requirement line: "CONFIG_X=v" (1) or "# CONFIG_X is not set" (0); -1: not one */
static int parse_req(const char *line, char *opt, size_t olen, char *val, size_t vlen)
{
	const char *eq;

	if (!strncmp(line, "CONFIG_", 7) && (eq = strchr(line, '='))) {
		snprintf(opt, olen, "%.*s", (int)(eq - line - 7), line + 7);
		snprintf(val, vlen, "%s", eq + 1);
		return 1;
	}
	if (!strncmp(line, "# CONFIG_", 9) && strstr(line, " is not set")) {
		snprintf(opt, olen, "%.*s", (int)strcspn(line + 9, " "), line + 9);
		val[0] = '\0';
		return 0;
	}
	return -1;
}

static int met(const char *opt, const char *want, int want_set, int set, const char *have)
{
	int i;

	if (!want_set)
		return !set || !strcmp(have, "n");
	if (!set)
		return 0;
	if (!strcmp(have, want))
		return 1;
	if (!strcmp(want, "y") && !strcmp(have, "m"))
		for (i = 0; module_ok[i]; i++)
			if (!strcmp(module_ok[i], opt))
				return 1;
	return 0;
}

/* call @fn for each requirement of @required that @config does not meet */
static void each_unmet(const char *config, const char *required,
		       void (*fn)(void *ctx, const char *opt, const char *want, int want_set,
				  const char *have, int set),
		       void *ctx)
{
	char *copy = xstrdup(required), *line, *save = NULL, opt[128], want[256], have[256];

	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		int want_set = parse_req(line, opt, sizeof(opt), want, sizeof(want)), set;

		if (want_set < 0)
			continue;
		set = kconfig_get(config, opt, have, sizeof(have));
		if (!met(opt, want, want_set, set, have))
			fn(ctx, opt, want, want_set, have, set);
	}
	free(copy);
}

struct force_ctx {
	struct text add;	/* the forced lines */
	json_t *forced;
	const char *config;
};

static void force_one(void *ctx, const char *opt, const char *want, int want_set,
		      const char *have, int set)
{
	struct force_ctx *c = ctx;
	int dummy;

	if (want_set)
		text_add(&c->add, "CONFIG_%s=%s\n", opt, want);
	else
		text_add(&c->add, "# CONFIG_%s is not set\n", opt);
	json_array_append_new(c->forced, json_pack("{s:s, s:o, s:s}", "option", opt, "was",
				set ? json_string(have) : find_line(c->config, opt, &dummy) ?
				json_string("n") : json_null(), "now", want_set ? want : "n"));
}

char *kconfig_force(const char *config, const char *required, json_t **forced)
{
	struct force_ctx c = { { NULL, 0 }, json_array(), config };
	struct text out = { NULL, 0 };
	const char *p, *nl;
	size_t i;

	text_add(&c.add, "%s", "");
	each_unmet(config, required, force_one, &c);
	/* the config without the forced options' lines, then the forced lines */
	text_add(&out, "%s", "");
	for (p = config; *p; p = nl) {
		const char *opt = !strncmp(p, "CONFIG_", 7) ? p + 7 :
			!strncmp(p, "# CONFIG_", 9) ? p + 9 : NULL;
		int drop = 0;

		nl = strchr(p, '\n') ? strchr(p, '\n') + 1 : p + strlen(p);
		for (i = 0; opt && i < json_array_size(c.forced); i++) {
			const char *f = json_string_value(json_object_get(json_array_get(c.forced, i),
									  "option"));
			size_t n = strlen(f);

			if (!strncmp(opt, f, n) && (opt[n] == '=' || opt[n] == ' '))
				drop = 1;
		}
		if (!drop)
			text_add(&out, "%.*s", (int)(nl - p), p);
	}
	if (out.len && out.s[out.len - 1] != '\n')
		text_add(&out, "\n");
	if (c.add.len)
		text_add(&out, "# forced by kpair\n%s", c.add.s);
	free(c.add.s);
	*forced = c.forced;
	return out.s;
}

static void unmet_one(void *ctx, const char *opt, const char *want, int want_set,
		      const char *have, int set)
{
	(void)have;
	(void)set;
	json_array_append_new(ctx, want_set ? json_sprintf("CONFIG_%s=%s", opt, want) :
			      json_sprintf("# CONFIG_%s is not set", opt));
}

json_t *kconfig_unmet(const char *config, const char *required)
{
	json_t *a = json_array();

	each_unmet(config, required, unmet_one, a);
	return a;
}
