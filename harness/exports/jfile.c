/*
 * jfile.c - kpair's JSON files read back with errors that name file and field,
 * and samples.jsonl read line by line (jfile.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exports/jfile.h"
#include "util.h"

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

const char *ostr(struct jfile *f, json_t *obj, const char *label, const char *key, int required)
{
	json_t *j = json_is_object(obj) ? json_object_get(obj, key) : NULL;
	char *field;

	if (json_is_string(j))
		return json_string_value(j);
	if (j || required) {
		field = xasprintf("%s.%s", label, key);
		jbad(f, field, j ? "not a string" : "missing");
		free(field);
	}
	return NULL;
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
	return !strcmp(type, "hello") || !strcmp(type, "done") || !strcmp(type, "error") ||
	       !strcmp(type, "counters");
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
