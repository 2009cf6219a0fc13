/*
 * lava-serve.c - --lava-serve ADDR:PORT: kpair serves each run's images (the
 * kernel, the initramfs, the scratch disk) over HTTP while the run's LAVA job
 * needs them, for a lab whose workers do not see kpair's files. libmicrohttpd
 * answers in its own thread of the process that called lava_preflight (ab's
 * -j children register their files there too, through the directory below).
 *
 * What is served: only files a run registered, each under a fresh 128-bit
 * random token, /<token>/<label>. A run's files are a directory
 * <root>/<token> of symlinks to them (an unlinked image as /proc/<pid>/fd/N),
 * in a private 0700 directory made at start and removed at exit; the token
 * directory goes when the job's log has been read. Anything else is a 404.
 *
 * A scratch disk goes gzip-compressed as it is read (zlib, level 1; the job
 * says `compression: gz` and the worker gunzips it): a freshly made file
 * system is mostly zeros, and a remote lab should not fetch them whole.
 */
#include <errno.h>
#include <fcntl.h>
#include <microhttpd.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "lava.h"
#include "util.h"

static struct MHD_Daemon *serve_daemon;
static char *serve_root;	/* <token>/<label> symlinks */
static char *serve_base;	/* the URL the worker fetches from, ends in '/' */
static pid_t serve_owner;	/* the process whose exit removes serve_root */

static int hex_ok(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strchr("0123456789abcdef", s[i]))
			return 0;
	return 1;
}

/* "/<32 hex>/<label>[.gz]": the label a short lowercase name, nothing else */
int lava_serve_path_ok(const char *url)
{
	const char *label = url + 1 + LAVA_TOKEN_LEN + 1;
	size_t n;

	if (strlen(url) < 1 + LAVA_TOKEN_LEN + 2 || url[0] != '/' || url[1 + LAVA_TOKEN_LEN] != '/')
		return 0;
	if (!hex_ok(url + 1, LAVA_TOKEN_LEN))
		return 0;
	n = strspn(label, "abcdefghijklmnopqrstuvwxyz0123456789");
	return n && n <= 16 && (!label[n] || !strcmp(label + n, ".gz"));
}

/* a file gzip-compressed as MHD asks for more */
struct gz_stream {
	int fd, eof, end;
	z_stream z;
	unsigned char in[1 << 17];
};

static ssize_t gz_read(void *cls, uint64_t pos, char *buf, size_t max)
{
	struct gz_stream *g = cls;
	ssize_t n;
	int rc;

	(void)pos;
	if (g->end)
		return MHD_CONTENT_READER_END_OF_STREAM;
	g->z.next_out = (Bytef *)buf;
	g->z.avail_out = (uInt)max;
	while (g->z.avail_out == max && !g->end) {	/* 0 bytes would mean "ask again" */
		if (!g->z.avail_in && !g->eof) {
			n = read(g->fd, g->in, sizeof(g->in));
			if (n < 0)
				return MHD_CONTENT_READER_END_WITH_ERROR;
			g->eof = n == 0;
			g->z.next_in = g->in;
			g->z.avail_in = (uInt)n;
		}
		rc = deflate(&g->z, g->eof ? Z_FINISH : Z_NO_FLUSH);
		if (rc == Z_STREAM_END)
			g->end = 1;
		else if (rc != Z_OK && rc != Z_BUF_ERROR)
			return MHD_CONTENT_READER_END_WITH_ERROR;
	}
	if (g->z.avail_out == max)
		return MHD_CONTENT_READER_END_OF_STREAM;
	return (ssize_t)(max - g->z.avail_out);
}

static void gz_free(void *cls)
{
	struct gz_stream *g = cls;

	deflateEnd(&g->z);
	close(g->fd);
	free(g);
}

/* a response streaming @fd (which it owns) gzip-compressed, or NULL */
static struct MHD_Response *gz_response(int fd)
{
	struct gz_stream *g = calloc(1, sizeof(*g));
	struct MHD_Response *r;

	if (!g || deflateInit2(&g->z, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
		free(g);
		close(fd);
		return NULL;
	}
	g->fd = fd;
	r = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 1 << 16, gz_read, g, gz_free);
	if (!r)
		gz_free(g);
	return r;
}

static enum MHD_Result reply_text(struct MHD_Connection *c, unsigned code, const char *text)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(strlen(text), (void *)text,
								 MHD_RESPMEM_PERSISTENT);
	enum MHD_Result ret;

	if (!r)
		return MHD_NO;
	ret = MHD_queue_response(c, code, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result answer(void *cls, struct MHD_Connection *c, const char *url,
			      const char *method, const char *version, const char *upload,
			      size_t *upload_size, void **state)
{
	struct MHD_Response *r;
	enum MHD_Result ret;
	struct stat st;
	char *path;
	int fd, gz;

	(void)cls, (void)version, (void)upload, (void)upload_size, (void)state;
	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD))
		return reply_text(c, MHD_HTTP_METHOD_NOT_ALLOWED, "GET or HEAD\n");
	if (!lava_serve_path_ok(url))
		return reply_text(c, MHD_HTTP_NOT_FOUND, "not served here\n");
	path = xasprintf("%s%s", serve_root, url);
	gz = !strcmp(path + strlen(path) - 3, ".gz");
	if (gz)
		path[strlen(path) - 3] = '\0';	/* the link is the label: the file as it is */
	fd = open(path, O_RDONLY | O_CLOEXEC);
	free(path);
	if (fd < 0)
		return reply_text(c, MHD_HTTP_NOT_FOUND, "not served (any more)\n");
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return reply_text(c, MHD_HTTP_NOT_FOUND, "not a file\n");
	}
	if (gz)
		r = gz_response(fd);	/* owns fd */
	else if (!(r = MHD_create_response_from_fd64((uint64_t)st.st_size, fd)))	/* owns fd */
		close(fd);
	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "application/octet-stream");
	ret = MHD_queue_response(c, MHD_HTTP_OK, r);
	MHD_destroy_response(r);
	return ret;
}

static void serve_cleanup(void)
{
	if (getpid() != serve_owner)
		return;
	if (serve_daemon)
		MHD_stop_daemon(serve_daemon);
	serve_daemon = NULL;
	if (serve_root)
		rm_rf(serve_root);
}

static int wildcard(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
		return ((const struct sockaddr_in *)sa)->sin_addr.s_addr == htonl(INADDR_ANY);
	return !memcmp(&((const struct sockaddr_in6 *)sa)->sin6_addr, &in6addr_any,
		       sizeof(struct in6_addr));
}

/* "ADDR:PORT" or "[V6ADDR]:PORT" into its parts (@host caller frees) */
static int split_addr(const char *arg, char **host, const char **port)
{
	const char *colon = strrchr(arg, ':');

	if (!colon || colon == arg || !colon[1] || strspn(colon + 1, "0123456789") !=
	    strlen(colon + 1))
		return error("--lava-serve '%s': ADDR:PORT, e.g. 192.0.2.7:8010", arg);
	if (arg[0] == '[' && colon[-1] == ']')
		*host = xasprintf("%.*s", (int)(colon - arg - 2), arg + 1);
	else
		*host = xasprintf("%.*s", (int)(colon - arg), arg);
	*port = colon + 1;
	return 0;
}

int lava_serve_start(void)
{
	struct addrinfo hints = { .ai_flags = AI_PASSIVE | AI_NUMERICSERV,
				  .ai_socktype = SOCK_STREAM }, *ai = NULL;
	const union MHD_DaemonInfo *di;
	const char *port = NULL, *tmp = getenv("TMPDIR");
	char *host = NULL;
	unsigned flags = MHD_USE_AUTO_INTERNAL_THREAD;
	int rc, ret = -1;

	if (!lava_conf.serve || serve_daemon)
		return 0;
	if (split_addr(lava_conf.serve, &host, &port) < 0)
		return -1;
	rc = getaddrinfo(host, port, &hints, &ai);
	if (rc) {
		error("--lava-serve '%s': %s", lava_conf.serve, gai_strerror(rc));
		goto out;
	}
	if (wildcard(ai->ai_addr) && !lava_conf.serve_url) {
		error("--lava-serve '%s' listens on every address: give --lava-serve-url, the URL "
		      "the lab's workers reach this host at", lava_conf.serve);
		goto out;
	}
	if (ai->ai_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	serve_root = xasprintf("%s/kpair-serve-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(serve_root)) {
		error("cannot make a directory '%s': %s", serve_root, strerror(errno));
		goto out;
	}
	serve_owner = getpid();
	atexit(serve_cleanup);
	serve_daemon = MHD_start_daemon(flags, 0, NULL, NULL, answer, NULL,
					MHD_OPTION_SOCK_ADDR, ai->ai_addr,
					MHD_OPTION_CONNECTION_TIMEOUT, 120u, MHD_OPTION_END);
	if (!serve_daemon) {
		error("--lava-serve '%s': cannot listen there (in use, or not this host's address)",
		      lava_conf.serve);
		goto out;
	}
	di = MHD_get_daemon_info(serve_daemon, MHD_DAEMON_INFO_BIND_PORT);
	if (lava_conf.serve_url) {
		const char *u = lava_conf.serve_url;

		serve_base = xasprintf("%s%s", u, u[strlen(u) - 1] == '/' ? "" : "/");
	} else {
		int v6 = ai->ai_family == AF_INET6;

		serve_base = xasprintf("http://%s%s%s:%u/", v6 ? "[" : "", host, v6 ? "]" : "",
				       di ? (unsigned)di->port : 0u);
	}
	info("lava: serving the runs' images at %s", serve_base);
	ret = 0;
out:
	if (ai)
		freeaddrinfo(ai);
	free(host);
	return ret;
}

int lava_serve_open(char tok[LAVA_TOKEN_LEN + 1])
{
	unsigned char r[LAVA_TOKEN_LEN / 2];
	char *dir;
	size_t i;

	if (getrandom(r, sizeof(r), 0) != (ssize_t)sizeof(r))
		return error("getrandom: %s", strerror(errno));
	for (i = 0; i < sizeof(r); i++)
		snprintf(tok + 2 * i, 3, "%02x", r[i]);
	dir = xasprintf("%s/%s", serve_root, tok);
	if (mkdir(dir, 0700) < 0) {
		error("cannot make '%s': %s", dir, strerror(errno));
		free(dir);
		return -1;
	}
	free(dir);
	return 0;
}

char *lava_serve_add(const char *tok, const char *label, const char *path)
{
	char *link = xasprintf("%s/%s/%s", serve_root, tok, label), *abs = NULL;

	if (path[0] != '/') {
		char *cwd = getcwd(NULL, 0);

		abs = xasprintf("%s/%s", cwd ? cwd : ".", path);
		free(cwd);
	}
	if (symlink(abs ? abs : path, link) < 0) {
		error("cannot link '%s': %s", link, strerror(errno));
		free(link);
		free(abs);
		return NULL;
	}
	free(link);
	free(abs);
	return xasprintf("%s%s/%s", serve_base, tok, label);
}

void lava_serve_close(const char *tok)
{
	char *dir;

	if (!serve_root || !*tok)
		return;
	dir = xasprintf("%s/%s", serve_root, tok);
	rm_rf(dir);
	free(dir);
}

int lava_serving(void)
{
	return serve_root != NULL;
}
