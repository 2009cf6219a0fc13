/* ab-plan.c - the A/B plan: options, the run order, the hosts, DIR/ab.json */
#include <gsl/gsl_rng.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "ab-plan.h"
#include "backends/vm.h"
#include "util.h"

void ab_opts_init(struct ab_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->runs = 5;
	o->max_runs = 20;
	o->retries = 1;
	o->warmup = 1;
	o->seed = 1;
	o->threshold = 0.02;
	o->jobs = 1;
}

static void free_sets(char **sets, int n)
{
	int i;

	for (i = 0; i < n; i++)
		free(sets[i]);
}

void ab_opts_release(struct ab_opts *o)
{
	int s;

	free(o->job_path);
	free(o->out_dir);
	free(o->backend);
	free(o->metric);
	free(o->uri);
	free_sets(o->hosts, o->nhosts);
	free_sets(o->sets, o->nset);
	for (s = 0; s < 2; s++) {
		free(o->side[s].kernel);
		free_sets(o->side[s].sets, o->side[s].nset);
	}
	ab_opts_init(o);
}

/* side of slot @j: blocks of four slots, ABBA or BAAB, drawn from the seed */
int ab_slot_side(uint64_t seed, int j)
{
	static const int blocks[2][4] = { { 0, 1, 1, 0 }, { 1, 0, 0, 1 } };
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	int b = 0, k;

	gsl_rng_set(r, (unsigned long)seed);
	for (k = 0; k <= j / 4; k++)
		b = gsl_rng_uniform(r) < 0.5;
	gsl_rng_free(r);
	return blocks[b][j % 4];
}

int ab_set_hosts(struct ab_opts *o, const char *list)
{
	const char *p = list;

	free_sets(o->hosts, o->nhosts);
	o->nhosts = 0;
	while (*p) {
		size_t n = strcspn(p, ",");

		if (!n || memchr(p, ' ', n) || !memmem(p, n, "://", 3))
			return error("--hosts '%s': entry %d '%.*s' is not a libvirt URI "
				     "(e.g. qemu+ssh://bench1/system)", list, o->nhosts + 1, (int)n, p);
		if (o->nhosts >= AB_MAX_HOSTS)
			return error("--hosts '%s': more than %d hosts", list, AB_MAX_HOSTS);
		o->hosts[o->nhosts++] = strndup(p, n);
		p += n + (p[n] == ',');
	}
	if (!o->nhosts)
		return error("--hosts: no URI given");
	return 0;
}

/* the host slot @j runs on: pairs of slots stay together unless mixing is asked for */
const char *ab_slot_host(const struct ab_opts *o, int j)
{
	if (!o->nhosts)
		return NULL;
	return o->hosts[(o->mix_hosts ? j : j / 2) % o->nhosts];
}

/* the --set list of one side: both sides' sets, then its own */
int ab_side_sets(const struct ab_opts *o, int side, char **out)
{
	int n = 0, i;

	for (i = 0; i < o->nset; i++)
		out[n++] = o->sets[i];
	for (i = 0; i < o->side[side].nset; i++)
		out[n++] = o->side[side].sets[i];
	return n;
}

json_t *ab_strings_json(char *const *v, int n)
{
	json_t *a = json_array();
	int i;

	for (i = 0; i < n; i++)
		json_array_append_new(a, json_string(v[i]));
	return a;
}

int ab_plan_write(const struct ab_opts *o)
{
	char *path = xasprintf("%s/ab.json", o->out_dir);
	json_t *j;
	int ret;

	j = json_pack("{s:s, s:s, s:{s:s, s:o}, s:{s:s, s:o}, s:o, s:i, s:f, s:i, s:i, s:I, s:f, s:b, s:i}",
		      "format", "kpair-ab/1", "job", o->job_path,
		      "stock", "kernel", o->side[0].kernel, "sets", ab_strings_json(o->side[0].sets, o->side[0].nset),
		      "patched", "kernel", o->side[1].kernel, "sets", ab_strings_json(o->side[1].sets, o->side[1].nset),
		      "sets", ab_strings_json(o->sets, o->nset), "runs", o->runs, "until_ci", o->until_ci,
		      "max_runs", o->max_runs, "retries", o->retries, "seed", (json_int_t)o->seed,
		      "threshold", o->threshold, "calibrate", o->calibrate, "jobs", o->jobs);
	json_object_set_new(j, "warmup", json_integer(o->warmup));
	if (o->metric)
		json_object_set_new(j, "metric", json_string(o->metric));
	if (o->backend)
		json_object_set_new(j, "backend", json_string(o->backend));
	if (o->uri)
		json_object_set_new(j, "uri", json_string(o->uri));
	if (backend_find(o->backend)->plan_save)	/* e.g. the lab, its token's file, not the token */
		backend_find(o->backend)->plan_save(j);
	if (o->profile)
		json_object_set_new(j, "profile", json_true());
	if (o->nhosts) {
		json_object_set_new(j, "hosts", ab_strings_json(o->hosts, o->nhosts));
		json_object_set_new(j, "mix_hosts", json_boolean(o->mix_hosts));
	}
	ret = write_json_atomic(path, j);
	json_decref(j);
	free(path);
	return ret;
}

static int strings_load(json_t *a, char **out, int *n, int max)
{
	size_t i;
	json_t *v;

	*n = 0;
	json_array_foreach(a, i, v) {
		if (!json_is_string(v) || *n >= max)
			return -1;
		out[(*n)++] = xstrdup(json_string_value(v));
	}
	return 0;
}

int ab_plan_read(const char *dir, struct ab_opts *o)
{
	char *path = xasprintf("%s/ab.json", dir);
	const char *job, *k0, *k1;
	json_t *j, *s0, *s1, *sets;
	json_int_t seed;
	json_error_t err;
	int ret = -1;

	j = json_load_file(path, 0, &err);
	if (!j) {
		error("%s: %s", path, err.text);
		goto out;
	}
	if (json_unpack_ex(j, &err, 0, "{s:s, s:{s:s, s:o}, s:{s:s, s:o}, s:o, s:i, s:F, s:i, s:i, s:I, s:F, s:b}",
			   "job", &job, "stock", "kernel", &k0, "sets", &s0, "patched", "kernel", &k1,
			   "sets", &s1, "sets", &sets, "runs", &o->runs, "until_ci", &o->until_ci,
			   "max_runs", &o->max_runs, "retries", &o->retries, "seed", &seed,
			   "threshold", &o->threshold, "calibrate", &o->calibrate) < 0) {
		error("%s: %s", path, err.text);
		goto out;
	}
	o->jobs = (int)json_integer_value(json_object_get(j, "jobs"));
	if (json_is_integer(json_object_get(j, "warmup")))	/* plans before --warmup: the default */
		o->warmup = (int)json_integer_value(json_object_get(j, "warmup"));
	if (json_is_string(json_object_get(j, "metric")))
		o->metric = xstrdup(json_string_value(json_object_get(j, "metric")));
	o->runs_given = 1;	/* the plan's run count stands */
	if (json_is_string(json_object_get(j, "backend")))
		o->backend = xstrdup(json_string_value(json_object_get(j, "backend")));
	if (json_is_string(json_object_get(j, "uri")))
		o->uri = xstrdup(json_string_value(json_object_get(j, "uri")));
	if (!backend_find(o->backend)) {
		error("%s: backend '%s': %s", path, o->backend, backend_names_text());
		goto out;
	}
	if (backend_find(o->backend)->plan_load) {	/* resume: the same settings, checked again */
		if (backend_find(o->backend)->plan_load(j) < 0)
			goto out;
	}
	o->job_path = xstrdup(job);
	o->side[0].kernel = xstrdup(k0);
	o->side[1].kernel = xstrdup(k1);
	o->seed = (uint64_t)seed;
	o->out_dir = xstrdup(dir);
	o->mix_hosts = json_is_true(json_object_get(j, "mix_hosts"));
	o->profile = json_is_true(json_object_get(j, "profile"));
	if (strings_load(s0, o->side[0].sets, &o->side[0].nset, AB_MAX_SETS) < 0 ||
	    strings_load(s1, o->side[1].sets, &o->side[1].nset, AB_MAX_SETS) < 0 ||
	    strings_load(sets, o->sets, &o->nset, AB_MAX_SETS) < 0 ||
	    (json_object_get(j, "hosts") &&
	     strings_load(json_object_get(j, "hosts"), o->hosts, &o->nhosts, AB_MAX_HOSTS) < 0)) {
		error("%s: bad sets", path);
		goto out;
	}
	ret = 0;
out:
	json_decref(j);
	free(path);
	return ret;
}

static void option(struct text *t, const char *name, const char *value)
{
	text_add(t, " %s", name);
	text_shell_word(t, value);
}

char *ab_command(const struct ab_opts *o)
{
	const char *root = kpair_root(), *job = o->job_path;
	struct text t = { 0 };
	int i, s;

	if (!strncmp(job, root, strlen(root)) && job[strlen(root)] == '/')
		job += strlen(root) + 1;	/* from the repository's top, as the README runs it */
	text_add(&t, "harness/kpair %s", o->calibrate ? "calibrate" : "ab");
	text_shell_word(&t, job);
	if (o->calibrate) {
		option(&t, "--kernel", o->side[0].kernel);
	} else {
		option(&t, "--stock", o->side[0].kernel);
		option(&t, "--patched", o->side[1].kernel);
	}
	for (i = 0; i < o->nset; i++)
		option(&t, "--set", o->sets[i]);
	for (s = 0; s < 2; s++)
		for (i = 0; i < o->side[s].nset; i++)
			option(&t, s ? "--patched-set" : "--stock-set", o->side[s].sets[i]);
	text_add(&t, " -n %d", o->runs);
	if (o->until_ci > 0)
		text_add(&t, " --until-ci %g --max-runs %d", o->until_ci, o->max_runs);
	text_add(&t, " --seed %llu", (unsigned long long)o->seed);
	if (o->threshold != 0.02)
		text_add(&t, " --threshold %g", o->threshold * 100);
	if (o->metric)
		text_add(&t, " --metric %s", o->metric);
	if (o->retries != 1)
		text_add(&t, " --retries %d", o->retries);
	if (o->warmup != 1)
		text_add(&t, " --warmup %d", o->warmup);
	if (o->jobs > 1)
		text_add(&t, " -j %d", o->jobs);
	if (o->backend) {
		const struct backend *b = backend_find(o->backend);

		option(&t, "--backend", o->backend);
		if (b && b->command)	/* its own options, so that the line reruns it */
			b->command(&t);
	}
	if (o->uri)
		option(&t, "--uri", o->uri);
	for (i = 0; i < o->nhosts; i++)
		text_add(&t, "%s%s", i ? "," : " --hosts ", o->hosts[i]);
	if (o->mix_hosts)
		text_add(&t, " --mix-hosts");
	if (o->profile)
		text_add(&t, " --profile");
	return t.s;
}
