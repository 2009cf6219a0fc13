/*
 * lava.c - the lava backend (see lava.h): the REST client (libcurl; the token
 * in an Authorization header, never on a command line or in a result), the
 * job definition made from the run's vm_spec, the wait with a progress line,
 * and the job log read back into the channel.
 */
#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backends/vm.h"
#include "lava.h"
#include "util.h"


struct lava_conf lava_conf = { .device_type = "qemu", .queue_timeout = 600, .runs_per_job = LAVA_RUNS_PER_JOB };
static char *lava_token;	/* read once from lava_conf.token_file */

const struct backend_opt lava_opts[] = {
	[LAVA_OPT_URL] = { "lava-url", "URL" },
	[LAVA_OPT_TOKEN_FILE] = { "lava-token-file", "F" },
	[LAVA_OPT_DEVICE_TYPE] = { "lava-device-type", "TYPE" },
	[LAVA_OPT_INSECURE] = { "lava-insecure", NULL },
	[LAVA_OPT_QUEUE_TIMEOUT] = { "lava-queue-timeout", "S" },
	[LAVA_OPT_SERVE] = { "lava-serve", "ADDR:PORT" },
	[LAVA_OPT_SERVE_URL] = { "lava-serve-url", "URL" },
	[LAVA_OPT_RUNS_PER_JOB] = { "lava-runs-per-job", "N" },
	{ NULL, NULL },
};

const char lava_usage[] =
	"        [--backend lava --lava-url URL --lava-token-file F [--lava-device-type qemu]\n"
	"         [--lava-queue-timeout S] [--lava-insecure]    runs as jobs on a LAVA lab\n"
	"         [--lava-serve ADDR:PORT [--lava-serve-url URL]]   images over HTTP from kpair\n"
	"         [--lava-runs-per-job N]]   an A/B's runs N a job, each its own boot (10)\n";

int lava_option(int opt, const char *arg)
{
	char *end;

	switch (opt) {
	case LAVA_OPT_URL:
		if (strncmp(arg, "http://", 7) && strncmp(arg, "https://", 8))
			return error("--lava-url '%s': an http:// or https:// URL", arg);
		lava_conf.url = arg;
		return 0;
	case LAVA_OPT_TOKEN_FILE: lava_conf.token_file = arg; return 0;
	case LAVA_OPT_DEVICE_TYPE:
		if (!name_ok(arg))
			return error("--lava-device-type '%s': not a device type name", arg);
		lava_conf.device_type = arg;
		return 0;
	case LAVA_OPT_INSECURE: lava_conf.insecure = 1; return 0;
	case LAVA_OPT_QUEUE_TIMEOUT:
		lava_conf.queue_timeout = strtod(arg, &end);
		if (*end || end == arg || lava_conf.queue_timeout <= 0)
			return error("--lava-queue-timeout '%s': seconds, more than 0", arg);
		return 0;
	case LAVA_OPT_SERVE: lava_conf.serve = arg; return 0;
	case LAVA_OPT_SERVE_URL:
		if (strncmp(arg, "http://", 7) && strncmp(arg, "https://", 8))
			return error("--lava-serve-url '%s': an http:// or https:// URL", arg);
		lava_conf.serve_url = arg;
		return 0;
	case LAVA_OPT_RUNS_PER_JOB: {
		long n = strtol(arg, &end, 10);

		if (*end || end == arg || n < 1 || n > 64)
			return error("--lava-runs-per-job '%s': a number of runs, 1 to 64", arg);
		lava_conf.runs_per_job = (int)n;
		return 0;
	}
	}
	return error("unknown lava option %d", opt);
}

/* the token: the file's first line, the file a regular one that only its owner can read */
static int token_read(void)
{
	struct stat st;
	char *buf = NULL;
	size_t len;
	int fd;

	if (lava_token)
		return 0;
	if (!lava_conf.token_file)
		return error("--backend lava needs --lava-token-file");
	fd = open(lava_conf.token_file, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return error("cannot open token file '%s': %s", lava_conf.token_file, strerror(errno));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return error("token file '%s' is not a regular file", lava_conf.token_file);
	}
	close(fd);
	if (st.st_mode & 077)
		return error("token file '%s' has mode %04o: others can read it (chmod 600 it)",
			     lava_conf.token_file, (unsigned)(st.st_mode & 07777));
	if (read_file(lava_conf.token_file, &buf, &len) < 0)
		return -1;
	buf[strcspn(buf, "\r\n")] = '\0';
	if (!*buf || strpbrk(buf, " \t")) {
		free(buf);
		return error("token file '%s' holds no token on its first line", lava_conf.token_file);
	}
	lava_token = buf;
	return 0;
}

static size_t body_cb(char *p, size_t size, size_t n, void *user)
{
	text_add(user, "%.*s", (int)(size * n), p);
	return size * n;
}

/*
 * One request to @path under the API (api/v0.2/...): @body JSON for a POST,
 * NULL for a GET. The answer's text in *out (caller frees out->s), its HTTP
 * code returned; -1 with an error when no answer came at all.
 */
long lava_http(const char *path, const char *body, struct text *out)
{
	char *url, *auth, errbuf[CURL_ERROR_SIZE] = "";
	struct curl_slist *hdr = NULL;
	long code = -1;
	CURLcode rc;
	CURL *c;

	if (!lava_token || !lava_conf.url)	/* lava_preflight() comes first */
		return error("lava: no lab URL or token (no --lava-url, --lava-token-file)");
	c = curl_easy_init();
	if (!c)
		return error("libcurl: cannot make a handle");
	url = xasprintf("%s%sapi/v0.2/%s", lava_conf.url,
			lava_conf.url[strlen(lava_conf.url) - 1] == '/' ? "" : "/", path);
	auth = xasprintf("Authorization: Token %s", lava_token);
	hdr = curl_slist_append(hdr, auth);
	hdr = curl_slist_append(hdr, "Accept: application/json");
	if (body) {
		hdr = curl_slist_append(hdr, "Content-Type: application/json");
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
	}
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdr);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, body_cb);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, out);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, 10L);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, 120L);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, lava_conf.insecure ? 0L : 1L);
	curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, lava_conf.insecure ? 0L : 2L);
	rc = curl_easy_perform(c);
	if (rc != CURLE_OK)
		error("lava: %s: %s", url, *errbuf ? errbuf : curl_easy_strerror(rc));
	else
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
	if (!out->s)
		text_add(out, "%s", "");
	curl_slist_free_all(hdr);
	curl_easy_cleanup(c);
	/* the header held the token: wipe it before it goes back to the heap */
	memset(auth, 0, strlen(auth));
	free(auth);
	free(url);
	return code;
}

/* GET @path as a JSON object (new reference), or NULL with an error naming @what */
json_t *lava_get(const char *path, const char *what, long *codep)
{
	struct text t = { 0 };
	json_error_t je;
	json_t *j = NULL;
	long code = lava_http(path, NULL, &t);

	if (codep)
		*codep = code;
	if (code < 0)
		goto out;
	if (code == 401 || code == 403) {
		error("lava: %s: the server refuses the token of '%s' (HTTP %ld)", lava_conf.url,
		      lava_conf.token_file, code);
		goto out;
	}
	if (code != 200) {
		error("lava: %s: %s: HTTP %ld: %.200s", lava_conf.url, what, code, t.s);
		goto out;
	}
	j = json_loads(t.s, 0, &je);
	if (!json_is_object(j)) {
		error("lava: %s: %s: not a JSON object: %s", lava_conf.url, what, je.text);
		json_decref(j);
		j = NULL;
	}
out:
	free(t.s);
	return j;
}

int lava_preflight(void)
{
	char *path;
	json_t *j;
	long code;

	if (!lava_conf.url)
		return error("--backend lava needs --lava-url");
	if (lava_conf.serve_url && !lava_conf.serve)
		return error("--lava-serve-url needs --lava-serve ADDR:PORT");
	if (token_read() < 0)
		return -1;
	if (curl_global_init(CURL_GLOBAL_DEFAULT))
		return error("libcurl: cannot initialise");
	/* an authenticated endpoint: a bad token is told here, not after a device type lookup */
	j = lava_get("jobs/?limit=1", "list jobs", &code);
	if (!j)
		return code < 0 ? error("lava: the server at '%s' cannot be reached", lava_conf.url)
				: -1;
	json_decref(j);
	path = xasprintf("devicetypes/%s/", lava_conf.device_type);
	j = lava_get(path, "device type", &code);
	free(path);
	if (!j)
		return code == 404 ? error("lava: %s has no device type '%s'", lava_conf.url,
					   lava_conf.device_type) : -1;
	json_decref(j);
	return lava_serve_start();
}

void lava_conf_save(json_t *plan)
{
	json_t *l = json_pack("{s:s?, s:s?, s:s, s:b, s:f, s:s?, s:s?, s:i}", "url", lava_conf.url,
			      "token_file", lava_conf.token_file, "device_type",
			      lava_conf.device_type, "insecure", lava_conf.insecure,
			      "queue_timeout", lava_conf.queue_timeout, "serve", lava_conf.serve,
			      "serve_url", lava_conf.serve_url, "runs_per_job", lava_conf.runs_per_job);

	json_object_set_new(plan, "lava", l);
}

/* the lab's options for a rerun line: the token's file, never the token */
void lava_command(struct text *t)
{
	static const struct { int opt; const char *const *value; } words[] = {
		{ LAVA_OPT_URL, &lava_conf.url }, { LAVA_OPT_TOKEN_FILE, &lava_conf.token_file },
		{ LAVA_OPT_SERVE, &lava_conf.serve }, { LAVA_OPT_SERVE_URL, &lava_conf.serve_url },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(words); i++)
		if (*words[i].value) {
			text_add(t, " --%s", lava_opts[words[i].opt].name);
			text_shell_word(t, *words[i].value);
		}
	if (strcmp(lava_conf.device_type, "qemu")) {
		text_add(t, " --%s", lava_opts[LAVA_OPT_DEVICE_TYPE].name);
		text_shell_word(t, lava_conf.device_type);
	}
	if (lava_conf.queue_timeout != 600)
		text_add(t, " --%s %g", lava_opts[LAVA_OPT_QUEUE_TIMEOUT].name, lava_conf.queue_timeout);
	if (lava_conf.insecure)
		text_add(t, " --%s", lava_opts[LAVA_OPT_INSECURE].name);
	if (lava_conf.runs_per_job != LAVA_RUNS_PER_JOB)
		text_add(t, " --%s %d", lava_opts[LAVA_OPT_RUNS_PER_JOB].name, lava_conf.runs_per_job);
}

int lava_plan_load(json_t *plan)
{
	lava_conf_load(plan);
	return lava_preflight();	/* resume: the same lab, checked again */
}

void lava_conf_load(json_t *plan)
{
	json_t *l = json_object_get(plan, "lava");

	if (!json_is_object(l))
		return;
	if (!lava_conf.url && *jget_str(l, "url"))
		lava_conf.url = xstrdup(jget_str(l, "url"));
	if (!lava_conf.token_file && *jget_str(l, "token_file"))
		lava_conf.token_file = xstrdup(jget_str(l, "token_file"));
	if (*jget_str(l, "device_type"))
		lava_conf.device_type = xstrdup(jget_str(l, "device_type"));
	if (json_is_true(json_object_get(l, "insecure")))
		lava_conf.insecure = 1;
	if (!lava_conf.serve && *jget_str(l, "serve"))
		lava_conf.serve = xstrdup(jget_str(l, "serve"));
	if (!lava_conf.serve_url && *jget_str(l, "serve_url"))
		lava_conf.serve_url = xstrdup(jget_str(l, "serve_url"));
	if (json_is_integer(json_object_get(l, "runs_per_job")))
		lava_conf.runs_per_job = (int)json_integer_value(json_object_get(l, "runs_per_job"));
	if (json_is_number(json_object_get(l, "queue_timeout")))
		lava_conf.queue_timeout = json_number_value(json_object_get(l, "queue_timeout"));
}
