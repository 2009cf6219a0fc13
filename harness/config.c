/* config.c - job and target files: inih parsing driven by option tables */
#include <errno.h>
#include <ini.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "util.h"

struct parse_ctx {
	const char *file;
	FILE *f;
	unsigned line;
	int long_line;
	unsigned long_line_at;	/* last too-long line already reported */
	const struct opt *tab;
	void *obj;
	unsigned char *seen;
	struct job *job;	/* for [params] */
	int errors;
	int binary;		/* stopped at a NUL or a byte that is not UTF-8 */
};

static const struct opt *opt_find(const struct opt *tab, const char *section, const char *key)
{
	for (; tab->key; tab++)
		if (!strcmp(tab->section, section) && !strcmp(tab->key, key))
			return tab;
	return NULL;
}

static int section_known(const struct opt *tab, const char *section)
{
	for (; tab->key; tab++)
		if (!strcmp(tab->section, section))
			return 1;
	return 0;
}

/* store @value into the field @o describes; *why set on failure */
static int opt_set(const struct opt *o, void *obj, const char *value, const char **why)
{
	char **sp = (char **)((char *)obj + o->off);
	uint64_t *up = (uint64_t *)((char *)obj + o->off);
	enum unit_kind kind;
	uint64_t v;
	int i;

	switch (o->type) {
	case OPT_STR:
		if (strchr(value, '\n')) {
			*why = "newline in value";
			return -1;
		}
		free(*sp);
		*sp = xstrdup(value);
		return 0;
	case OPT_ENUM:
		for (i = 0; o->choices[i]; i++) {
			if (!strcmp(o->choices[i], value)) {
				free(*sp);
				*sp = xstrdup(value);
				return 0;
			}
		}
		*why = "not one of the allowed values (kpair help job)";
		return -1;
	case OPT_SIZE: kind = UNIT_SIZE; break;
	case OPT_DURATION: kind = UNIT_DURATION; break;
	default: kind = UNIT_COUNT; break;
	}
	if (unit_parse(kind, value, &v, why) < 0)
		return -1;
	if (v < o->min) {
		*why = v == 0 ? "must not be zero" : "below the minimum";
		return -1;
	}
	if (v > o->max) {
		*why = "above the maximum";
		return -1;
	}
	*up = v;
	return 0;
}

static int cfg_error(struct parse_ctx *c, const char *section, const char *key, const char *why)
{
	c->errors++;
	if (section && key)
		return error("%s:%u: %s.%s: %s", c->file, c->line, section, key, why);
	return error("%s:%u: %s", c->file, c->line, why);
}

/*
 * Values that become names and paths. Names (job.name: run ids and result
 * directories) are plain names wherever they come from; paths and programs
 * from a file must stay inside the project (a --set on the command line is
 * the user's own choice, like -o). No value has control characters.
 */
static int value_check(const struct opt *o, const char *v, int from_file, char *why, size_t len)
{
	const char *sk = o->section, *k = o->key;
	char *list, *tok, *save = NULL;
	int ret = 0;

	if (o->type != OPT_STR)
		return 0;
	for (tok = (char *)v; *tok; tok++) {
		if ((unsigned char)*tok < 0x20 ? *tok != '\t' : *tok == 0x7f) {
			snprintf(why, len, "control character 0x%02x in the value", *tok);
			return -1;
		}
	}
	if (!strcmp(k, "name") || (!strcmp(k, "target") && !strchr(v, '/'))) {
		if (name_ok(v))
			return 0;
		snprintf(why, len, "'%.64s': not a plain name (1-64 of A-Z a-z 0-9 . _ + -, "
			 "not starting with . or -)", v);
		return -1;
	}
	if (!strcmp(sk, "target") && !strcmp(k, "bios") && *v && (*v != '/' || !path_exists(v))) {
		snprintf(why, len, "'%.100s': no such firmware file (an absolute path; "
			 "qemu-system-data ships /usr/share/qemu/qboot.rom)", v);
		return -1;
	}
	if (!from_file)
		return 0;
	if (!strcmp(k, "qemu") && (strncmp(v, "qemu-system-", 12) || !name_ok(v))) {
		snprintf(why, len, "'%.64s': not a QEMU system emulator (qemu-system-<arch>, "
			 "looked up in PATH)", v);
		return -1;
	}
	if (!strcmp(k, "target") || !strcmp(k, "agent") || (!strcmp(sk, "pair") &&
	    (strcmp(k, "source") || strchr(v, '/')))) {
		const char *base = strcmp(k, "target") ? kpair_root() : NULL;

		list = xstrdup(v);
		for (tok = strtok_r(list, " \t", &save); tok && !ret; tok = strtok_r(NULL, " \t", &save))
			ret = path_in_root(tok, base, why, len);
		free(list);
	}
	return ret;
}

static int params_add(struct parse_ctx *c, const char *key, const char *value)
{
	struct job *job = c->job;
	int i;

	for (i = 0; i < job->nparams; i++)
		if (!strcmp(job->params[i].key, key)) {
			cfg_error(c, "params", key, "repeated key");
			return 1;
		}
	if (job->nparams >= WL_MAX_PARAMS) {
		cfg_error(c, "params", key, "too many parameters");
		return 1;
	}
	job->params[job->nparams].key = xstrdup(key);
	job->params[job->nparams].value = xstrdup(value);
	job->params[job->nparams].line = c->line;
	job->nparams++;
	return 1;
}

static int handler(void *user, const char *section, const char *key, const char *value)
{
	struct parse_ctx *c = user;
	const struct opt *o;
	const char *why;
	char msg[256];

	if (c->long_line) {
		cfg_error(c, NULL, NULL, "line too long");
		return 1;
	}
	if (!key) /* a new section, seen when it starts */
		return 1;
	if (c->job && !strcmp(section, "params"))
		return params_add(c, key, value);
	if (!*section) {
		snprintf(msg, sizeof(msg), "%.64s: key before any [section]", key);
		return cfg_error(c, NULL, NULL, msg), 1;
	}
	if (!section_known(c->tab, section))
		return cfg_error(c, section, key, "unknown section"), 1;
	o = opt_find(c->tab, section, key);
	if (!o)
		return cfg_error(c, section, key, "unknown key"), 1;
	if (c->seen[o - c->tab])
		return cfg_error(c, section, key, "repeated key"), 1;
	c->seen[o - c->tab] = 1;
	if (c->job)
		c->job->line_of[o - c->tab] = c->line;
	if (opt_set(o, c->obj, value, &why) < 0) {
		snprintf(msg, sizeof(msg), "'%s': %s", value, why);
		cfg_error(c, section, key, msg);
	} else if (value_check(o, value, 1, msg, sizeof(msg)) < 0) {
		cfg_error(c, section, key, msg);
	}
	return 1;
}

/* one line, as fgets would, with its true length (NULs and all) */
static size_t read_line(FILE *f, char *str, int num)
{
	size_t n = 0;
	int ch;

	while (n + 1 < (size_t)num && (ch = getc(f)) != EOF) {
		str[n++] = (char)ch;
		if (ch == '\n')
			break;
	}
	str[n] = '\0';
	return n;
}

static char *reader(char *str, int num, void *stream)
{
	struct parse_ctx *c = stream;
	size_t n, bad;

	if (c->binary || !(n = read_line(c->f, str, num)))
		return NULL;
	c->line++;
	c->long_line = n == (size_t)num - 1 && str[n - 1] != '\n' && !feof(c->f);
	if (memchr(str, '\0', n) || (!c->long_line && utf8_check(str, n, &bad) < 0)) {
		char msg[96];
		size_t at = memchr(str, '\0', n) ? (size_t)((char *)memchr(str, '\0', n) - str) : bad;

		snprintf(msg, sizeof(msg), "%s at column %zu: not a UTF-8 text file",
			 str[at] ? "byte that is not UTF-8" : "NUL byte", at + 1);
		cfg_error(c, NULL, NULL, msg);
		c->binary = 1;	/* nothing after it is worth parsing */
		c->long_line_at = c->line;
		return NULL;
	}
	if (c->long_line) {	/* swallow the rest; the handler reports it */
		const char *p = str + strspn(str, " \t");
		int ch;

		while ((ch = fgetc(c->f)) != EOF && ch != '\n')
			;
		if (*p == ';' || *p == '#') {
			c->long_line = 0;	/* a long comment is still a comment */
			str[0] = '\0';
		} else if (!strchr(str, '=') && str[0] != '[') {
			cfg_error(c, NULL, NULL, "line too long");
			c->long_line_at = c->line;
		}
	}
	return str;
}

static int parse_file(struct parse_ctx *c, const char *path)
{
	int r;

	c->f = fopen(path, "r");
	if (!c->f) {
		c->errors++;
		return error("cannot open '%s': %s", path, strerror(errno));
	}
	ini_allow_multiline = false;
	ini_max_line = 1024;
	r = ini_parse_stream(reader, c, handler, c);
	fclose(c->f);
	if (c->binary)
		c->line = 0;	/* like a file that cannot be read: nothing more to say */
	if (!c->line && !c->errors) {
		c->errors++;
		return error("%s: empty file: no [%s] section", path, c->tab[0].section);
	}
	if (r > 0 && (unsigned)r != c->long_line_at) {
		c->line = r;
		cfg_error(c, NULL, NULL, "syntax error (expected [section] or key = value)");
	}
	return c->errors ? -1 : 0;
}

/* fill defaults and report missing required keys */
static int apply_defaults(struct parse_ctx *c)
{
	const struct opt *o;
	const char *why;

	for (o = c->tab; o->key; o++) {
		if (c->seen[o - c->tab])
			continue;
		if (!o->def) {
			c->errors++;
			error("%s: %s.%s: missing (required)", c->file, o->section, o->key);
			continue;
		}
		if (opt_set(o, c->obj, o->def, &why) < 0) {
			c->errors++;
			error("BUG: default of %s.%s: %s", o->section, o->key, why);
		}
	}
	return c->errors ? -1 : 0;
}

static int apply_set(struct parse_ctx *c, const char *set)
{
	char *s = xstrdup(set), *dot, *eq;
	int ret = 0;

	c->file = "--set";
	c->line = 0;
	eq = strchr(s, '=');
	dot = strchr(s, '.');
	if (!eq || !dot || dot > eq) {
		free(s);
		c->errors++;
		return error("--set '%s': expected section.key=value", set);
	}
	*eq = '\0';
	*dot = '\0';
	if (c->job && !strcmp(s, "params")) {
		struct job *job = c->job;
		int i;

		for (i = 0; i < job->nparams; i++)
			if (!strcmp(job->params[i].key, dot + 1))
				break;
		if (i < job->nparams) {
			free(job->params[i].value);
			job->params[i].value = xstrdup(eq + 1);
			job->params[i].line = 0;
		} else {
			params_add(c, dot + 1, eq + 1);
		}
	} else {
		const struct opt *o = opt_find(c->tab, s, dot + 1);
		const char *why;
		char msg[256];

		if (!o) {
			c->errors++;
			ret = error("--set %s.%s: unknown key", s, dot + 1);
		} else if (opt_set(o, c->obj, eq + 1, &why) < 0) {
			c->errors++;
			ret = error("--set %s.%s: '%s': %s", s, dot + 1, eq + 1, why);
		} else if (value_check(o, eq + 1, 0, msg, sizeof(msg)) < 0) {
			c->errors++;
			ret = error("--set %s.%s: %s", s, dot + 1, msg);
		} else {
			c->seen[o - c->tab] = 1;
			if (c->job)
				c->job->line_of[o - c->tab] = 0;
		}
	}
	free(s);
	return ret;
}

/* "file:line" of job key @key in the file, or "file" when it came from a default or --set */
static const char *job_at(const struct job *job, const char *key, char *buf, size_t len)
{
	const struct opt *o;

	for (o = job_opts; o->key; o++)
		if (!strcmp(o->key, key) && job->line_of[o - job_opts])
			return snprintf(buf, len, "%s:%u", job->file, job->line_of[o - job_opts]), buf;
	return job->file;
}

/* resolve [params] against the workload's own table */
static int job_check_params(struct job *job)
{
	int i, errors = 0;
	char at[PATH_MAX + 16];

	job->wl = workload_find(job->workload);
	if (!job->wl)
		return error("%s: job.workload: unknown workload '%s' (kpair help workloads)",
			     job_at(job, "workload", at, sizeof(at)), job->workload);
	for (i = 0; job->wl->params[i].name; i++) {
		const char *why;

		if (wl_param_check(&job->wl->params[i], job->wl->params[i].def, &job->pval[i], &why) < 0)
			return error("BUG: workload %s: default of %s: %s", job->wl->name,
				     job->wl->params[i].name, why);
	}
	for (i = 0; i < job->nparams; i++) {
		struct job_param *p = &job->params[i];
		int k = workload_param_index(job->wl, p->key);
		const char *why;

		char at[PATH_MAX + 16];

		/* "file:line", or "--set" for an override (it has no line) */
		if (p->line)
			snprintf(at, sizeof(at), "%s:%u", job->file, p->line);
		else
			snprintf(at, sizeof(at), "--set");
		if (k < 0) {
			errors++;
			error("%s: params.%s: workload '%s' has no such parameter", at, p->key,
			      job->wl->name);
			continue;
		}
		if (wl_param_check(&job->wl->params[k], p->value, &job->pval[k], &why) < 0) {
			errors++;
			error("%s: params.%s: '%s': %s", at, p->key, p->value, why);
		}
	}
	return errors ? -1 : 0;
}

void job_init(struct job *job)
{
	memset(job, 0, sizeof(*job));
}

void job_release(struct job *job)
{
	const struct opt *o;
	int i;

	for (o = job_opts; o->key; o++)
		if (o->type == OPT_STR || o->type == OPT_ENUM)
			free(*(char **)((char *)job + o->off));
	for (i = 0; i < job->nparams; i++) {
		free(job->params[i].key);
		free(job->params[i].value);
	}
	free(job->file);
	job_init(job);
}

/* job.pin or job.pin_io: none, auto or a host CPU number */
static int check_pin(const struct job *job, const char *key, const char *val)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	char at[PATH_MAX + 16], *end;
	long v;

	if (!strcmp(val, "none") || !strcmp(val, "auto"))
		return 0;
	v = strtol(val, &end, 10);
	if (end == val || *end || v < 0 || v >= n)
		return error("%s: job.%s: '%s': none, auto or a CPU number below %ld",
			     job_at(job, key, at, sizeof(at)), key, val, n);
	return 0;
}

int job_load(struct job *job, const char *path, char *const *sets, int nset)
{
	struct parse_ctx c = { .file = path, .tab = job_opts, .obj = job, .seen = job->seen, .job = job };
	char at[PATH_MAX + 16];
	int i;

	job->file = xstrdup(path);
	parse_file(&c, path);
	if (c.errors && !c.line)
		return -1;	/* could not open */
	for (i = 0; i < nset; i++)
		apply_set(&c, sets[i]);
	c.file = path;
	apply_defaults(&c);
	if (c.errors)
		return -1;
	if (job_check_params(job) < 0 ||
	    check_pin(job, "pin", job->pin) < 0 || check_pin(job, "pin_io", job->pin_io) < 0)
		return -1;
	if (strcmp(job->pin_io, "none") && !strcmp(job->pin, "none"))
		return error("%s: job.pin_io: '%s' needs job.pin (the vCPUs' CPU)",
			     job_at(job, "pin_io", at, sizeof(at)), job->pin_io);
	if (strcmp(job->fs, "xfs") && strcmp(job->fs, "none") &&
	    job->blocksize != 1024 && job->blocksize != 2048 && job->blocksize != 4096 &&
	    job->blocksize != 65536)
		return error("%s: disk.blocksize: %llu: ext2/3/4 take 1024, 2048, 4096 or 65536",
			     job_at(job, "blocksize", at, sizeof(at)),
			     (unsigned long long)job->blocksize);
	if (job->blocksize & (job->blocksize - 1))
		return error("%s: disk.blocksize: %llu: not a power of two",
			     job_at(job, "blocksize", at, sizeof(at)),
			     (unsigned long long)job->blocksize);
	return 0;
}

int job_pin_cpu(const struct job *job)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	if (!strcmp(job->pin, "none"))
		return -1;
	if (!strcmp(job->pin, "auto"))
		return n > 1 ? (int)n - 1 : 0;
	return atoi(job->pin);
}

const char *job_icount(const struct job *job)
{
	if (!strcmp(job->mode, "icount"))
		return "shift=0,sleep=off";
	if (!strcmp(job->mode, "icount-sleep"))
		return "shift=0,sleep=on";
	return NULL;
}

int job_pin_io_cpu(const struct job *job)
{
	if (!strcmp(job->pin_io, "none"))
		return -1;
	if (!strcmp(job->pin_io, "auto"))
		return 0;
	return atoi(job->pin_io);
}

const char *job_fs_module(const struct job *job)
{
	if (!strcmp(job->fs, "xfs"))
		return "xfs";
	if (!strcmp(job->fs, "none"))
		return NULL;
	return "ext4";	/* ext2 and ext3 are served by ext4 (CONFIG_EXT4_USE_FOR_EXT2) */
}

void target_init(struct target *t)
{
	memset(t, 0, sizeof(*t));
}

void target_release(struct target *t)
{
	const struct opt *o;

	for (o = target_opts; o->key; o++)
		if (o->type == OPT_STR || o->type == OPT_ENUM)
			free(*(char **)((char *)t + o->off));
	free(t->file);
	target_init(t);
}

int target_load(struct target *t, const char *name)
{
	struct parse_ctx c = { .tab = target_opts, .obj = t, .seen = t->seen };

	if (strchr(name, '/'))
		t->file = xstrdup(name);
	else
		t->file = xasprintf("%s/configs/targets/%s.target", kpair_root(), name);
	c.file = t->file;
	if (!path_exists(t->file))
		return error("unknown target '%s': no file '%s'", name, t->file);
	parse_file(&c, t->file);
	if (c.errors && !c.line)
		return -1;	/* could not open, empty or not text */
	apply_defaults(&c);
	return c.errors ? -1 : 0;
}

int opts_load(const char *path, const struct opt *tab, void *obj, unsigned char *seen,
	      char *const *sets, int nset)
{
	struct parse_ctx c = { .file = path, .tab = tab, .obj = obj, .seen = seen };
	int i;

	parse_file(&c, path);
	if (c.errors && !c.line)
		return -1;	/* could not open */
	for (i = 0; i < nset; i++)
		apply_set(&c, sets[i]);
	c.file = path;
	apply_defaults(&c);
	return c.errors ? -1 : 0;
}

void opts_help(const struct opt *tab)
{
	const char *sec = "";

	for (; tab->key; tab++) {
		if (strcmp(sec, tab->section))
			printf("[%s]\n", sec = tab->section);
		printf("  %-14s %-9s default %-8s %s\n", tab->key,
		       tab->type == OPT_STR ? "text" : tab->type == OPT_ENUM ? "choice" :
		       tab->type == OPT_SIZE ? "size" : tab->type == OPT_DURATION ? "duration" : "count",
		       tab->def ? (*tab->def ? tab->def : "''") : "(required)", tab->help);
	}
}
