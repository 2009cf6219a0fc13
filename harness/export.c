/*
 * export.c - kpair export: the command line of the two exporters, LAVA
 * (export-lava.c) and KCIDB (export-kcidb.c), and what they share: file://
 * URLs and reading kpair's JSON files with errors that name file and field.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "util.h"

char *export_file_url(const char *path)
{
	static const char ok[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~/";
	struct text t = { 0 };

	text_add(&t, "file://");
	for (; *path; path++) {
		if (strchr(ok, *path))
			text_add(&t, "%c", *path);
		else
			text_add(&t, "%%%02X", (unsigned char)*path);
	}
	return t.s;
}

int jfile_load(struct jfile *f, const char *dir, const char *name)
{
	json_error_t e;

	f->bad = 0;
	f->path = xasprintf("%s/%s", dir, name);
	f->root = json_load_file(f->path, JSON_REJECT_DUPLICATES, &e);
	if (!f->root && e.line < 1)
		return error("'%s': %s", f->path, e.text);	/* could not read it */
	if (!f->root)
		return error("'%s': line %d: %s", f->path, e.line, e.text);
	if (!json_is_object(f->root))
		return error("'%s': not a JSON object", f->path);
	return 0;
}

void jfile_release(struct jfile *f)
{
	json_decref(f->root);
	free(f->path);
	memset(f, 0, sizeof(*f));
}

void jbad(struct jfile *f, const char *field, const char *what)
{
	if (!f->bad++)
		error("'%s': %s: %s", f->path, field, what);
}

json_t *jget(json_t *j, const char *field)
{
	char key[128], *end;

	while (j && *field) {
		size_t n = strcspn(field, ".");
		unsigned long i;

		snprintf(key, sizeof(key), "%.*s", (int)n, field);
		if (json_is_array(j)) {
			i = strtoul(key, &end, 10);
			j = *key && !*end ? json_array_get(j, i) : NULL;
		} else {
			j = json_is_object(j) ? json_object_get(j, key) : NULL;
		}
		field += n + (field[n] == '.');
	}
	return j;
}

const char *jstr(struct jfile *f, const char *field, int required)
{
	json_t *j = jget(f->root, field);

	if (json_is_string(j))
		return json_string_value(j);
	if (j || required)
		jbad(f, field, j ? "not a string" : "missing");
	return NULL;
}

json_t *jobj(struct jfile *f, const char *field, int required)
{
	json_t *j = jget(f->root, field);

	if (json_is_object(j))
		return j;
	if (j || required)
		jbad(f, field, j ? "not an object" : "missing");
	return NULL;
}

int jnum(struct jfile *f, const char *field, int required, double *v)
{
	json_t *j = jget(f->root, field);

	if (json_is_number(j)) {
		*v = json_number_value(j);
		return 1;
	}
	if (j || required)
		jbad(f, field, j ? "not a number" : "missing");
	return 0;
}

const char *kstr(struct jfile *f, const char *base, const char *field, int required)
{
	char path[200];

	snprintf(path, sizeof(path), "%s.%s", base, field);
	return jstr(f, path, required);
}

int knum(struct jfile *f, const char *base, const char *field, int required, double *v)
{
	char path[200];

	snprintf(path, sizeof(path), "%s.%s", base, field);
	return jnum(f, path, required, v);
}

static int record_type_known(const char *type)
{
	return !strcmp(type, "hello") || !strcmp(type, "done") || !strcmp(type, "error");
}

json_t *export_load_samples(const char *dir)
{
	char *path = xasprintf("%s/samples.jsonl", dir), *buf = NULL, *p, *end, *nl;
	json_t *list = json_array();
	size_t len = 0;
	int line = 0;

	if (!path_exists(path))
		goto out;	/* a run that never opened it: no samples */
	if (read_file(path, &buf, &len) < 0)
		goto out_fail;
	for (p = buf, end = buf + len; p < end; p = nl + (nl < end)) {
		const char *type, *metric, *unit;
		json_int_t seq;
		json_error_t e;
		json_t *rec;
		size_t n;
		double v;

		nl = memchr(p, '\n', end - p);
		if (!nl)
			nl = end;
		n = nl - p;
		line++;
		if (!n)
			continue;
		rec = json_loadb(p, n, JSON_REJECT_DUPLICATES, &e);
		if (!rec) {
			error("'%s':%d: not a JSON record: %s", path, line, e.text);
			goto out_fail;
		}
		type = json_string_value(json_object_get(rec, "type"));
		if (type && !strcmp(type, "sample")) {
			const char *better;

			if (json_unpack_ex(rec, &e, JSON_STRICT, "{s:s, s:I, s:s, s:s, s:F, s?s}", "type",
					   &type, "seq", &seq, "metric", &metric, "unit", &unit, "value", &v,
					   "better", &better) < 0) {
				error("'%s':%d: sample record: %s", path, line, e.text);
				json_decref(rec);
				goto out_fail;
			}
			json_array_append_new(list, rec);
		} else if (type && record_type_known(type)) {
			json_decref(rec);
		} else {
			error("'%s':%d: type: %s", path, line, type ? "not a kpair record type" :
			      "missing or not a string");
			json_decref(rec);
			goto out_fail;
		}
	}
	goto out;
out_fail:
	json_decref(list);
	list = NULL;
out:
	free(buf);
	free(path);
	return list;
}

static const char export_usage[] =
	"usage: kpair export lava JOB [--kernel ID] [--set S.K=V]... -o DIR\n"
	"         DIR/job.yaml, DIR/device.yaml and the images they name (file:// URLs):\n"
	"         lava-run --job-id 1 --output-dir OUT --device DIR/device.yaml DIR/job.yaml\n"
	"       kpair export kcidb RESULT_DIR -o FILE\n"
	"         KCIDB v5 JSON of a run directory (result.json, samples.jsonl) or an A/B\n"
	"         directory (comparison.json, runs/*/)\n";

/* after an error(): the usage, and the exit code of a bad command line */
static int usage_exit(void)
{
	fputs(export_usage, stderr);
	return EXPORT_USAGE;
}

static int cmd_export_lava(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "kernel", required_argument, NULL, 'k' },
		{ "set", required_argument, NULL, 's' },
		{ "output", required_argument, NULL, 'o' },
		{ NULL, 0, NULL, 0 },
	};
	struct lava_opts o = { 0 };
	char **sets = xcalloc(argc + 1, sizeof(char *));
	int c, ret = EXPORT_USAGE;

	optind = 1;
	while ((c = getopt_long(argc, argv, "k:s:o:", lopts, NULL)) != -1) {
		switch (c) {
		case 'k': o.kernel = optarg; break;
		case 's': sets[o.nset++] = optarg; break;
		case 'o': o.out_dir = optarg; break;
		default:
			error("export lava: unknown option");
			goto out_usage;
		}
	}
	if (optind != argc - 1 || !o.out_dir) {
		error("export lava: expected one job file and -o DIR");
		goto out_usage;
	}
	o.job_path = argv[optind];
	o.sets = sets;
	ret = export_lava(&o);
	goto out;
out_usage:
	usage_exit();
out:
	free(sets);
	return ret;
}

static int cmd_export_kcidb(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ NULL, 0, NULL, 0 },
	};
	const char *out = NULL;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "o:", lopts, NULL)) != -1) {
		if (c != 'o') {
			error("export kcidb: unknown option");
			return usage_exit();
		}
		out = optarg;
	}
	if (optind != argc - 1 || !out) {
		error("export kcidb: expected one result directory and -o FILE");
		return usage_exit();
	}
	return export_kcidb(argv[optind], out);
}

int cmd_export(int argc, char **argv)
{
	if (argc < 2)
		return usage_exit();
	if (!strcmp(argv[1], "help") || !strcmp(argv[1], "--help")) {
		fputs(export_usage, stdout);
		return 0;
	}
	if (!strcmp(argv[1], "lava"))
		return cmd_export_lava(argc - 1, argv + 1);
	if (!strcmp(argv[1], "kcidb"))
		return cmd_export_kcidb(argc - 1, argv + 1);
	error("export: '%s': expected lava or kcidb", argv[1]);
	return usage_exit();
}
