/*
 * t-channel.c - unit tests of the results channel's record parser
 * (harness/channel.c): splitting, the strict schema, sequencing, limits, the
 * guest's own emitter (guest/record.c) against it, and a deterministic fuzz run.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/utsname.h>

#include "unit.h"

#include "channel.h"
#include "record.h"
#include "result.h"

/* what the callback saw */
#define SEEN_MAX 64

struct seen {
	int n;
	int stop_at;		/* callback number that returns -1; -1: none */
	enum rec_type type[SEEN_MAX];
	json_int_t seq[SEEN_MAX];
	char *line[SEEN_MAX];
	json_t *rec[SEEN_MAX];
};

static void seen_init(struct seen *s)
{
	memset(s, 0, sizeof(*s));
	s->stop_at = -1;
}

static void seen_release(struct seen *s)
{
	int i;

	for (i = 0; i < s->n && i < SEEN_MAX; i++) {
		free(s->line[i]);
		json_decref(s->rec[i]);
	}
	seen_init(s);
}

static int seen_cb(void *user, enum rec_type type, json_t *rec, const char *line, size_t len)
{
	struct seen *s = user;
	int i = s->n++;

	assert_non_null(rec);
	assert_true(len > 0);
	assert_true(line[len - 1] != '\n' && line[len - 1] != '\r');
	if (i < SEEN_MAX) {
		s->type[i] = type;
		s->seq[i] = json_integer_value(json_object_get(rec, "seq"));
		s->line[i] = strndup(line, len);
		s->rec[i] = json_incref(rec);
	}
	return i == s->stop_at ? -1 : 0;
}

/* feed @len bytes in chunks of @chunk (0: all at once); -1 at the first failure */
static int feed_chunked(struct channel *ch, const char *data, size_t len, size_t chunk)
{
	size_t off = 0;

	if (!chunk)
		chunk = len ? len : 1;
	while (off < len) {
		size_t k = len - off < chunk ? len - off : chunk;

		if (channel_feed(ch, data + off, k) < 0)
			return -1;
		off += k;
	}
	return 0;
}

/* feed then end; -1 if either fails */
static int feed_all(struct channel *ch, const char *data, size_t len, size_t chunk)
{
	if (feed_chunked(ch, data, len, chunk) < 0)
		return -1;
	return channel_end(ch);
}

/* the valid stream: every record type, one record a line */
static const char *const valid_lines[] = {
	"{\"type\":\"hello\",\"seq\":0,\"agent\":\"kpair-agent 1\",\"workload\":\"smoke\","
	"\"release\":\"6.1.0-57-amd64\",\"version\":\"#1 SMP PREEMPT_DYNAMIC Debian 6.1.158-1\","
	"\"machine\":\"x86_64\",\"page_size\":4096,\"uptime\":1.234567}",
	"{\"type\":\"sample\",\"seq\":1,\"metric\":\"write_s\",\"unit\":\"s\",\"value\":0.25}",
	"{\"type\":\"sample\",\"seq\":2,\"metric\":\"write_bytes\",\"unit\":\"B\","
	"\"value\":67108864}",
	"{\"type\":\"error\",\"seq\":3,\"stage\":\"smoke\",\"errno\":5,"
	"\"message\":\"read at 0: Input/output error\"}",
	"{\"type\":\"counters\",\"seq\":4,\"snapshot_s\":0.0042,\"values\":{\"vmstat.pgfault\":518,"
	"\"meminfo.MemFree\":-119796,\"irq.LOC\":116}}",
	"{\"type\":\"done\",\"seq\":5,\"samples\":2,\"uptime\":3.5,\"workload_s\":2.25}",
};

static const enum rec_type valid_types[] = {
	REC_HELLO, REC_SAMPLE, REC_SAMPLE, REC_ERROR, REC_COUNTERS, REC_DONE,
};

#define NVALID ((int)(sizeof(valid_lines) / sizeof(valid_lines[0])))

/* the valid stream's lines joined with @eol; caller frees */
static char *valid_stream(const char *eol, size_t *len)
{
	size_t n = 0, i;
	char *s;

	for (i = 0; i < NVALID; i++)
		n += strlen(valid_lines[i]) + strlen(eol);
	s = malloc(n + 1);
	assert_non_null(s);
	*s = '\0';
	for (i = 0; i < NVALID; i++) {
		strcat(s, valid_lines[i]);
		strcat(s, eol);
	}
	*len = n;
	return s;
}

static void check_valid_seen(const struct channel *ch, const struct seen *s)
{
	int i;

	assert_int_equal(s->n, NVALID);
	for (i = 0; i < NVALID; i++) {
		assert_int_equal(s->type[i], valid_types[i]);
		assert_int_equal(s->seq[i], i);
		assert_string_equal(s->line[i], valid_lines[i]);
	}
	assert_true(ch->got_hello);
	assert_true(ch->got_done);
	assert_false(ch->failed);
	assert_string_equal(ch->why, "");
	assert_int_equal(ch->samples, 2);
	assert_int_equal(ch->next_seq, NVALID);
}

/* xorshift64*: the same numbers on every run and machine */
static uint64_t rng_state;

static void rng_seed(uint64_t seed)
{
	rng_state = seed ? seed : 1;
}

static uint64_t rng(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dULL;
}

static size_t rng_below(size_t n)
{
	return n ? (size_t)(rng() % n) : 0;
}

static void test_valid_stream_chunked(void **state)
{
	static const size_t chunks[] = { 1, 2, 3, 5, 7, 13, 64, 100, 4096, 0 };
	struct channel ch;
	struct seen s;
	size_t len, i;
	char *text = valid_stream("\n", &len);

	(void)state;
	for (i = 0; i < sizeof(chunks) / sizeof(chunks[0]); i++) {
		seen_init(&s);
		channel_init(&ch, seen_cb, &s);
		assert_int_equal(feed_all(&ch, text, len, chunks[i]), 0);
		check_valid_seen(&ch, &s);
		seen_release(&s);
	}
	/* arbitrary chunk boundaries, including empty feeds */
	rng_seed(42);
	for (i = 0; i < 200; i++) {
		size_t off = 0;

		seen_init(&s);
		channel_init(&ch, seen_cb, &s);
		while (off < len) {
			size_t k = rng_below(len - off + 1);

			if (rng_below(8) == 0)
				k = 0;
			assert_int_equal(channel_feed(&ch, text + off, k), 0);
			off += k;
		}
		assert_int_equal(channel_end(&ch), 0);
		check_valid_seen(&ch, &s);
		seen_release(&s);
	}
	free(text);
}

static void test_valid_stream_crlf(void **state)
{
	struct channel ch;
	struct seen s;
	size_t len;
	char *text = valid_stream("\r\n", &len);

	(void)state;
	seen_init(&s);
	channel_init(&ch, seen_cb, &s);
	assert_int_equal(feed_all(&ch, text, len, 1), 0);
	check_valid_seen(&ch, &s);	/* lines are handed on without the \r */
	seen_release(&s);
	free(text);
}

static void test_no_callback(void **state)
{
	struct channel ch;
	size_t len;
	char *text = valid_stream("\n", &len);

	(void)state;
	channel_init(&ch, NULL, NULL);
	assert_int_equal(feed_all(&ch, text, len, 0), 0);
	assert_true(ch.got_done);
	free(text);
}

static void test_empty_stream(void **state)
{
	struct channel ch;

	(void)state;
	channel_init(&ch, NULL, NULL);
	assert_int_equal(channel_feed(&ch, "", 0), 0);
	assert_int_equal(channel_end(&ch), 0);
	assert_false(ch.got_hello);
	assert_false(ch.got_done);
	assert_false(ch.failed);
}

/* short records for building streams */
#define HELLO(seq)								\
	"{\"type\":\"hello\",\"seq\":" #seq ",\"agent\":\"a\",\"workload\":\"smoke\","	\
	"\"release\":\"r\",\"version\":\"v\",\"machine\":\"m\",\"page_size\":4096,"	\
	"\"uptime\":1.5}\n"
#define SAMPLE(seq) \
	"{\"type\":\"sample\",\"seq\":" #seq ",\"metric\":\"m\",\"unit\":\"s\",\"value\":1}\n"
#define ERRREC(seq) \
	"{\"type\":\"error\",\"seq\":" #seq ",\"stage\":\"boot\",\"errno\":2,\"message\":\"x\"}\n"
#define DONE(seq, n) \
	"{\"type\":\"done\",\"seq\":" #seq ",\"samples\":" #n ",\"uptime\":2,\"workload_s\":1}\n"
/* a record with @fields after its fixed ones; SAMPLE_F and DONE_F come after a hello */
#define HELLO_F(fields)								\
	"{\"type\":\"hello\",\"seq\":0,\"agent\":\"a\",\"workload\":\"smoke\","	\
	"\"release\":\"r\"," fields "}\n"
#define SAMPLE_F(fields) HELLO(0) "{\"type\":\"sample\",\"seq\":1," fields "}\n"
#define DONE_F(fields) HELLO(0) "{\"type\":\"done\",\"seq\":1," fields "}\n"
#define ERROR_F(fields) "{\"type\":\"error\",\"seq\":0," fields "}\n"

static void test_error_before_hello(void **state)
{
	static const char text[] = ERRREC(0) HELLO(1) SAMPLE(2) ERRREC(3) DONE(4, 1);
	struct channel ch;
	struct seen s;

	(void)state;
	seen_init(&s);
	channel_init(&ch, seen_cb, &s);
	assert_int_equal(feed_all(&ch, text, sizeof(text) - 1, 0), 0);
	assert_int_equal(s.n, 5);
	assert_int_equal(s.type[0], REC_ERROR);
	assert_int_equal(s.type[1], REC_HELLO);
	assert_int_equal(s.type[4], REC_DONE);
	assert_true(ch.got_done);
	seen_release(&s);
}

static void test_whitespace_and_key_order(void **state)
{
	static const char text[] =
		"{ \"seq\" : 0 , \"type\" : \"hello\", \"uptime\": 0, \"page_size\": 65536,"
		" \"machine\":\"aarch64\", \"version\":\"\", \"release\":\"\","
		" \"workload\":\"smoke\", \"agent\":\"a\" }\n"
		"\t{\"value\":-1.5e-3,\"unit\":\"\",\"metric\":\"m\",\"seq\":1,"
		"\"type\":\"sample\"}\n"
		"{\"workload_s\":0,\"uptime\":1e3,\"samples\":1,\"seq\":2,\"type\":\"done\"}\n";
	struct channel ch;

	(void)state;
	channel_init(&ch, NULL, NULL);
	assert_int_equal(feed_all(&ch, text, sizeof(text) - 1, 0), 0);
	assert_true(ch.got_done);
}

static void test_truncated_stream(void **state)
{
	struct channel ch;
	struct seen s;
	size_t len;
	char *text = valid_stream("\n", &len);

	(void)state;
	seen_init(&s);
	channel_init(&ch, seen_cb, &s);
	/* everything but the last newline: the done record never completes */
	assert_int_equal(feed_chunked(&ch, text, len - 1, 7), 0);
	assert_int_equal(s.n, NVALID - 1);
	assert_int_equal(channel_end(&ch), -1);
	assert_true(ch.failed);
	assert_false(ch.got_done);
	assert_contains(ch.why, "stream ends inside record 5");
	assert_contains(ch.why, "no newline");
	/* a second end keeps the first reason */
	assert_int_equal(channel_end(&ch), -1);
	assert_contains(ch.why, "stream ends inside record 5");
	seen_release(&s);

	/* a few bytes of a first record */
	channel_init(&ch, NULL, NULL);
	assert_int_equal(channel_feed(&ch, "{\"ty", 4), 0);
	assert_int_equal(channel_end(&ch), -1);
	assert_contains(ch.why, "stream ends inside record 0 (4 bytes");
	free(text);
}

/* a sample record of exactly @len bytes (padded with spaces), no newline */
static char *sample_of_len(size_t len)
{
	static const char head[] =
		"{\"type\":\"sample\",\"seq\":1,\"metric\":\"m\",\"unit\":\"s\",\"value\":1";
	char *s = malloc(len + 2);

	assert_non_null(s);
	assert_true(len > sizeof(head));
	memcpy(s, head, sizeof(head) - 1);
	memset(s + sizeof(head) - 1, ' ', len - sizeof(head));
	s[len - 1] = '}';
	s[len] = '\0';
	return s;
}

static void test_record_size_limit(void **state)
{
	struct channel ch;
	struct seen s;
	char why[256];
	enum rec_type type;
	json_t *rec;
	char *line;
	size_t n;

	(void)state;
	/* the guest's limit is the harness's limit */
	assert_int_equal(REC_MAX, CHANNEL_RECORD_MAX);

	/* CHANNEL_RECORD_MAX bytes with the newline: accepted */
	line = sample_of_len(CHANNEL_RECORD_MAX - 1);
	assert_int_equal(channel_check_record(line, strlen(line), &type, &rec, why, sizeof(why)),
			 0);
	assert_int_equal(type, REC_SAMPLE);
	json_decref(rec);
	seen_init(&s);
	channel_init(&ch, seen_cb, &s);
	assert_int_equal(channel_feed(&ch, HELLO(0), strlen(HELLO(0))), 0);
	assert_int_equal(channel_feed(&ch, line, strlen(line)), 0);
	assert_int_equal(channel_feed(&ch, "\n", 1), 0);
	assert_int_equal(s.n, 2);
	assert_int_equal(strlen(s.line[1]), CHANNEL_RECORD_MAX - 1);
	seen_release(&s);
	free(line);

	/* one byte more: rejected, by the splitter and by the checker alone */
	line = sample_of_len(CHANNEL_RECORD_MAX);
	why[0] = '\0';
	assert_int_equal(channel_check_record(line, strlen(line), &type, &rec, why, sizeof(why)),
			 -1);
	assert_null(rec);
	assert_contains(why, "record of 4096 bytes is over the 4096-byte limit");
	seen_init(&s);
	channel_init(&ch, seen_cb, &s);
	assert_int_equal(channel_feed(&ch, HELLO(0), strlen(HELLO(0))), 0);
	assert_int_equal(feed_all(&ch, line, strlen(line), 1), -1);
	assert_int_equal(s.n, 1);
	assert_contains(ch.why, "record 1 is over the 4096-byte limit");
	seen_release(&s);
	free(line);

	/* far over, in one feed: no overflow, the same reason */
	n = 1 << 20;
	line = malloc(n);
	assert_non_null(line);
	memset(line, 'x', n);
	channel_init(&ch, NULL, NULL);
	assert_int_equal(channel_feed(&ch, line, n), -1);
	assert_contains(ch.why, "record 0 is over the 4096-byte limit");
	free(line);
}

static void test_run_size_limit(void **state)
{
	struct channel ch;
	struct seen s;
	char *big;

	(void)state;
	seen_init(&s);
	channel_init(&ch, seen_cb, &s);
	assert_int_equal(channel_feed(&ch, HELLO(0), strlen(HELLO(0))), 0);
	big = calloc(1, CHANNEL_RUN_MAX);
	assert_non_null(big);
	assert_int_equal(channel_feed(&ch, big, CHANNEL_RUN_MAX), -1);
	assert_contains(ch.why, "guest sent more than 67108864 bytes");
	assert_int_equal(s.n, 1);
	free(big);
	seen_release(&s);
}

static void test_callback_stops(void **state)
{
	static const char text[] = HELLO(0) SAMPLE(1) SAMPLE(2) DONE(3, 2);
	struct channel ch;
	struct seen s;

	(void)state;
	seen_init(&s);
	s.stop_at = 1;
	channel_init(&ch, seen_cb, &s);
	assert_int_equal(channel_feed(&ch, text, sizeof(text) - 1), -1);
	assert_int_equal(s.n, 2);
	assert_true(ch.failed);
	assert_false(ch.got_done);
	assert_contains(ch.why, "record 1 could not be stored");
	assert_int_equal(channel_feed(&ch, DONE(3, 2), strlen(DONE(3, 2))), -1);
	assert_int_equal(channel_end(&ch), -1);
	assert_int_equal(s.n, 2);
	assert_contains(ch.why, "record 1 could not be stored");
	seen_release(&s);
}

static void test_failed_ignores_input(void **state)
{
	static const char good[] = HELLO(0) SAMPLE(1) DONE(2, 1);
	struct channel ch;
	struct seen s;
	char why[sizeof(ch.why)];

	(void)state;
	seen_init(&s);
	channel_init(&ch, seen_cb, &s);
	assert_int_equal(channel_feed(&ch, SAMPLE(0), strlen(SAMPLE(0))), -1);
	assert_contains(ch.why, "sample record before hello");
	memcpy(why, ch.why, sizeof(why));
	assert_int_equal(channel_feed(&ch, good, sizeof(good) - 1), -1);
	assert_int_equal(channel_feed(&ch, good, 1), -1);
	assert_int_equal(channel_feed(&ch, "", 0), -1);
	assert_int_equal(channel_end(&ch), -1);
	assert_int_equal(s.n, 0);
	assert_false(ch.got_hello);
	assert_false(ch.got_done);
	assert_string_equal(ch.why, why);
	seen_release(&s);
}

/* one bad stream: it must fail, with @why, after @delivered good records */
struct bad_case {
	const char *name;
	const char *text;
	size_t len;
	const char *why, *why2;
	int delivered;
};

#define BAD(name, text, why, delivered) { name, text, sizeof(text) - 1, why, NULL, delivered }
#define BAD2(name, text, why, why2, delivered) \
	{ name, text, sizeof(text) - 1, why, why2, delivered }

static const struct bad_case bad_cases[] = {
	BAD("bad JSON: unterminated", HELLO(0) "{\"type\":\"sample\",\"seq\":1\n",
	    "record 1: bad JSON", 1),
	BAD("bad JSON: trailing text",
	    ERROR_F("\"stage\":\"s\",\"errno\":1,\"message\":\"m\"} {"), "record 0: bad JSON", 0),
	BAD("bad JSON: bare number", "42\n", "record 0: bad JSON", 0),
	BAD("bad JSON: single quotes", "{'type':'hello','seq':0}\n", "bad JSON", 0),
	BAD("bad JSON: invalid UTF-8",
	    SAMPLE_F("\"metric\":\"\xff\",\"unit\":\"s\",\"value\":1"), "record 1: bad JSON", 1),
	BAD("bad JSON: integer overflow", "{\"type\":\"hello\",\"seq\":99999999999999999999}\n",
	    "bad JSON", 0),
	BAD("not an object", "[\"hello\",0]\n", "record 0: record without type and seq", 0),
	BAD("no type", "{\"seq\":0}\n", "record without type and seq", 0),
	BAD("no seq", "{\"type\":\"hello\"}\n", "record without type and seq", 0),
	BAD("seq is a string", "{\"type\":\"hello\",\"seq\":\"0\"}\n",
	    "record without type and seq", 0),
	BAD("seq is a real", HELLO(0)
	    "{\"type\":\"sample\",\"seq\":1.0,\"metric\":\"m\",\"unit\":\"s\",\"value\":1}\n",
	    "record without type and seq", 1),
	BAD("type is a number", "{\"type\":1,\"seq\":0}\n", "record without type and seq", 0),
	BAD("negative seq", "{\"type\":\"hello\",\"seq\":-1}\n", "record 0: negative seq", 0),
	BAD("unknown type", HELLO(0) "{\"type\":\"bogus\",\"seq\":1}\n",
	    "record 1: unknown record type 'bogus'", 1),
	BAD("type case matters", "{\"type\":\"Hello\",\"seq\":0}\n",
	    "unknown record type 'Hello'", 0),
	BAD2("extra key in hello",
	     HELLO_F("\"version\":\"v\",\"machine\":\"m\",\"page_size\":4096,\"uptime\":1.5,"
		     "\"extra\":1"), "record 0: hello record: ", "extra", 0),
	BAD2("extra key in sample",
	     SAMPLE_F("\"metric\":\"m\",\"unit\":\"s\",\"value\":1,\"host\":\"h\""),
	     "record 1: sample record: ", "host", 1),
	BAD2("extra key in error",
	     ERROR_F("\"stage\":\"s\",\"errno\":1,\"message\":\"m\",\"why\":null"),
	     "record 0: error record: ", "why", 0),
	BAD2("extra key in done",
	     DONE_F("\"samples\":0,\"uptime\":2,\"workload_s\":1,\"ok\":true"),
	     "record 1: done record: ", "ok", 1),
	BAD2("missing key in hello", HELLO_F("\"version\":\"v\",\"page_size\":4096,\"uptime\":1.5"),
	     "record 0: hello record: ", "machine", 0),
	BAD2("missing key in sample", SAMPLE_F("\"metric\":\"m\",\"value\":1"),
	     "record 1: sample record: ", "unit", 1),
	BAD2("missing key in error", ERROR_F("\"stage\":\"s\",\"message\":\"m\""),
	     "record 0: error record: ", "errno", 0),
	BAD2("missing key in done", DONE_F("\"samples\":0,\"uptime\":2"),
	     "record 1: done record: ", "workload_s", 1),
	BAD("wrong type of a key", SAMPLE_F("\"metric\":7,\"unit\":\"s\",\"value\":1"),
	    "record 1: sample record: ", 1),
	BAD("counters: values not an object",
	    HELLO(0) "{\"type\":\"counters\",\"seq\":1,\"values\":[1]}\n",
	    "record 1: counters: values is not an object of counters", 1),
	BAD("counters: empty",
	    HELLO(0) "{\"type\":\"counters\",\"seq\":1,\"values\":{}}\n",
	    "record 1: counters: values is not an object of counters", 1),
	BAD("counters: a negative snapshot_s",
	    HELLO(0) "{\"type\":\"counters\",\"seq\":1,\"snapshot_s\":-1,\"values\":{\"a.b\":1}}\n",
	    "record 1: counters: snapshot_s is not a time in seconds", 1),
	BAD("counters: a string snapshot_s",
	    HELLO(0) "{\"type\":\"counters\",\"seq\":1,\"snapshot_s\":\"1\",\"values\":{\"a.b\":1}}\n",
	    "record 1: counters: snapshot_s is not a time in seconds", 1),
	BAD("counters: a real value",
	    HELLO(0) "{\"type\":\"counters\",\"seq\":1,\"values\":{\"vmstat.pgfault\":1.5}}\n",
	    "record 1: counters: 'vmstat.pgfault' is not a name with a whole number", 1),
	BAD2("counters: extra key",
	     HELLO(0) "{\"type\":\"counters\",\"seq\":1,\"values\":{\"a\":1},\"x\":1}\n",
	     "record 1: counters record: ", "x", 1),
	BAD("seq skips one", HELLO(0) SAMPLE(2), "sample record has seq 2, expected 1", 1),
	BAD("seq repeats", HELLO(0) SAMPLE(1) SAMPLE(1), "sample record has seq 1, expected 2", 2),
	BAD("seq out of order", HELLO(0) SAMPLE(2) SAMPLE(1) DONE(3, 2),
	    "sample record has seq 2, expected 1", 1),
	BAD("seq goes back", HELLO(0) SAMPLE(1) SAMPLE(2) ERRREC(1),
	    "error record has seq 1, expected 3", 3),
	BAD("first seq is not 0", HELLO(1), "hello record has seq 1, expected 0", 0),
	BAD("seq at INT64_MAX", HELLO(9223372036854775807),
	    "hello record has seq 9223372036854775807, expected 0", 0),
	BAD("sample before hello", SAMPLE(0) HELLO(1), "sample record before hello", 0),
	BAD("done before hello", DONE(0, 0), "done record before hello", 0),
	BAD("sample after done", HELLO(0) DONE(1, 0) SAMPLE(2), "sample record after done", 2),
	BAD("error after done", HELLO(0) SAMPLE(1) DONE(2, 1) ERRREC(3),
	    "error record after done", 3),
	BAD("second done", HELLO(0) DONE(1, 0) DONE(2, 0), "done record after done", 2),
	BAD("second hello", HELLO(0) SAMPLE(1) HELLO(2), "second hello record", 2),
	BAD("done from another boot than hello (a LAVA log joining two attempts of a job)",
	    HELLO_F("\"version\":\"v\",\"machine\":\"m\",\"page_size\":4096,\"uptime\":1.5,"
		    "\"boot\":\"11111111-2222-3333-4444-555555555555\"")
	    "{\"type\":\"done\",\"seq\":1,\"samples\":0,\"uptime\":2,\"workload_s\":1,"
	    "\"boot\":\"99999999-2222-3333-4444-555555555555\"}\n",
	    "done record from another boot (99999999-2222-3333-4444-555555555555) than hello "
	    "(11111111-2222-3333-4444-555555555555): the records of two boots joined", 1),
	BAD("done counts too many", HELLO(0) SAMPLE(1) DONE(2, 2),
	    "done says 2 samples, 1 arrived", 2),
	BAD("done counts too few", HELLO(0) SAMPLE(1) SAMPLE(2) DONE(3, 1),
	    "done says 1 samples, 2 arrived", 3),
	BAD("done counts errors", HELLO(0) ERRREC(1) DONE(2, 1),
	    "done says 1 samples, 0 arrived", 2),
	BAD("done with negative samples", HELLO(0) DONE(1, -1),
	    "done: bad samples, uptime, workload_s or poweron", 1),
	BAD("value 1e999", SAMPLE_F("\"metric\":\"m\",\"unit\":\"s\",\"value\":1e999"),
	    "record 1: bad JSON", 1),
	BAD("value -1e999", SAMPLE_F("\"metric\":\"m\",\"unit\":\"s\",\"value\":-1e999"),
	    "record 1: bad JSON", 1),
	BAD("value NaN", SAMPLE_F("\"metric\":\"m\",\"unit\":\"s\",\"value\":NaN"),
	    "record 1: bad JSON", 1),
	BAD("value Infinity", SAMPLE_F("\"metric\":\"m\",\"unit\":\"s\",\"value\":Infinity"),
	    "record 1: bad JSON", 1),
	BAD("value nan as printf writes it",
	    SAMPLE_F("\"metric\":\"m\",\"unit\":\"s\",\"value\":nan"), "record 1: bad JSON", 1),
	BAD("value is a string", SAMPLE_F("\"metric\":\"m\",\"unit\":\"s\",\"value\":\"1\""),
	    "record 1: sample: bad metric, unit or value", 1),
	BAD("value is null", SAMPLE_F("\"metric\":\"m\",\"unit\":\"s\",\"value\":null"),
	    "sample: bad metric, unit or value", 1),
	BAD("empty metric", SAMPLE_F("\"metric\":\"\",\"unit\":\"s\",\"value\":1"),
	    "sample: bad metric, unit or value", 1),
	BAD("metric over 64 bytes",
	    SAMPLE_F("\"unit\":\"s\",\"value\":1,\"metric\":"
		     "\"m0123456789012345678901234567890123456789012345678901234567890123\""),
	    "sample: bad metric, unit or value", 1),
	BAD("better neither lower nor higher",
	    SAMPLE_F("\"metric\":\"m\",\"unit\":\"pts\",\"value\":1,\"better\":\"up\""),
	    "sample: better is lower or higher, not 'up'", 1),
	BAD("better a number",
	    SAMPLE_F("\"metric\":\"m\",\"unit\":\"pts\",\"value\":1,\"better\":1"),
	    "record 1: sample record:", 1),
	BAD("unit over 16 bytes",
	    SAMPLE_F("\"metric\":\"m\",\"unit\":\"sssssssssssssssss\",\"value\":1"),
	    "sample: bad metric, unit or value", 1),
	BAD("hello uptime 1e999",
	    HELLO_F("\"version\":\"v\",\"machine\":\"m\",\"page_size\":4096,\"uptime\":1e999"),
	    "record 0: bad JSON", 0),
	BAD("hello uptime a string",
	    HELLO_F("\"version\":\"v\",\"machine\":\"m\",\"page_size\":4096,\"uptime\":\"1\""),
	    "hello: bad uptime, page_size, modules_s or init_uptime", 0),
	BAD("hello page_size 0",
	    HELLO_F("\"version\":\"v\",\"machine\":\"m\",\"page_size\":0,\"uptime\":1"),
	    "hello: bad uptime, page_size, modules_s or init_uptime", 0),
	BAD("hello page_size not a power of two",
	    HELLO_F("\"version\":\"v\",\"machine\":\"m\",\"page_size\":3000,\"uptime\":1"),
	    "hello: bad uptime, page_size, modules_s or init_uptime", 0),
	BAD("hello page_size negative",
	    HELLO_F("\"version\":\"v\",\"machine\":\"m\",\"page_size\":-4096,\"uptime\":1"),
	    "hello: bad uptime, page_size, modules_s or init_uptime", 0),
	BAD("hello modules_s negative",
	    HELLO_F("\"version\":\"v\",\"machine\":\"m\",\"page_size\":4096,\"uptime\":1,"
		    "\"modules_s\":-0.5"),
	    "hello: bad uptime, page_size, modules_s or init_uptime", 0),
	BAD("hello init_uptime after its uptime",
	    HELLO_F("\"version\":\"v\",\"machine\":\"m\",\"page_size\":4096,\"uptime\":1,"
		    "\"init_uptime\":1.5"),
	    "hello: bad uptime, page_size, modules_s or init_uptime", 0),
	BAD("hello init_uptime negative",
	    HELLO_F("\"version\":\"v\",\"machine\":\"m\",\"page_size\":4096,\"uptime\":1,"
		    "\"init_uptime\":-1"),
	    "hello: bad uptime, page_size, modules_s or init_uptime", 0),
	BAD("hello modules_s a string",
	    HELLO_F("\"version\":\"v\",\"machine\":\"m\",\"page_size\":4096,\"uptime\":1,"
		    "\"modules_s\":\"0.4\""),
	    "hello: bad uptime, page_size, modules_s or init_uptime", 0),
	BAD("done uptime 1e999", DONE_F("\"samples\":0,\"uptime\":1e999,\"workload_s\":1"),
	    "record 1: bad JSON", 1),
	BAD("done workload_s a string", DONE_F("\"samples\":0,\"uptime\":1,\"workload_s\":\"1\""),
	    "done: bad samples, uptime, workload_s or poweron", 1),
	BAD("done poweron negative",
	    DONE_F("\"samples\":0,\"uptime\":1,\"workload_s\":1,\"poweron\":-1"),
	    "done: bad samples, uptime, workload_s or poweron", 1),
	BAD("done poweron a string",
	    DONE_F("\"samples\":0,\"uptime\":1,\"workload_s\":1,\"poweron\":\"2\""),
	    "done: bad samples, uptime, workload_s or poweron", 1),
	BAD("duplicate key", SAMPLE_F("\"metric\":\"m\",\"unit\":\"s\",\"value\":1,\"value\":2"),
	    "record 1: bad JSON", 1),
	BAD("duplicate seq, same value",
	    SAMPLE_F("\"seq\":1,\"metric\":\"m\",\"unit\":\"s\",\"value\":1"),
	    "record 1: bad JSON", 1),
	BAD("duplicate type", "{\"type\":\"hello\",\"type\":\"hello\",\"seq\":0}\n", "bad JSON", 0),
	BAD("NUL byte", SAMPLE_F("\"metric\":\"m\0\",\"unit\":\"s\",\"value\":1"),
	    "record 1: NUL byte in record", 1),
	BAD("NUL byte after the object", HELLO(0) SAMPLE(1) "\0\n",
	    "record 2: NUL byte in record", 2),
	BAD("escaped NUL in a string",
	    SAMPLE_F("\"metric\":\"m\\u0000\",\"unit\":\"s\",\"value\":1"),
	    "record 1: bad JSON", 1),
	BAD("empty line", HELLO(0) "\n" SAMPLE(1), "empty record", 1),
	BAD("empty CRLF line", HELLO(0) "\r\n", "empty record", 1),
};

static void test_bad_case(void **state)
{
	const struct bad_case *c = *state;
	static const size_t chunks[] = { 0, 1, 3 };
	char first[sizeof(((struct channel *)0)->why)];
	struct channel ch;
	struct seen s;
	size_t i;

	for (i = 0; i < sizeof(chunks) / sizeof(chunks[0]); i++) {
		seen_init(&s);
		channel_init(&ch, seen_cb, &s);
		assert_int_equal(feed_all(&ch, c->text, c->len, chunks[i]), -1);
		assert_true(ch.failed);
		assert_contains(ch.why, c->why);
		if (c->why2)
			assert_contains(ch.why, c->why2);
		assert_int_equal(s.n, c->delivered);
		/* the reason does not depend on how the bytes were split */
		if (!i)
			memcpy(first, ch.why, sizeof(first));
		else
			assert_string_equal(ch.why, first);
		seen_release(&s);
	}
}

static void test_check_record_alone(void **state)
{
	static const char *const good[] = {
		"{\"type\":\"hello\",\"seq\":0,\"agent\":\"a\",\"workload\":\"w\","
		"\"release\":\"r\",\"version\":\"v\",\"machine\":\"m\",\"page_size\":1,"
		"\"uptime\":0}",
		"{\"type\":\"sample\",\"seq\":7,\"metric\":\"m\",\"unit\":\"\",\"value\":-0.0}",
		"{\"type\":\"error\",\"seq\":0,\"stage\":\"\",\"errno\":-5,\"message\":\"\"}",
		"{\"type\":\"done\",\"seq\":3,\"samples\":5,\"uptime\":0,\"workload_s\":0}",
	};
	static const enum rec_type types[] = { REC_HELLO, REC_SAMPLE, REC_ERROR, REC_DONE };
	static const char done[] = "{\"type\":\"done\",\"seq\":3}";
	static const char nope[] = "{\"type\":\"nope\",\"seq\":0}";
	enum rec_type type;
	char why[128];
	json_t *rec;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		why[0] = '\0';
		assert_int_equal(channel_check_record(good[i], strlen(good[i]), &type, &rec, why,
						      sizeof(why)), 0);
		assert_non_null(rec);
		assert_int_equal(type, types[i]);
		json_decref(rec);
	}
	/* no sequence state: any seq is fine alone, but the schema still holds */
	rec = (json_t *)1;
	assert_int_equal(channel_check_record(done, strlen(done), &type, &rec, why, sizeof(why)),
			 -1);
	assert_null(rec);
	assert_contains(why, "done record: ");
	/* only @len bytes are read: the rest of the buffer does not matter */
	assert_int_equal(channel_check_record(good[1], strlen(good[1]) - 1, &type, &rec, why,
					      sizeof(why)), -1);
	assert_null(rec);
	assert_contains(why, "bad JSON");
	/* a short why buffer is truncated, not overrun */
	memset(why, 'z', sizeof(why));
	assert_int_equal(channel_check_record(nope, strlen(nope), &type, &rec, why, 8), -1);
	assert_int_equal(strlen(why), 7);
	assert_int_equal(why[8], 'z');
}

/* the guest's own emitter must produce what the harness accepts */
static void test_guest_emitter(void **state)
{
	static const char metric[] = "lat\"ency\\p99\t\x01\x1f\x7f~";
	struct capture cap;
	struct utsname u;
	struct channel ch;
	struct seen s;
	char ctl[600], huge[5000], *buf, *err;
	size_t len = 0, cap_len = 1 << 16;
	int sv[2];
	ssize_t k;

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	assert_int_equal(uname(&u), 0);
	memset(ctl, '\x01', sizeof(ctl) - 1);
	ctl[sizeof(ctl) - 1] = '\0';

	rec_set_fd(sv[0]);
	capture_start(&cap);	/* rec_error also says it on stderr */
	assert_int_equal(rec_error("mount", ENOENT, "cannot mount '%s': %s", "/dev/vda",
				   strerror(ENOENT)), -1);
	assert_int_equal(rec_hello("smoke", 1.25, 0.625, 0.5, 4096), 0);
	assert_int_equal(rec_sample("write_s", "s", 0.125), 0);
	assert_int_equal(rec_sample(metric, "B/s", -2.5e300), 0);
	assert_int_equal(rec_sample("tiny", "", 1e-300), 0);
	assert_int_equal(rec_sample("bytes", "B", 67108864.0), 0);
	/* escaped six bytes each: close to, but within, the record limit */
	assert_int_equal(rec_error("smoke", EIO, "%s", ctl), -1);
	assert_int_equal(rec_error("smoke", EILSEQ, "bad bytes \xff\xfe and \xc3\xa9"), -1);
	/* a record too long to send is not sent, and leaves no gap in seq */
	memset(huge, 'h', sizeof(huge) - 1);
	huge[sizeof(huge) - 1] = '\0';
	assert_int_equal(rec_sample(huge, "s", 1), -1);
	assert_int_equal(rec_samples(), 4);
	assert_int_equal(rec_done(9.5, 8.25, 9.625), 0);
	err = capture_end(&cap);
	rec_set_fd(-1);
	close(sv[0]);
	assert_contains(err, "kpair-agent: mount: cannot mount '/dev/vda'");
	free(err);

	buf = malloc(cap_len);
	assert_non_null(buf);
	while ((k = read(sv[1], buf + len, cap_len - len)) > 0) {
		len += k;
		assert_true(len < cap_len);
	}
	assert_int_equal(k, 0);
	close(sv[1]);

	seen_init(&s);
	channel_init(&ch, seen_cb, &s);
	if (feed_all(&ch, buf, len, 0) < 0)
		fail_msg("the channel refused the emitter's records: %s", ch.why);
	assert_true(ch.got_done);
	assert_int_equal(s.n, 9);
	assert_int_equal(s.type[0], REC_ERROR);
	assert_string_equal(json_string_value(json_object_get(s.rec[0], "message")),
			    "cannot mount '/dev/vda': No such file or directory");
	assert_int_equal(json_integer_value(json_object_get(s.rec[0], "errno")), ENOENT);
	assert_int_equal(s.type[1], REC_HELLO);
	assert_string_equal(json_string_value(json_object_get(s.rec[1], "workload")), "smoke");
	assert_string_equal(json_string_value(json_object_get(s.rec[1], "release")), u.release);
	assert_string_equal(json_string_value(json_object_get(s.rec[1], "machine")), u.machine);
	assert_int_equal(json_integer_value(json_object_get(s.rec[1], "page_size")), 4096);
	assert_true(json_number_value(json_object_get(s.rec[1], "uptime")) == 1.25);
	assert_true(json_number_value(json_object_get(s.rec[1], "modules_s")) == 0.5);
	assert_true(json_number_value(json_object_get(s.rec[1], "init_uptime")) == 0.625);
	assert_int_equal(s.type[2], REC_SAMPLE);
	assert_true(json_number_value(json_object_get(s.rec[2], "value")) == 0.125);
	assert_string_equal(json_string_value(json_object_get(s.rec[3], "metric")), metric);
	assert_string_equal(json_string_value(json_object_get(s.rec[3], "unit")), "B/s");
	assert_true(fabs(json_number_value(json_object_get(s.rec[3], "value")) + 2.5e300) < 1e292);
	assert_true(json_number_value(json_object_get(s.rec[4], "value")) > 0);
	assert_true(json_number_value(json_object_get(s.rec[5], "value")) == 67108864.0);
	assert_int_equal(s.type[6], REC_ERROR);
	assert_int_equal(strlen(json_string_value(json_object_get(s.rec[6], "message"))), 511);
	assert_int_equal(s.type[7], REC_ERROR);
	assert_contains(json_string_value(json_object_get(s.rec[7], "message")), "bad bytes ");
	assert_int_equal(s.type[8], REC_DONE);
	assert_int_equal(json_integer_value(json_object_get(s.rec[8], "samples")), 4);
	assert_true(json_number_value(json_object_get(s.rec[8], "workload_s")) == 8.25);
	assert_true(json_number_value(json_object_get(s.rec[8], "poweron")) == 9.625);
	seen_release(&s);
	free(buf);
}

/* done.poweron back to hello along the guest's clock, and the counters that cannot be one */
static void test_poweron_at_hello(void **state)
{
	json_t *hello = json_pack("{s:f}", "uptime", 1.25);
	json_t *done = json_pack("{s:f, s:f}", "uptime", 2.0, "poweron", 2.125);
	json_t *plain = json_pack("{s:f}", "uptime", 2.0);
	json_t *behind = json_pack("{s:f, s:f}", "uptime", 2.0, "poweron", 1.875);
	json_t *early = json_pack("{s:f, s:f}", "uptime", 1.0, "poweron", 2.0);

	(void)state;
	assert_true(fabs(guest_poweron_at_hello(hello, done) - 1.375) < 1e-12);
	assert_true(guest_poweron_at_hello(hello, plain) == -1);	/* no counter */
	assert_true(guest_poweron_at_hello(hello, behind) == -1);	/* behind the kernel's clock */
	assert_true(guest_poweron_at_hello(hello, early) == -1);	/* done before hello */
	assert_true(guest_poweron_at_hello(NULL, done) == -1);
	assert_true(guest_poweron_at_hello(hello, NULL) == -1);
	json_decref(hello);
	json_decref(done);
	json_decref(plain);
	json_decref(behind);
	json_decref(early);
}

/*
 * Fuzzing: mutants of the valid stream. Each must be accepted or refused
 * with a reason, the same reason however it is split, and what the callback
 * is handed must always follow the protocol.
 */
struct fuzz_seen {
	uint64_t n, samples;
	int hello, done;
};

static int fuzz_cb(void *user, enum rec_type type, json_t *rec, const char *line, size_t len)
{
	struct fuzz_seen *f = user;
	json_t *seq = json_object_get(rec, "seq");

	assert_non_null(rec);
	assert_true(len > 0 && len < CHANNEL_RECORD_MAX);
	assert_null(memchr(line, '\n', len));
	assert_null(memchr(line, '\0', len));
	assert_true(json_is_integer(seq));
	assert_int_equal(json_integer_value(seq), f->n);
	assert_false(f->done);
	switch (type) {
	case REC_HELLO:
		assert_false(f->hello);
		f->hello = 1;
		break;
	case REC_SAMPLE:
		assert_true(f->hello);
		assert_true(isfinite(json_number_value(json_object_get(rec, "value"))));
		f->samples++;
		break;
	case REC_ERROR:
		break;
	case REC_COUNTERS:
		assert_true(f->hello);
		assert_true(json_object_size(json_object_get(rec, "values")) > 0);
		break;
	case REC_DONE:
		assert_true(f->hello);
		assert_int_equal(json_integer_value(json_object_get(rec, "samples")), f->samples);
		f->done = 1;
		break;
	default:
		fail_msg("bad record type %d", type);
	}
	f->n++;
	return 0;
}

struct bytes {
	char *p;
	size_t len, cap;
};

static void bytes_reserve(struct bytes *b, size_t extra)
{
	if (b->len + extra + 1 <= b->cap)
		return;
	b->cap = (b->len + extra + 1) * 2;
	b->p = realloc(b->p, b->cap);
	assert_non_null(b->p);
}

static void bytes_insert(struct bytes *b, size_t at, const char *data, size_t n)
{
	bytes_reserve(b, n);
	memmove(b->p + at + n, b->p + at, b->len - at);
	memcpy(b->p + at, data, n);
	b->len += n;
}

static void bytes_delete(struct bytes *b, size_t at, size_t n)
{
	memmove(b->p + at, b->p + at + n, b->len - at - n);
	b->len -= n;
}

/* start and length (newline included) of line @k, or 0 if there is none */
static int line_span(const struct bytes *b, size_t k, size_t *start, size_t *len)
{
	size_t i, s = 0, line = 0;

	for (i = 0; i <= b->len; i++) {
		if (i == b->len || b->p[i] == '\n') {
			size_t end = i < b->len ? i + 1 : i;

			if (line == k && end > s) {
				*start = s;
				*len = end - s;
				return 1;
			}
			line++;
			s = end;
		}
	}
	return 0;
}

static size_t line_count(const struct bytes *b)
{
	size_t s, l, n = 0;

	while (line_span(b, n, &s, &l))
		n++;
	return n;
}

static void mutate(struct bytes *b)
{
	static const char interesting[] = "\0\n\r\"\\{}[]:,09-+e.E \t\x80\xff";
	static const char *const numbers[] = {
		"1e999", "-1e999", "NaN", "Infinity", "-0", "1.5", "99999999999999999999",
		"9223372036854775807", "-1", "0", "4097", "\"x\"", "null", "true", "[]", "{}",
	};
#define NNUMBERS (sizeof(numbers) / sizeof(numbers[0]))
	size_t s1, l1, s2, l2, n = line_count(b), at, k;
	char tmp[64], *copy;

	switch (rng_below(11)) {
	case 0:	/* flip a bit */
		if (b->len)
			b->p[rng_below(b->len)] ^= (char)(1 << rng_below(8));
		break;
	case 1:	/* overwrite a byte with a syntactically interesting one */
		if (b->len)
			b->p[rng_below(b->len)] = interesting[rng_below(sizeof(interesting) - 1)];
		break;
	case 2:	/* truncate */
		b->len = rng_below(b->len + 1);
		break;
	case 3:	/* duplicate a line */
		if (n && line_span(b, rng_below(n), &s1, &l1)) {
			copy = malloc(l1);
			assert_non_null(copy);
			memcpy(copy, b->p + s1, l1);
			bytes_insert(b, s1, copy, l1);
			free(copy);
		}
		break;
	case 4:	/* swap two lines */
		if (n >= 2) {
			size_t a = rng_below(n), c = rng_below(n);
			char *x, *y;

			if (a > c) {
				size_t t = a;

				a = c;
				c = t;
			}
			if (a == c || !line_span(b, a, &s1, &l1) || !line_span(b, c, &s2, &l2))
				break;
			x = malloc(l1);
			y = malloc(l2);
			assert_non_null(x);
			assert_non_null(y);
			memcpy(x, b->p + s1, l1);
			memcpy(y, b->p + s2, l2);
			bytes_delete(b, s2, l2);
			bytes_insert(b, s2, x, l1);
			bytes_delete(b, s1, l1);
			bytes_insert(b, s1, y, l2);
			free(x);
			free(y);
		}
		break;
	case 5:	/* delete a line */
		if (n && line_span(b, rng_below(n), &s1, &l1))
			bytes_delete(b, s1, l1);
		break;
	case 6:	/* insert random bytes */
		k = 1 + rng_below(16);
		for (at = 0; at < k; at++)
			tmp[at] = rng_below(2) ? (char)rng() :
				 interesting[rng_below(sizeof(interesting) - 1)];
		bytes_insert(b, rng_below(b->len + 1), tmp, k);
		break;
	case 7: {	/* a huge run of bytes, often right at the limit */
		static const size_t sizes[] = { 4000, 4094, 4095, 4096, 4097, 5000, 70000 };
		static const char fill[] = "a 0\"\\";

		k = sizes[rng_below(sizeof(sizes) / sizeof(sizes[0]))];
		if (rng_below(2))
			k -= rng_below(200);
		copy = malloc(k);
		assert_non_null(copy);
		memset(copy, fill[rng_below(sizeof(fill) - 1)], k);
		bytes_insert(b, rng_below(b->len + 1), copy, k);
		free(copy);
		break;
	}
	case 8:	/* replace a digit with a tricky number */
		for (k = 0; k < 8 && b->len; k++) {
			at = rng_below(b->len);
			if (b->p[at] >= '0' && b->p[at] <= '9') {
				const char *num = numbers[rng_below(NNUMBERS)];

				bytes_delete(b, at, 1);
				bytes_insert(b, at, num, strlen(num));
				break;
			}
		}
		break;
	case 9:	/* copy a random slice somewhere else */
		if (b->len) {
			s1 = rng_below(b->len);
			l1 = 1 + rng_below(b->len - s1 < 200 ? b->len - s1 : 200);
			copy = malloc(l1);
			assert_non_null(copy);
			memcpy(copy, b->p + s1, l1);
			bytes_insert(b, rng_below(b->len + 1), copy, l1);
			free(copy);
		}
		break;
	default:	/* drop a newline: two records run together */
		for (k = 0; k < b->len; k++) {
			at = rng_below(b->len);
			if (b->p[at] == '\n') {
				bytes_delete(b, at, 1);
				break;
			}
		}
		break;
	}
}

/* every line alone: the checker accepts it or gives a reason */
static void fuzz_check_lines(const struct bytes *b)
{
	size_t start = 0, i;

	for (i = 0; i <= b->len; i++) {
		enum rec_type type;
		char why[256];
		json_t *rec;
		int r;

		if (i < b->len && b->p[i] != '\n')
			continue;
		why[0] = '\0';
		r = channel_check_record(b->p + start, i - start, &type, &rec, why, sizeof(why));
		if (r == 0) {
			assert_non_null(rec);
			assert_true(type >= REC_HELLO && type <= REC_COUNTERS);
			json_decref(rec);
		} else {
			assert_int_equal(r, -1);
			assert_null(rec);
			assert_true(why[0] != '\0');
		}
		start = i + 1;
	}
}

#define FUZZ_INPUTS 12000

static void test_fuzz(void **state)
{
	struct bytes b = { 0 };
	size_t base_len, i;
	unsigned accepted = 0, refused = 0, pristine = 0;
	char *base = valid_stream("\n", &base_len);

	(void)state;
	rng_seed(0x6b70616972ULL);	/* "kpair" */
	for (i = 0; i < FUZZ_INPUTS; i++) {
		char why[sizeof(((struct channel *)0)->why)];
		struct fuzz_seen f1 = { 0 }, f2 = { 0 };
		struct channel ch;
		int r1, r2, m, nmut = rng_below(20) ? 1 + (int)rng_below(4) : 0;

		b.len = 0;
		bytes_insert(&b, 0, base, base_len);
		for (m = 0; m < nmut; m++)
			mutate(&b);
		pristine += !nmut;

		channel_init(&ch, fuzz_cb, &f1);
		r1 = feed_all(&ch, b.p, b.len, 0);
		if (r1 == 0) {
			assert_false(ch.failed);
			assert_string_equal(ch.why, "");
			assert_int_equal(ch.next_seq, f1.n);
			assert_int_equal(ch.samples, f1.samples);
			accepted++;
		} else {
			assert_int_equal(r1, -1);
			assert_true(ch.failed);
			assert_true(ch.why[0] != '\0');
			assert_true(strlen(ch.why) < sizeof(ch.why));
			refused++;
		}
		memcpy(why, ch.why, sizeof(why));

		/* the same bytes in random pieces: the same outcome */
		channel_init(&ch, fuzz_cb, &f2);
		r2 = feed_all(&ch, b.p, b.len, 1 + rng_below(97));
		assert_int_equal(r2, r1);
		assert_string_equal(ch.why, why);
		assert_int_equal(f2.n, f1.n);

		fuzz_check_lines(&b);
	}
	print_message("# fuzz: %d inputs, %u accepted (%u unmutated), %u refused\n", FUZZ_INPUTS,
		      accepted, pristine, refused);
	assert_true(accepted >= pristine);
	assert_true(refused > FUZZ_INPUTS / 2);
	free(b.p);
	free(base);
}

int main(void)
{
	static const struct CMUnitTest fixed[] = {
		cmocka_unit_test(test_valid_stream_chunked),
		cmocka_unit_test(test_valid_stream_crlf),
		cmocka_unit_test(test_no_callback),
		cmocka_unit_test(test_empty_stream),
		cmocka_unit_test(test_error_before_hello),
		cmocka_unit_test(test_whitespace_and_key_order),
		cmocka_unit_test(test_truncated_stream),
		cmocka_unit_test(test_record_size_limit),
		cmocka_unit_test(test_run_size_limit),
		cmocka_unit_test(test_callback_stops),
		cmocka_unit_test(test_failed_ignores_input),
		cmocka_unit_test(test_check_record_alone),
		cmocka_unit_test(test_guest_emitter),
		cmocka_unit_test(test_poweron_at_hello),
		cmocka_unit_test(test_fuzz),
	};
	size_t nfixed = sizeof(fixed) / sizeof(fixed[0]);
	size_t nbad = sizeof(bad_cases) / sizeof(bad_cases[0]);
	struct CMUnitTest *tests = calloc(nfixed + nbad, sizeof(*tests));
	char *names[sizeof(bad_cases) / sizeof(bad_cases[0])];
	size_t i;
	int ret;

	if (!tests)
		return 1;
	memcpy(tests, fixed, sizeof(fixed));
	for (i = 0; i < nbad; i++) {
		if (asprintf(&names[i], "bad stream: %s", bad_cases[i].name) < 0)
			return 1;
		tests[nfixed + i].name = names[i];
		tests[nfixed + i].test_func = test_bad_case;
		tests[nfixed + i].initial_state = (void *)&bad_cases[i];
	}
	ret = _cmocka_run_group_tests("channel", tests, nfixed + nbad, NULL, NULL);
	for (i = 0; i < nbad; i++)
		free(names[i]);
	free(tests);
	return ret;
}
