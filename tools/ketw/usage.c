// SPDX-License-Identifier: GPL-2.0
/*
 * ketw: the usage table, one entry per command.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const struct {
	const char *cmd;
	const char *text;
} ketw_usage[] = {
	{ NULL,
"usage: ketw COMMAND [OPTIONS]\n"
"\n"
"Control ketw tracing sessions (through /dev/ketw) and read their traces.\n"
"A session lives in the kernel from 'start' until 'reset'.\n"
"\n"
"commands:\n"
"@COMMANDS@"
"\n"
"'ketw help COMMAND' or 'ketw COMMAND --help' describes a command.\n"
"Exit status: 0 success, 1 runtime error, 2 usage error, 3 (report) a\n"
"trace file cut short, printed up to its last complete section.\n"
"Environment: KETW_DEVICE names the device node (default /dev/ketw).\n" },

	{ "start",
"usage: ketw start [-s NAME] [-b KB] [-l LEVEL] [-k MATCH_ANY] [-K MATCH_ALL]\n"
"                  [-m MAX_DATA] [-P POLICY] [-C CLOCK] [-w PERCENT]\n"
"                  [--no-rundown] [--items ITEM,...]\n"
"                  [-p PROVIDER[:LEVEL[:KEYWORDS[/ALLMASK]]][:ITEM,...]]...\n"
"                  [-x PROVIDER:ID[,ID...]]...\n"
"                  [--trigger PROVIDER:ID[:LEVEL] [--trigger-field F=V]]...\n"
"                  [--action wake|stop|snapshot] [--post MS] [--interval MS]\n"
"                  [--pid PID[,PID...]]... [--inherit]\n"
"\n"
"Create session NAME and start it. The session outlives this command: stop\n"
"it with 'ketw stop', save it with 'ketw extract', remove it with 'ketw reset'.\n"
"On a stopped session NAME, 'ketw start -s NAME' (with --pid or not) starts\n"
"it again: its buffers keep their records, new ones follow a START record.\n"
"\n"
"  -s NAME       session name (default \"ketw\"): 1-31 of A-Z a-z 0-9 _ . -\n"
"  -b KB         per-CPU buffer in KiB (4..262144, rounded up to a power of\n"
"                two; default 1024)\n"
"  -l LEVEL      highest level taken: critical, error, warning, info,\n"
"                verbose, all, or 0..5 (default all)\n"
"  -k MATCH_ANY  take events having any of these keyword bits (0 = any)\n"
"  -K MATCH_ALL  and all of these keyword bits (0 = no condition)\n"
"  -m MAX_DATA   payload bytes kept per event; longer ones are cut and\n"
"                flagged TRUNCATED (1..65464, default 4096)\n"
"  -P POLICY     when a buffer is full: loop (overwrite the oldest, the\n"
"                default), until-full (stop the session), flush (drop\n"
"                and count, for a streaming reader)\n"
"  -C CLOCK      timestamps: mono (default), boot, local\n"
"  -w PERCENT    watermark: poll() reports the session readable once a\n"
"                per-CPU buffer is this full (1..100, default 50)\n"
"  --no-rundown  do not log the rundown after starting (the providers,\n"
"                their event layouts and the tasks, which 'ketw report'\n"
"                decodes payloads with); for small flight recorders\n"
"  --items ITEM,...\n"
"                extended data items the records carry (without -p):\n"
"                stack (kernel stack), ustack (user stack), cputime\n"
"                (thread's kernel, user and run time), progaddr (the\n"
"                trace point's address), pidns (pid, tid and pid\n"
"                namespace as the task sees them), activity\n"
"  -p, --provider PROVIDER[:LEVEL[:KEYWORDS[/ALLMASK]]][:ITEM,...]\n"
"                take this provider's events, with its own filter\n"
"                (repeatable, at most 64). Without -p the session takes\n"
"                every provider with the filter of -l, -k and -K; with -p\n"
"                it takes only the providers given. PROVIDER is a name or\n"
"                a GUID (8-4-4-4-12 hex digits; 'ketw list' shows them);\n"
"                LEVEL as -l; KEYWORDS the match_any mask, ALLMASK the\n"
"                match_all mask. A part left out (or empty, as in\n"
"                ketw-sample::0x1) comes from -l, -k or -K. ITEMs as\n"
"                --items, for this provider (ketw-sample:info:stack,cputime).\n"
"  -x, --filter-out PROVIDER:ID[,ID...]\n"
"                filter these event ids of a provider given with -p out\n"
"                (a POSIX trace event set: ids 0..1023). An ID is a\n"
"                number, a range A-B, or an event's name. Repeatable.\n"
"  --trigger PROVIDER:ID[:LEVEL]\n"
"                arm a trigger: when PROVIDER logs event ID (at LEVEL or\n"
"                more severe), the kernel logs a TRIGGER record after it\n"
"                and does --action (repeatable, at most 16)\n"
"  --trigger-field FIELD=VALUE\n"
"                and only when the event's integer field FIELD holds\n"
"                VALUE (for the --trigger before it)\n"
"  --action A    what the triggers do: snapshot (default: a snapshot is\n"
"                ready --post ms later, for 'ketw snapshot' or a reader\n"
"                polling for POLLPRI), stop (the session, --post ms\n"
"                later), wake (the session's readers)\n"
"  --post MS     the delay of stop and snapshot (0..60000, default 0)\n"
"  --interval MS the rate limit: a trigger fires at most once per MS ms\n"
"                and counts the matches in between (default 1000)\n"
"  --pid PID[,PID...]\n"
"                take only the events these processes log (ids as this\n"
"                command's pid namespace sees them; repeatable, at most\n"
"                1024), from every provider, in any context; a process\n"
"                leaves when it ends\n"
"  --inherit     and the processes they fork from now on\n"
"\n"
"The providers are enabled before the session starts, so the filters\n"
"apply from its first event. Numbers are decimal or 0x-prefixed\n"
"hexadecimal. Example:\n"
"  ketw start -s net -p ketw-sample:warning -p my-net:verbose:0x1/0x100 \\\n"
"             -x my-net:7,9-12\n" },

	{ "record",
"usage: ketw record [-s NAME] [-b KB] [-l LEVEL] [-k MATCH_ANY] [-K MATCH_ALL]\n"
"                   [-m MAX_DATA] [-P POLICY] [-C CLOCK] [-w PERCENT]\n"
"                   [--no-rundown] [--items ITEM,...]\n"
"                  [-p PROVIDER[:LEVEL[:KEYWORDS[/ALLMASK]]][:ITEM,...]]...\n"
"                   [-x PROVIDER:ID[,ID...]]... [-o FILE] [-d SECONDS]\n"
"                   [-n EVENTS] [--read] [-D] [--rotate-size SIZE]\n"
"                   [--rotate-time TIME]\n"
"       ketw record [start options] --trigger PROVIDER:ID[:LEVEL]\n"
"                   [--trigger-field F=V] [--post MS] [-o FILE] [-d SECONDS]\n"
"\n"
"Create and start session NAME as 'ketw start' does (same options), drain\n"
"its buffers as 'ketw extract' does into FILE (default trace.ketw) as it\n"
"goes, until SIGINT (Ctrl-C), SIGTERM or SIGHUP, -d seconds or -n\n"
"records, then stop it, drain what is left, write the counters and the\n"
"end of FILE, remove the session and exit with status 0. Prints the\n"
"records written and the events lost; on a terminal a progress line\n"
"shows on stderr.\n"
"\n"
"Records go to FILE every 100 ms: record holds at most 256 KiB of them\n"
"per CPU (plus the session's buffers it maps, or with --read a 1 MiB read\n"
"buffer), however long it runs. The\n"
"session is owned by record: if record dies (SIGKILL), the kernel removes\n"
"it, and FILE holds every record up to the last write ('ketw report'\n"
"reads it and says it is truncated).\n"
"\n"
"  -o FILE       the trace file to write\n"
"  -d SECONDS    stop after this many seconds (1..4294967295)\n"
"  -n EVENTS     stop once this many records were drained (the records\n"
"                logged before the stop are written too)\n"
"  --read        drain with read() instead of mapping the buffers\n"
"  -D, --detach  a session that outlives record if it dies (not owned);\n"
"                'ketw reset' removes it then\n"
"  --rotate-size SIZE\n"
"                cut FILE into chunks of about SIZE (bytes, or K, M, G; at\n"
"                least 64K): FILE, then FILE.1.ketw, FILE.2.ketw... (for\n"
"                FILE.ketw; else FILE.1, FILE.2...), each a complete trace\n"
"                file with the counters at its end and the rundown in copy,\n"
"                so that it reads and decodes alone; every record is in\n"
"                exactly one chunk\n"
"  --rotate-time TIME\n"
"                and/or every TIME (seconds, or s, m, h)\n"
"\n"
"With --trigger (and the other trigger options of 'ketw start'), record\n"
"is a flight recorder: the session loops (-P loop), nothing is drained,\n"
"and each time a trigger fires, --post ms later, the records before and\n"
"after it (a snapshot of every CPU's buffer) are written to FILE, the\n"
"next time to FILE.1, then FILE.2, and so on. It waits in poll() for\n"
"POLLPRI until -d seconds or a signal, then removes the session.\n"
"\n"
"Examples:\n"
"  ketw record -p ketw-sample:info -d 10 -o sample.ketw\n"
"  ketw record -p my-drv --trigger my-drv:7:error --post 500 -o crash.ketw\n" },

	{ "stream",
"usage: ketw stream [start options] (-o FILE|- | --to HOST:PORT | --serial DEV)\n"
"                   [-d SECONDS] [-n EVENTS] [--read] [--baud N]\n"
"                   [--backlog KIB] [--linger SECONDS] [--tee FILE]\n"
"       ketw stream -s NAME --attach (-o FILE|- | --to HOST:PORT | --serial DEV)\n"
"                   [-d SECONDS] [-n EVENTS]\n"
"\n"
"Create and start session NAME as 'ketw record' does (the same start\n"
"options) and send its records off the machine as they are drained,\n"
"every 100 ms, each in a frame of its own (Documentation/ketw-stream.rst):\n"
"to FILE or stdout (-o), to a collector such as 'ketw listen' (--to), or\n"
"over a serial line (--serial). Until SIGINT (Ctrl-C), SIGTERM or SIGHUP,\n"
"-d seconds or -n records; then it stops the session, sends what is left,\n"
"the final counters and END, removes the session and exits with status 0,\n"
"or 1 if frames were left unsent. The stream opens with the trace file's\n"
"header, and the rundown follows it, so that a receiver can decode it;\n"
"every second a STATUS frame carries the kernel's counters and the clock.\n"
"\n"
"A TCP peer that goes away is reconnected (after 100 ms, then twice as\n"
"long each time, up to 5 s); meanwhile frames wait in a backlog, and\n"
"what does not fit is dropped and counted in the next STATUS and in END:\n"
"the receiver knows what it did not get, and from where it was lost.\n"
"\n"
"  -o FILE|-      write the frames to FILE, or stdout\n"
"  --to HOST:PORT send them to a collector (HOST a name, an IPv4 address\n"
"                 or [IPv6])\n"
"  --serial DEV   send them over serial line DEV (raw; a FIFO will do);\n"
"                 the PREAMBLE is repeated every second for a receiver\n"
"                 that joins late\n"
"  --baud N       the line's speed (default 115200)\n"
"  -d SECONDS     stop after this many seconds\n"
"  -n EVENTS      stop once this many records were drained\n"
"  --read         drain with read() instead of mapping the buffers\n"
"  --attach       stream session NAME as it is (a rundown is asked first);\n"
"                 it is neither stopped nor removed\n"
"  --backlog KIB  frames a TCP peer may be behind by (128..4194304,\n"
"                 default 4096)\n"
"  --linger SECONDS\n"
"                 at the end, how long to try to send what is left\n"
"                 (default 10; a second signal gives up at once)\n"
"  --tee FILE     also write the records into trace file FILE here, as\n"
"                 'ketw record' would: what the receiver's file must match\n"
"\n"
"Examples:\n"
"  ketw stream -p ketw-sample --to collector:7473\n"
"  ketw stream -p my-drv --serial /dev/ttyS1 -d 60\n" },

	{ "listen",
"usage: ketw listen -o DIR [-a ADDR] [-p PORT] [--serial DEV]... [--baud N]\n"
"                   [-c STREAMS] [--max-conn N] [--max-memory KIB]\n"
"                   [--rotate-size SIZE] [--rotate-time TIME] [-q]\n"
"\n"
"Collect the streams of 'ketw stream' from many machines at once: each\n"
"stream (a sender's session) goes into a trace file of its own in DIR,\n"
"HOST-SESSION-STREAMID.ketw, that 'ketw report' reads, and that holds,\n"
"besides the records, the sender's last counters, its clock (so that\n"
"'ketw report FILE...' merges machines by wall-clock time) and what the\n"
"collector saw of the stream: frames, bad ones, frames missing, and what\n"
"the sender could not send. A stream that comes back over a new\n"
"connection goes on in the same file. Runs until SIGINT, SIGTERM or\n"
"SIGHUP, or -c streams are complete, then closes every file.\n"
"\n"
"It listens on 127.0.0.1 unless told another address; a slow, stalled or\n"
"hostile sender cannot hold up the others (one loop, nothing blocks, a\n"
"share each), and each takes bounded memory.\n"
"\n"
"  -o DIR          where the files go (it must exist)\n"
"  -a ADDR         the address to listen on (default 127.0.0.1; :: or\n"
"                  0.0.0.0 for all)\n"
"  -p PORT         the TCP port (default 7473; 0: any, printed)\n"
"  --serial DEV    read streams from serial line DEV too (or only, without\n"
"                  -a and -p); a FIFO or a file will do\n"
"  --baud N        the lines' speed (default 115200)\n"
"  -c STREAMS      exit once this many streams are complete\n"
"  --max-conn N    connections at most (default 64); more are refused\n"
"  --max-memory KIB\n"
"                  records a stream's writer holds at most (default 1024)\n"
"  --rotate-size SIZE\n"
"                  cut each stream's file into chunks of SIZE (bytes, or\n"
"                  K, M, G): FILE, then FILE.1.ketw, FILE.2.ketw...\n"
"  --rotate-time TIME\n"
"                  and/or every TIME (seconds, or s, m, h)\n"
"  -q              quiet: no line per stream\n"
"\n"
"Examples:\n"
"  ketw listen -o traces/\n"
"  ketw listen -a :: -p 7473 -o traces/ --rotate-size 64M\n"
"  ketw listen --serial /dev/ttyUSB0 -o traces/\n" },

	{ "list",
"usage: ketw list [-p PROVIDER] [--json]\n"
"\n"
"List the registered providers: GUID, name, number of events, the number\n"
"of running sessions that take it now, flags (USER: registered from user\n"
"space). Then each provider's events: id, name, type, level, keyword,\n"
"version, and the fields of its payload (name, type, offset, size; size\n"
"0 for a string or binary field runs to the payload's end).\n"
"\n"
"  -p PROVIDER   only this provider (a name or a GUID)\n"
"  --json        one JSON object: {\"providers\": [{guid, name, nr_events,\n"
"                flags, user, sessions, events: [{id, name, type,\n"
"                type_name, level, level_name, keyword (a hex string),\n"
"                version, fields: [{name, type, offset, size}]}]}]}\n" },

	{ "enable",
"usage: ketw enable [-s NAME] -p PROVIDER[:LEVEL[:KEYWORDS[/ALLMASK]]]...\n"
"                   [-x PROVIDER:ID[,ID...]]... [-l LEVEL] [-k MATCH_ANY]\n"
"                   [-K MATCH_ALL]\n"
"\n"
"Enable providers in session NAME (default \"ketw\"), created or running,\n"
"or replace their filters; -p, -x, -l, -k and -K as for 'ketw start'. A\n"
"session that enables one provider takes only the providers it enables.\n"
"In a running session the kernel logs a FILTER event with the old and\n"
"the new filter of each provider that changed. Prints the filter the\n"
"kernel applies now, and which of the provider's events it takes.\n" },

	{ "disable",
"usage: ketw disable [-s NAME] -p PROVIDER...\n"
"\n"
"Remove providers (names or GUIDs) from session NAME (default \"ketw\").\n"
"A session whose providers are all disabled takes nothing.\n" },

	{ "rundown",
"usage: ketw rundown [-s NAME]\n"
"\n"
"Log a rundown into running session NAME (default \"ketw\"): a PROVIDER\n"
"record per registered provider, an EVENT_DESC record per event (its\n"
"payload layout) and a TASK record per thread, as after 'ketw start'\n"
"(unless --no-rundown). 'ketw report' decodes payloads with them.\n" },

	{ "log",
"usage: ketw log [-g GUID] [-i ID] [-l LEVEL] [-k KEYWORD] [-e EVENT]\n"
"                PROVIDER [MESSAGE...]\n"
"\n"
"Log text events as user-space provider PROVIDER, listed as\n"
"\"user.PROVIDER\", through /dev/ketw_user (root, or the group of ketw's\n"
"user_gid parameter): MESSAGE, its words joined by blanks, as one event;\n"
"without MESSAGE each line of standard input. The provider is registered\n"
"(with libketw's provider API) for the time of the command, with one\n"
"event whose payload is a string field \"text\": running sessions that\n"
"take it log its rundown, so 'ketw report' decodes the text. Events no\n"
"session takes cost no system call. Prints the events and how many\n"
"times sessions stored them.\n"
"\n"
"  -g GUID       the provider's GUID (default: one derived from PROVIDER)\n"
"  -i ID         the event id (default 1)\n"
"  -l LEVEL      its level, as for 'ketw start -l' (default info)\n"
"  -k KEYWORD    its keyword bits (default 0, which every filter takes)\n"
"  -e EVENT      its name (default \"message\")\n"
"\n"
"Environment: KETW_USER_DEVICE names the node (default /dev/ketw_user).\n"
"Example:\n"
"  dmesg | ketw log -l verbose -k 0x4 boot-log\n" },

	{ "stop",
"usage: ketw stop [-s NAME]\n"
"\n"
"Stop tracing in session NAME (default \"ketw\"). Its records stay in its\n"
"buffers for 'ketw extract'. Stopping a session that is not running only\n"
"prints a note.\n" },

	{ "extract",
"usage: ketw extract [-s NAME] [-o FILE] [--read]\n"
"\n"
"Read every record now in the buffers of session NAME (default \"ketw\"),\n"
"consuming them, and write them with the session's attributes and per-CPU\n"
"counters to FILE (default trace.ketw). A running session keeps running:\n"
"what was in the buffers when the extract began is read, records logged\n"
"meanwhile are left for the next extract (LOOP: unless they overwrite\n"
"older ones first).\n"
"\n"
"  -o FILE       the trace file to write\n"
"  --read        drain with read() instead of mapping the buffers (the\n"
"                file is the same; records logged meanwhile may be taken)\n"
"\n"
"The buffers are mapped and consumed in place, without a system call per\n"
"record; only one reader may drain a session at a time. On a terminal a\n"
"progress line shows on stderr when extracting takes long.\n" },

	{ "report",
"usage: ketw report [-N] [-H] [-X] [-R] [-t TEMPLATES]... [--json]\n"
"                   [--provider PROVIDER]... [--level LEVEL] [--cpu N]...\n"
"                   [--pid PID] [--from SECONDS] [--to SECONDS]\n"
"                   [--no-system] [--activity ID] [FILE]\n"
"\n"
"Print trace file FILE (default trace.ketw): a summary (session, host,\n"
"kernel, CPUs, the rundown it holds, per-CPU counts of records and of\n"
"lost events), then every record, merged across CPUs by timestamp (ties:\n"
"lower cpu, then lower seq).\n"
"\n"
"A file cut short (its writer killed, a copy cut) is read up to its last\n"
"complete section: the records are printed, stderr says where the file\n"
"was cut and what was read, and the exit status is 3.\n"
"\n"
"  -N            do not print payloads (system events are still decoded)\n"
"  -H            print only the summary\n"
"  -X, --hex     raw: provider GUIDs instead of names, every payload in\n"
"                hex, rundown records in full\n"
"  -R, --no-rundown\n"
"                do not print the rundown records (they still name\n"
"                providers and decode payloads)\n"
"  -t TEMPLATES  decode payloads with the format templates of this file\n"
"                (Documentation/ketw-templates.rst); repeatable, tried in\n"
"                order, before the rundown's layouts\n"
"  --json        no summary; one JSON object per record and line (JSON\n"
"                Lines): the header fields, provider and event names when\n"
"                known, \"fields\" (an object) when the rundown has the\n"
"                layout, else \"payload\" in hex (-N: neither); a TRIGGER\n"
"                record also has \"trigger\": {id, guid, provider,\n"
"                event_id, cpu, seq, fired, suppressed, action}\n"
"\n"
"Filters, applied to the merged records:\n"
"  --provider PROVIDER  only this provider's events (a name or a GUID;\n"
"                repeatable: any of them)\n"
"  --level LEVEL only events of this level or a more severe one (as -l of\n"
"                'ketw start')\n"
"  --cpu N       only records of this cpu (repeatable: any of them)\n"
"  --pid PID     only events of this process\n"
"  --from SECONDS[.FRACTION], --to SECONDS[.FRACTION]\n"
"                only records at or after, at or before this timestamp\n"
"                of the trace's clock (as ts= shows it)\n"
"  --no-system   leave the system events (and the rundown) out\n"
"  --activity ID only the events of activity ID (a GUID) and of the\n"
"                activities it started, on any thread or CPU\n"
"System events are kept by --provider, --level and --pid; --cpu, --from\n"
"and --to apply to every record.\n"
"\n"
"A record is one line, then its payload:\n"
"  cpu=1 ts=12.000345678 pid=123 tid=124 seq=5 provider=ketw-sample\n"
"      type=10 level=INFO ver=2 id=1 event=tick kw=0x1 len=24\n"
"      [flags=SYSTEM|TRUNCATED|USER|EXT]\n"
"    index=1 magic=0x6b657477 value=4 tail={01 02 03 04 05 06 07 08}\n"
"(the first line is a single line in the output). Extended data items\n"
"come between them, a line each, addresses symbolised when the trace's\n"
"MODULE rundown or /proc/kallsyms (this kernel's trace, root) allow:\n"
"    stack: 0xffffffffc0a010ae sample_emit_one+0xae [ketw_sample] <- ...\n"
"  ts    timestamp in seconds.nanoseconds of the session's clock\n"
"  seq   per-CPU sequence number: a gap means events were lost\n"
"  provider  the provider's name, from the file's rundown (PROVIDER\n"
"        records); without one, guid=8-4-4-4-12\n"
"  type  INFO START END DC_START DC_END EXTENSION REPLY DEQUEUE CHECKPOINT,\n"
"        or the provider's number (10 and up)\n"
"  level CRITICAL ERROR WARNING INFO VERBOSE, or the number\n"
"  id    event id; for system events (flags SYSTEM, all-zero guid) its\n"
"        name: START STOP FILTER OVERFLOW RESUME FLUSH_START FLUSH_STOP ERROR\n"
"  event the event's name, from the rundown (EVENT_DESC records)\n"
"  kw    keyword mask;  len  payload bytes\n"
"A provider event whose layout (same GUID, id and version) is in the\n"
"rundown shows its payload as name=value per field: integers in decimal,\n"
"hex32/hex64 as 0x..., strings quoted, binary as {00 01 ..} (32 bytes at\n"
"most, then ...+N), GUIDs as text; <missing> for a field past the end of\n"
"a cut payload. Other payloads are dumped in hex, 16 bytes a line:\n"
"    0000  00 00 00 00 77 74 65 6b  01 00 00 00 00 00 00 00  |....wtek........|\n"
"System events get a decoded line instead: START (the filter), STOP\n"
"(explicit or by the full policy), OVERFLOW (when the first lost event\n"
"came), RESUME (how many were lost on that cpu), ERROR (the errno's\n"
"name), FILTER (a provider's old and new filter). The rundown records\n"
"take one short line each:\n"
"  cpu=0 ts=1.000000100 seq=1 PROVIDER ketw-sample <guid> events=2 [USER]\n"
"  cpu=0 ts=1.000000200 seq=2 EVENT_DESC ketw-sample id=1 tick ver=2 fields=4\n"
"  cpu=0 ts=1.000000300 seq=3 TASK pid=1 tid=1 comm=init\n" },

	{ "convert",
"usage: ketw convert [FILE] --to chrome|ctf -o OUT\n"
"\n"
"Convert trace file FILE (default trace.ketw) for other viewers\n"
"(Documentation/ketw-viewers.rst):\n"
"\n"
"  --to chrome   the Chrome Trace Event Format (JSON object form) in file\n"
"                OUT (\"-\": stdout), for ui.perfetto.dev and\n"
"                chrome://tracing: process and thread names from the\n"
"                rundown's TASK records, each event an instant with its\n"
"                fields in args, START and END events (types 1 and 2) of\n"
"                one provider, event id and thread paired into durations,\n"
"                losses and OVERFLOW/RESUME as global instants (category\n"
"                ketw.loss), a counter track of events/s per CPU; times in\n"
"                microseconds of the trace clock, ns as 3 decimals\n"
"  --to ctf      CTF 1.8 in directory OUT, for Trace Compass and LTTng's\n"
"                tools, written by babeltrace2 through ketw's plugin:\n"
"                babeltrace2 FILE --output-format=ctf --output OUT\n"
"  -o, --output OUT\n"
"\n"
"A file cut short is converted up to its last complete section (exit 3).\n"
"Example:\n"
"  ketw convert sample.ketw --to chrome -o trace.json\n" },

	{ "plot",
"usage: ketw plot [FILE] -o OUT.svg|OUT.html [--provider PROVIDER]...\n"
"                 [--from SECONDS] [--to SECONDS] [--width PIXELS]\n"
"\n"
"Draw trace file FILE (default trace.ketw) as a timeline picture, an SVG\n"
"file or a self-contained HTML page (nothing is fetched): a lane per CPU\n"
"with its events as ticks coloured by provider (a legend names them),\n"
"START..END spans as bars, the ranges where events were lost shaded red\n"
"with their counts, a time axis, and events per second under the lanes.\n"
"Events are binned by pixel column: a million events make a file of\n"
"tens of KB.\n"
"\n"
"  -o, --output OUT   .svg or .html\n"
"  --provider PROVIDER, --from SECONDS[.FRACTION], --to SECONDS[.FRACTION]\n"
"                only these providers' events (system events stay), only\n"
"                this time range of the trace's clock; as for 'ketw report'\n"
"  --width PIXELS     the picture's width (400..20000, default 1200)\n" },

	{ "show",
"usage: ketw show [-s NAME]\n"
"\n"
"Print the attributes, state and per-CPU counters of session NAME\n"
"(default \"ketw\").\n" },

	{ "status",
"usage: ketw status [-s NAME] [--json]\n"
"\n"
"Without -s, list every session, oldest first, one line each:\n"
"  NAME STATE POLICY CLOCK BUF/CPU PROVIDERS WRITTEN LOST READERS\n"
"(PROVIDERS: how many it enabled, or \"all\" if it never enabled one and\n"
"so takes every provider; READERS: files attached to it). Listing resets\n"
"nothing.\n"
"\n"
"With -s, print the POSIX trace stream status of session NAME:\n"
"  session  running, suspended or created; whether the full policy\n"
"           (until-full) stopped it\n"
"  full     loop: a record was overwritten; until-full, flush: a buffer\n"
"           has no room for the largest record\n"
"  overrun  events were lost or overwritten since the last status\n"
"  flush    whether a flush runs, and the first error of the last one\n"
"           (ETIMEDOUT: no reader drained the session in time)\n"
"  pids     its process filter (start --pid): the processes it takes, as\n"
"           this command's pid namespace sees them, or all\n"
"then the totals over all cpus and the per-CPU counters (as 'ketw show').\n"
"Reading the status resets the overrun status and the flush error.\n"
"\n"
"  --json        without -s, an array of objects: session, state, policy,\n"
"                clock, buffer_kb, nr_cpus, level, max_data_size,\n"
"                all_providers, providers, readers, written, lost,\n"
"                overwritten, memory, creation_time; with -s, one object:\n"
"                session, state, full, overrun, flushing, flush_error,\n"
"                flush_error_name, auto_stopped, nr_cpus, written, lost,\n"
"                overwritten, memory, pids (null without a process\n"
"                filter), pids_inherit, pids_dropped, cpus (an array of\n"
"                counters)\n" },

	{ "snapshot",
"usage: ketw snapshot [-s NAME] -o FILE\n"
"\n"
"Copy the records in every per-CPU buffer of session NAME (default\n"
"\"ketw\") to trace file FILE without consuming them: the session keeps\n"
"running and keeps its records (a flight recorder's view, for loop\n"
"sessions above all). Records overwritten while the kernel copied them\n"
"are left out and counted. Read FILE with 'ketw report'.\n" },

	{ "flush",
"usage: ketw flush [-s NAME]\n"
"\n"
"Have the readers of running session NAME (default \"ketw\") drain what its\n"
"buffers hold now: the kernel logs FLUSH_START, waits until readers\n"
"consumed every record logged before it, and logs FLUSH_STOP. If no\n"
"reader does in time, it logs ERROR and keeps ETIMEDOUT as the flush\n"
"error ('ketw status'), and flush exits with status 1.\n" },

	{ "reset",
"usage: ketw reset [-s NAME]\n"
"       ketw reset --all [-y]\n"
"\n"
"Remove session NAME (default \"ketw\"), stopping it if it runs. Its\n"
"records are lost: extract them first.\n"
"\n"
"  --all         remove every session: ketw names them and asks once on\n"
"                standard input; \"y\" or \"yes\" goes on, anything else\n"
"                (or no input) removes nothing and exits with status 1.\n"
"                A session another program still reads is reported (EBUSY)\n"
"                and kept; the others are removed\n"
"  -y, --yes     with --all: do not ask\n" },

	{ "help",
"usage: ketw help [COMMAND]\n"
"\n"
"Describe ketw, or COMMAND.\n" },
};

const char *cli_usage_text(const char *cmd)
{
	size_t i;

	for (i = 0; i < sizeof(ketw_usage) / sizeof(ketw_usage[0]); i++) {
		if (!cmd && !ketw_usage[i].cmd)
			return ketw_usage[i].text;
		if (cmd && ketw_usage[i].cmd && !strcmp(cmd, ketw_usage[i].cmd))
			return ketw_usage[i].text;
	}
	return NULL;
}

void cli_usage_print(const char *cmd)
{
	static const char mark[] = "@COMMANDS@";
	const char *text = cli_usage_text(cmd);
	const char *at = strstr(text, mark);
	const struct cli_cmd *c;

	if (!at) {
		fputs(text, stdout);
		return;
	}
	/* The general usage lists the command table where the mark is. */
	fwrite(text, 1, at - text, stdout);
	for (c = cli_cmds; c->name; c++)
		printf("  %-9s %s\n", c->name, c->summary);
	fputs(at + strlen(mark), stdout);
}

int cmd_help(int argc, char **argv)
{
	if (argc > 2)
		return cli_usage_error("help", "too many arguments");
	if (argc == 2 && strcmp(argv[1], "--help") && strcmp(argv[1], "-h")) {
		if (!cli_usage_text(argv[1]))
			return cli_usage_error(NULL, "unknown command '%s'",
					       argv[1]);
		cli_usage_print(argv[1]);
		return CLI_EXIT_OK;
	}
	cli_usage_print(argc == 2 ? "help" : NULL);
	return CLI_EXIT_OK;
}
