/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ketw: the command-line tool. One file per subcommand (cmd_*.c), one
 * table of commands (ketw.c), one usage table (usage.c), and the helpers
 * below, a file each.
 *
 * Names: the library's are ketw_<object>_<verb>() (lib/libketw.h); the
 * tool's own are cli_*() and CLI_*, so that a name says which side it is
 * on (as trace-cmd keeps trace_* apart from libtracecmd's tracecmd_*).
 */
#ifndef _KETW_CLI_H
#define _KETW_CLI_H

#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "libketw.h"
#include "rotate.h"

/* Exit codes. */
#define CLI_EXIT_OK		0
#define CLI_EXIT_ERROR		1	/* runtime error */
#define CLI_EXIT_USAGE		2	/* bad command line */
#define CLI_EXIT_TRUNCATED	3	/* report: a file cut short, read up
					 * to its last complete section */

#define CLI_DEFAULT_SESSION	"ketw"
#define CLI_DEFAULT_FILE	"trace.ketw"
/* Environment variable naming another device node (tests, containers). */
#define CLI_DEVICE_ENV		"KETW_DEVICE"

struct cli_cmd {
	const char *name;
	int (*run)(int argc, char **argv);	/* argv[0] is the command */
	const char *summary;
};

/* The command table (ketw.c). */
extern const struct cli_cmd cli_cmds[];
const struct cli_cmd *cli_cmd_find(const char *name);

/* The usage table (usage.c): the full help text of a command, or NULL. */
const char *cli_usage_text(const char *cmd);
void cli_usage_print(const char *cmd);	/* on stdout */

int cmd_start(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_stop(int argc, char **argv);
int cmd_reset(int argc, char **argv);
int cmd_extract(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_convert(int argc, char **argv);
int cmd_plot(int argc, char **argv);
int cmd_show(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_snapshot(int argc, char **argv);
int cmd_flush(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_enable(int argc, char **argv);
int cmd_disable(int argc, char **argv);
/* cmd_enable.c: enable (@disable false) and disable share their code. */
int cli_enable_or_disable(int argc, char **argv, bool disable);
int cmd_rundown(int argc, char **argv);
int cmd_log(int argc, char **argv);
int cmd_stream(int argc, char **argv);
int cmd_listen(int argc, char **argv);
int cmd_help(int argc, char **argv);

/* ---- messages.c ---- */

/* "ketw: <message>" on stderr; returns CLI_EXIT_ERROR. */
__attribute__((format(printf, 1, 2)))
int cli_error(const char *fmt, ...);
/* "ketw: <message>" and "Try 'ketw CMD --help'." on stderr; returns 2. */
__attribute__((format(printf, 2, 3)))
int cli_usage_error(const char *cmd, const char *fmt, ...);

/* The session exists and is not running (to explain an EINVAL). */
bool cli_session_stopped(int fd, const char *name);

/* ---- options.c ---- */

/*
 * The common option loop of subcommands: getopt_long() with --help.
 * Returns the option, -1 at the end; for -h/--help prints the usage and
 * sets *@exit_code to 0; for an unknown option or a missing argument it
 * reports a usage error and sets *@exit_code to 2 (both return '?').
 */
int cli_getopt(int argc, char **argv, const char *optstring,
	       int *exit_code);
/*
 * The same with the command's own long options (without arguments; their
 * val is returned like a short option's), @longopts ending with a zeroed
 * entry. --help is always there.
 */
int cli_getopt_long(int argc, char **argv, const char *optstring,
		    const struct option *longopts, int *exit_code);
/* Long options a command may have (besides --help). */
#define CLI_MAX_LONGOPTS	30
/* Values of long options that have no short form. */
#define CLI_OPT_JSON		0x100
#define CLI_OPT_READ		0x101
#define CLI_OPT_NO_RUNDOWN	0x102
#define CLI_OPT_HEX		0x103
#define CLI_OPT_ALL		0x104
#define CLI_OPT_ITEMS		0x105
#define CLI_OPT_TRIGGER		0x106
#define CLI_OPT_TRIGGER_FIELD	0x107
#define CLI_OPT_POST		0x108
#define CLI_OPT_ACTION		0x109
#define CLI_OPT_INTERVAL	0x10a
#define CLI_OPT_PID		0x10b
#define CLI_OPT_INHERIT		0x10c

/*
 * The command line of a command that takes "-s NAME" and nothing else:
 * the session's name in *@name (CLI_DEFAULT_SESSION without -s), the
 * device open in *@fd. Returns the exit code so far: the command goes
 * on only if *@fd >= 0 (else: --help was printed, or a message).
 */
int cli_session_only(int argc, char **argv, const char **name, int *fd);

/* Check a -s argument; a usage error (returns 2) if it is not a name. */
int cli_check_session_name(const char *cmd, const char *name);
/*
 * "SECONDS[.FRACTION]" (up to 9 digits of fraction) as nanoseconds;
 * -EINVAL if it is not that (report and plot --from, --to).
 */
int cli_parse_seconds(const char *s, uint64_t *ns);
/* --provider NAME|GUID into refs[*nr] (at most @max); a usage error if not. */
int cli_opt_provider(const char *cmd, const char *arg,
		     struct ketw_provider_ref *refs, unsigned int *nr,
		     unsigned int max);
/* --OPT SECONDS[.FRACTION] into *ns, *set noted; a usage error if not. */
int cli_opt_seconds(const char *cmd, const char *opt, const char *arg,
		    uint64_t *ns, bool *set);
/*
 * ketw convert and plot (render.c): open the trace @path (a truncated one
 * too, said once, then the result is CLI_EXIT_TRUNCATED), create @out ("-":
 * stdout), let @fn write it, close both; @verb ("plotting") goes in the
 * messages. Returns the exit status.
 */
int cli_render_file(const char *path, const char *out, const char *verb,
		    int (*fn)(struct ketw_input *in, const char *path,
			      void *arg, FILE *f),
		    void *arg);

/*
 * Parse an option's number strictly: a usage error naming the option,
 * the text and @what ("a number of KiB") if it is not one or not within
 * [@min, @max].
 */
int cli_opt_u64(const char *cmd, char opt, const char *arg, const char *what,
		uint64_t min, uint64_t max, uint64_t *out);
/* The same for an option named @opt ("--baud"). */
int cli_opt_u64_named(const char *cmd, const char *opt, const char *arg,
		      const char *what, uint64_t min, uint64_t max,
		      uint64_t *out);

/* ---- device.c ---- */

/*
 * Open the device (CLI_DEVICE_ENV or /dev/ketw); a message if it fails.
 * Returns the fd, or -1 after printing the error.
 */
int cli_open_device(int flags);

/* messages.c: */
/*
 * Report a failed session operation: "ketw: session 'x' does not exist".
 * @op is a verb ("start", "create", ...). Returns CLI_EXIT_ERROR.
 */
int cli_session_error(const char *op, const char *name, int err);

/* ---- memory.c ---- */
/* Explain ENOMEM or ENOBUFS from CREATE in numbers; returns the exit code. */
int cli_memory_error(const char *name, uint32_t buffer_kb, int err);
/* One line: a session's buffers (0: none) and all sessions' against the cap. */
void cli_memory_print(uint64_t session_bytes);

/* @s, or @dflt if @s is NULL (for the *_name() helpers). */
static inline const char *cli_or(const char *s, const char *dflt)
{
	return s ? s : dflt;
}

/* ---- format.c ---- */

/* "2025-01-02 03:04:05.123456789 UTC" */
char *cli_time_format(uint64_t ns, char *buf, size_t len);

/* ---- cpu_stats.c ---- */

/*
 * Arrays of @nr counters and valid flags for session @name, which says it
 * has @nr CPUs (checked against what a trace file takes). Returns 0, or
 * KETW_EXIT_ERROR after a message; the caller frees both in any case.
 */
int cli_cpu_stats_alloc(const char *name, unsigned int nr,
			struct ketw_cpu_stats **st, bool **valid);

/*
 * Counters of CPUs 0..nr-1 of session @name into @st; @valid[cpu] is false
 * for a CPU the kernel has none for (not possible). Returns 0, or
 * CLI_EXIT_ERROR after a message.
 */
int cli_get_cpu_stats(int fd, const char *name, unsigned int nr,
		      struct ketw_cpu_stats *st, bool *valid);
/* The per-CPU counters as a table (ketw show, ketw status). */
void cli_print_cpu_stats(const struct ketw_cpu_stats *st, const bool *valid,
			 unsigned int nr);

/* ---- tracefile.c ---- */

/*
 * A trace file being written (libketw's incremental writer): records go
 * out in sections as they come, the memory it takes is flat
 * (KETW_OUTPUT_CPU_BUFFER per CPU), and what was flushed stays readable
 * whatever happens to the writer later.
 */
struct cli_trace {
	struct ketw_output *out;	/* NULL once finished or aborted */
	const char *path;		/* the file being written */
	bool rotating;			/* cut into chunks (rot) */
	struct cli_rotate rot;
	unsigned int chunks;		/* chunks begun after the first */
};

/*
 * Create @path with @attr's header, to be cut into chunks by @rotate
 * (NULL: never). 0, or 1 after a message.
 */
int cli_trace_create(struct cli_trace *t, const char *path,
		     const struct ketw_session_attr *attr,
		     const struct cli_rotate_opts *rotate);
/*
 * If the chunk is due to end (its size, its age): its counters @st,
 * END, and the next chunk. 0, or 1 after a message (the file is then
 * closed as it is).
 */
int cli_trace_rotate(struct cli_trace *t, const struct ketw_cpu_stats *st,
		     const bool *valid, unsigned int nr);
/* Is the chunk due to end at @now (CLOCK_MONOTONIC ns)? */
bool cli_trace_rotate_due(const struct cli_trace *t, uint64_t now);
/* One record (for its CPU); 0 or -errno (the caller reports). */
int cli_trace_add(struct cli_trace *t, const struct ketw_record *rec);
/* The drain's sink into @t, which will be (or is) writing @path. */
struct cli_sink cli_trace_sink(struct cli_trace *t, const char *path);
/*
 * Every record added so far into the file. 0, or 1 after a message (the
 * file is then closed as it is: cut short, but readable).
 */
int cli_trace_flush(struct cli_trace *t);
/*
 * The counters and the END section, and close. 0, or 1 after a message
 * (the file is removed).
 */
int cli_trace_finish(struct cli_trace *t, const struct ketw_cpu_stats *st,
		     const bool *valid, unsigned int nr);
/*
 * On an error path: close a file not finished (nothing if it was);
 * @keep: flush and keep it as it is (cut short, which is said), else
 * remove it.
 */
void cli_trace_abort(struct cli_trace *t, bool keep);

/* format.c: "1.5 MiB", "512 B" */
char *cli_size_format(uint64_t bytes, char *buf, size_t len);

/* ---- serial.c ---- */

/*
 * Open serial line @dev raw at @baud, to write (@reader false, blocking)
 * or to read (non-blocking; a FIFO read-write, so that its writers may
 * come and go). A FIFO or a file that is not a terminal is taken as it
 * is. 0 and *@fd, or 1 after a message (*@fd then open or -1).
 */
int cli_serial_open(const char *dev, bool reader, unsigned int baud, int *fd);

/* ---- stop.c ---- */

/* Set by SIGINT, SIGTERM and SIGHUP once cli_stop_signals_catch() ran. */
extern volatile sig_atomic_t cli_stop;
#define CLI_STOP_NR_SIGNALS	3
/*
 * Catch the stop signals (cli_stop = 0 first), saving the old actions
 * in @old (CLI_STOP_NR_SIGNALS of them); a signal its starter ignored
 * stays ignored, SIGTERM excepted. _restore() puts them back.
 */
void cli_stop_signals_catch(struct sigaction *old);
void cli_stop_signals_restore(const struct sigaction *old);
/* CLOCK_MONOTONIC in ns. */
uint64_t cli_now_ns(void);

/* ---- progress.c ---- */

/*
 * A progress line on stderr for long operations, only when stderr is a
 * terminal: it appears after a second and is redrawn at most 5 times a
 * second, in place ("\r"), and erased by cli_progress_end().
 */
struct cli_progress {
	const char *what;	/* "extract" */
	bool enabled;
	bool shown;
	uint64_t start_ns;
	uint64_t last_ns;
};

void cli_progress_init(struct cli_progress *p, const char *what);
/* @done of @total bytes (total 0: unknown), @records so far. */
void cli_progress_update(struct cli_progress *p, uint64_t done,
			 uint64_t total, uint64_t records);
void cli_progress_end(struct cli_progress *p);

/* ---- json.c: a JSON writer ---- */

#define CLI_JSON_MAX_DEPTH	8

struct cli_json_level {
	char close;		/* '}' or ']' */
	bool multiline;		/* members one per line */
	bool empty;		/* no member yet */
	unsigned int indent;	/* of the line the opener is on */
};

struct cli_json {
	FILE *f;
	bool pretty;		/* else compact: no blanks, no newlines */
	bool after_key;		/* the next value is a key's */
	unsigned int depth;
	struct cli_json_level c[CLI_JSON_MAX_DEPTH];
};

void cli_json_init(struct cli_json *j, FILE *f, bool pretty);
/*
 * Open an object or an array; @multiline (pretty only): a line for each
 * member. cli_json_end() closes the innermost one, and ends the text
 * with a newline when it closes the outermost.
 */
void cli_json_object(struct cli_json *j, bool multiline);
void cli_json_array(struct cli_json *j, bool multiline);
void cli_json_end(struct cli_json *j);
/* A member's key; the next call writes its value. */
void cli_json_key(struct cli_json *j, const char *key);
/* Values. Strings stop at a NUL or @max bytes, and are escaped. */
void cli_json_string(struct cli_json *j, const char *s, size_t max);
void cli_json_string_or_null(struct cli_json *j, const char *s);
__attribute__((format(printf, 2, 3)))
void cli_json_stringf(struct cli_json *j, const char *fmt, ...);
void cli_json_hex(struct cli_json *j, const unsigned char *p, size_t n);
void cli_json_u64(struct cli_json *j, uint64_t v);
void cli_json_s64(struct cli_json *j, int64_t v);
/* @ns as a number of microseconds with three decimals: 1234.567 */
void cli_json_us(struct cli_json *j, uint64_t ns);
void cli_json_bool(struct cli_json *j, bool v);
void cli_json_null(struct cli_json *j);
/* @max bytes of @p quoted and escaped (up to a NUL if @stop_at_nul). */
void cli_json_escaped(FILE *f, const unsigned char *p, size_t max,
		      bool stop_at_nul);

/* ---- cmd_start.c: the options and the starting of start and record ---- */

#define CLI_START_OPTSTRING	"s:b:l:k:K:m:P:C:w:p:x:"
#define CLI_START_LONGOPTS \
	{ "no-rundown", no_argument, NULL, CLI_OPT_NO_RUNDOWN }, \
	{ "items", required_argument, NULL, CLI_OPT_ITEMS }, \
	{ "provider", required_argument, NULL, 'p' }, \
	{ "filter-out", required_argument, NULL, 'x' }, \
	{ "pid", required_argument, NULL, CLI_OPT_PID }, \
	{ "inherit", no_argument, NULL, CLI_OPT_INHERIT }, \
	CLI_TRIGGER_LONGOPTS
/* ---- enable.c: the -p and -x options of start, enable and disable ---- */

struct cli_enable_opt {
	const char *arg;		/* the -p argument */
	struct ketw_enable_spec spec;	/* completed by cli_enables_resolve() */
	uint32_t ext_items;		/* extended data items (:ITEM,...) */
	bool registered;		/* the provider is registered now */
	struct ketw_provider_info info;	/* if so: what the registry says */
	struct ketw_event_info *events;	/* and its events */
	unsigned int nr_events;
};

struct cli_enables {
	const char *cmd;		/* for usage errors */
	bool disable;			/* disable: providers only */
	struct cli_enable_opt v[KETW_MAX_ENABLES];
	unsigned int nr;
	const char *x[KETW_MAX_ENABLES * 4];	/* -x arguments */
	unsigned int nr_x;
	struct ketw_provider_info *providers;	/* the registry */
	unsigned int nr_providers;
};

void cli_enables_init(struct cli_enables *e, const char *cmd, bool disable);
void cli_enables_free(struct cli_enables *e);
/*
 * A -p argument, PROVIDER[:LEVEL[:KEYWORDS[/ALLMASK]]][:ITEM,...]: checked now
 * (syntax, a provider given twice, too many); returns 0 or 2 after a
 * usage error.
 */
int cli_enables_add(struct cli_enables *e, const char *arg);
/* A -x argument, PROVIDER:ID[,ID...]: its syntax is checked now. */
int cli_enables_add_x(struct cli_enables *e, const char *arg);
/*
 * With the device: read the registry; refuse two -p naming one provider
 * (a name and a GUID); give the parts a -p left out @level, @any and
 * @all (-l, -k, -K); resolve -x (event names too) into the filter of the
 * -p naming the same provider; note providers not registered now.
 * Returns 0, 1 after an error or 2 after a usage error.
 */
int cli_enables_resolve(struct cli_enables *e, int fd, const char *session,
			unsigned int level, uint64_t any, uint64_t all);
/* ENABLE (or disable) each in order; 0, or 1 after a message. */
int cli_enables_apply(struct cli_enables *e, int fd, const char *session);
/*
 * One line per provider with the filter the kernel applies now
 * (GET_FILTER), and which of its events that filter takes.
 */
void cli_enables_print(const struct cli_enables *e, int fd,
		       const char *session);
/* "level WARNING, match_any 0x2, match_all 0x0[, ids filtered out 1,3-5]" */
char *cli_filter_text(const struct ketw_filter *f, char *buf, size_t len);
/* "    takes warn(2); leaves out tick(1)" and a newline (nothing if nr = 0) */
void cli_print_events_taken(const struct ketw_filter *f,
			    const struct ketw_event_info *ev, unsigned int nr);

/* ---- trigger.c: the trigger options of start and record ---- */

#define CLI_TRIGGER_LONGOPTS \
	{ "trigger", required_argument, NULL, CLI_OPT_TRIGGER }, \
	{ "trigger-field", required_argument, NULL, CLI_OPT_TRIGGER_FIELD }, \
	{ "post", required_argument, NULL, CLI_OPT_POST }, \
	{ "action", required_argument, NULL, CLI_OPT_ACTION }, \
	{ "interval", required_argument, NULL, CLI_OPT_INTERVAL }

struct cli_triggers {
	const char *cmd;		/* for usage errors */
	struct ketw_trigger v[KETW_MAX_TRIGGERS];	/* --trigger */
	unsigned int nr;
	uint64_t post_ms, interval_ms;	/* --post, --interval: all of them */
	unsigned int action;		/* --action; 0: snapshot */
};

/*
 * One of CLI_TRIGGER_LONGOPTS: --trigger PROVIDER:ID[:LEVEL], then
 * --trigger-field FIELD=VALUE for the last --trigger; --post MS,
 * --action wake|stop|snapshot and --interval MS for them all. Returns 0,
 * 2 after a usage error, or -1 if @c is not one of them.
 */
int cli_triggers_option(struct cli_triggers *t, int c, const char *arg);
/* Arm them on @session (TRIGGER_ADD) and say so; 0, or 1 after a message. */
int cli_triggers_arm(struct cli_triggers *t, int fd, const char *session);

/* ---- cmd_start.c (continued) ---- */

struct cli_start {
	const char *cmd;		/* for usage errors */
	const char *name;		/* -s */
	struct cli_enables en;		/* -p, -x */
	struct cli_triggers trig;	/* --trigger ... */
	unsigned int level, policy, clock, flags;
	uint32_t ext_items;		/* --items: the session's default */
	uint64_t buffer_kb, max_data, any, all, watermark;
	struct ketw_session_attr attr;	/* as created (cli_start_session) */
	int32_t pids[KETW_PIDS_MAX];	/* --pid */
	unsigned int nr_pids;
	uint32_t pid_flags;		/* --inherit: KETW_PIDS_INHERIT */
	bool shaped;			/* an option that shapes a new session */
	bool may_resume;		/* start: resume a stopped session */
};

void cli_start_init(struct cli_start *s, const char *cmd);
void cli_start_free(struct cli_start *s);
/*
 * One option of CLI_START_OPTSTRING or CLI_START_LONGOPTS: 0, 2 after
 * a usage error, or -1 if @c is not one of them.
 */
int cli_start_option(struct cli_start *s, int c, const char *arg);
/* After the options: 0, or 2 after a usage error. */
int cli_start_check(struct cli_start *s);
/*
 * Create the session, enable its providers, set its process filter
 * (--pid), start it and print what runs. Nothing is left behind on
 * failure. With @s->may_resume, a stopped session of that name is
 * started again instead (its buffers keep their records). 0, 1 or 2
 * after a message.
 */
int cli_start_session(struct cli_start *s, int fd);
/*
 * The process filter of session @name as text ("101 102, inherit",
 * "all"), and the children it could not take from @ss if any; false if
 * the kernel cannot say (a module without process filters).
 */
bool cli_pids_describe(int fd, const char *name,
		       const struct ketw_session_status *ss, char *buf,
		       size_t len);

/*
 * ketw record --trigger (trigger.c): a LOOP session as a flight
 * recorder; each snapshot its triggers make ready goes to @path, then
 * @path.1, @path.2, ...; until @seconds (0: no limit) or a signal.
 */
int cli_record_triggered(struct cli_start *s, const char *path,
			 uint64_t seconds);

/* ---- cmd_snapshot.c ---- */

/* Every CPU's records of session @name, consuming none, into @path. */
int cli_snapshot_write(int fd, const char *name, const char *path);

/* ---- cmd_extract.c: draining a session, shared with record and stream ---- */

/* Where drained records go: a trace file (cli_trace_sink()), a stream. */
struct cli_sink {
	int (*put)(void *ctx, const struct ketw_record *rec); /* 0, -errno */
	void *ctx;
	const char *name;	/* for messages: the file, the peer */
};

struct cli_drain {
	struct cli_sink sink;	/* where the records go */
	int sink_err;		/* its error (-errno), which stopped the drain */
	unsigned int nr_cpus;
	bool use_read;		/* read() rather than mmap */
	struct ketw_mmap *m;	/* mmap: one per CPU (meta NULL: none) */
	uint64_t records;
	uint64_t bytes;		/* their spans */
	uint64_t bad_cpu;	/* records naming a CPU the session lacks */
	uint64_t total;		/* bytes pending at the start, for progress */
	uint64_t raced;		/* LOOP: records writers took while we copied */
	bool endless;		/* record: progress without a total */
	struct cli_progress progress;
};

/*
 * Set up the drain of session @name (@fd attached, read-write) into
 * @sink: unless @use_read, the mappings. 0, or 1 after a message;
 * cli_drain_end() in either case.
 */
int cli_drain_begin(struct cli_drain *d, int fd, const char *name,
		    const struct ketw_session_attr *attr, bool use_read,
		    const struct cli_sink *sink);
/*
 * One pass: what every CPU has committed now (mmap), or what is pending
 * plus a buffer per CPU (read(), @st and @valid the counters now).
 * 0, or 1 after a message.
 */
int cli_drain_pass(struct cli_drain *d, int fd, const char *name,
		   const struct ketw_session_attr *attr,
		   const struct ketw_cpu_stats *st, const bool *valid);
/* Unmap. */
void cli_drain_end(struct cli_drain *d);
/* Print the summary of a drain written to @path (extract, record). */
void cli_drain_summary(const struct cli_drain *d, const char *name,
		       const char *path, const struct ketw_session_attr *attr,
		       const struct ketw_cpu_stats *st);

#endif /* _KETW_CLI_H */
