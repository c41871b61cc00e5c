/* The compile server's native client: `wgc server --launcher FILE` builds FILE from this source.

Stage: a whole process, in place of Python's start (`wgc.launcher` compiles it with the C compiler,
baking in `launcher_config.h`: the interpreter, its `-c` program, the launcher's id, the mark, the
command that writes it again).
Input: the command line, the environment, the current folder, the umask, the resource limits, the
signal dispositions and standard streams of this process; the launcher's pointer file in the
user's server folder (`wgc.server.native`), written there by this launcher's Python program.
Output: the exit status of the command a warm compile server ran for it (or the end by its
signal), exactly as `wgc.server.client` would have; otherwise the process becomes the launcher's
Python program (`execv`), with the same words, streams and environment, which does the rest.

Invariants:
- It runs only the common case: standard input, output and error open, a served command
  (`compile`, `inspect`, dxc-style words), asked for (--server, $WGC_SERVER), no cache asked (--cache, $WGC_CACHE, $WGC_CACHE_BASEDIR), no
  $WGC_SERVER_TIMEOUT, a private server folder, a pointer file of this user whose environment
  (the PYTHON*, LC_* and LANG* variables) and standard streams (open, terminal) are this
  process's, a server of this user that takes the command. Anything else, before GO, is the
  Python program's to do: nothing was run, and the command goes on as through a script launcher.
- The request is what the Python client would send (`wgc.server.client.run`), but its
  "fingerprint" is None: the server reads wgc's files itself for it (the client does not know
  how Python lists them) and refuses it when they changed.
- Signals: SIGINT, SIGTERM or SIGHUP before RUNNING end the process with 128 + N (nothing ran);
  after it they are forwarded as SIGNAL messages. A command whose process died without a report,
  or by a signal this client did not forward, is reported by the Python program (WG0029).
- Strings travel as marshal's 'u' (UTF-8): a word, folder or variable that is not valid UTF-8
  goes the Python way (whose file-system encoding decides).
*/

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "launcher_config.h"

extern char **environ;

/* What `wgc.launcher` recognises as one of its launchers (it replaces only those). */
__attribute__((used)) static const char launcher_mark[] = WGC_MARK;

enum { HEADER = 5, MAX_REPLY = 1 << 20, POINTER_MAX = 1 << 16, SUN_PATH_MAX = 100 };
static const double DEFAULT_TIMEOUT = 10.0;  /* protocol.DEFAULT_TIMEOUT_SECONDS */
static const int POLL_MS = 1000;             /* client.POLL_SECONDS */

static int word_count;
static char **words;
static volatile sig_atomic_t running;        /* RUNNING came: signals are the command's */
static int signal_pipe[2] = {-1, -1};
static const int forwarded_signals[] = {SIGINT, SIGTERM, SIGHUP};

/* ---- going the Python way */

static struct sigaction previous_actions[3];
static int caught;                           /* `catch_signals` ran: `previous_actions` hold */

/* The dispositions this process came with (an ignored signal stays ignored in the Python program). */
static void restore_signals(void)
{
    for (size_t i = 0; caught && i < sizeof forwarded_signals / sizeof *forwarded_signals; i++)
        sigaction(forwarded_signals[i], &previous_actions[i], NULL);
}

/* Become the launcher's Python program: `mode` and `extra` are its first words (see
   `wgc.server.native.main`), then this process's argv[0] and words. */
static void __attribute__((noreturn)) python(const char *mode, const char *extra, const char *more)
{
    char **args = calloc((size_t)word_count + 9, sizeof *args);
    if (args != NULL) {
        int n = 0;
        args[n++] = (char *)WGC_PYTHON;
        args[n++] = (char *)"-S";
        args[n++] = (char *)"-c";
        args[n++] = (char *)WGC_PYTHON_CODE;
        args[n++] = (char *)mode;
        args[n++] = (char *)extra;
        args[n++] = (char *)more;
        for (int i = 0; i < word_count; i++)
            args[n++] = words[i];
        args[n] = NULL;
        restore_signals();
        execv(WGC_PYTHON, args);
    }
    int err = errno;
    static const char head[] = "error: this wgc launcher's Python cannot be run (";
    static const char again[] = "); write it again with " WGC_AGAIN " [WG0090]\n1 error generated.\n";
    const char *why = strerror(err);
    ssize_t ignored = write(2, head, sizeof head - 1);
    ignored = write(2, WGC_PYTHON, strlen(WGC_PYTHON));
    ignored = write(2, ": ", 2);
    ignored = write(2, why, strlen(why));
    ignored = write(2, again, sizeof again - 1);
    (void)ignored;
    _exit(1);
}

static const char *environment_hex = "-";

static void __attribute__((noreturn)) fall_back(void)
{
    python("serve", environment_hex, WGC_LAUNCHER_ID);
}

static void __attribute__((noreturn)) compile_here(void)
{
    python("local", "-", "-");
}

static void __attribute__((noreturn)) out_of_memory(void)
{
    if (!running)
        fall_back();
    static const char text[] = "error: the wgc launcher ran out of memory\n1 error generated.\n";
    ssize_t ignored = write(2, text, sizeof text - 1);
    (void)ignored;
    _exit(1);
}

/* ---- growing buffers and marshal's format (the version-2 subset: no references) */

typedef struct {
    unsigned char *data;
    size_t size, capacity;
} buffer;

static void put(buffer *b, const void *data, size_t size)
{
    if (b->size + size > b->capacity) {
        size_t capacity = b->capacity ? b->capacity : 4096;
        while (capacity < b->size + size)
            capacity *= 2;
        unsigned char *grown = realloc(b->data, capacity);
        if (grown == NULL)
            out_of_memory();
        b->data = grown;
        b->capacity = capacity;
    }
    memcpy(b->data + b->size, data, size);
    b->size += size;
}

static void put_byte(buffer *b, unsigned char c) { put(b, &c, 1); }

static void put_u32(buffer *b, uint32_t v)
{
    unsigned char bytes[4] = {v & 0xff, (v >> 8) & 0xff, (v >> 16) & 0xff, (v >> 24) & 0xff};
    put(b, bytes, 4);
}

static void put_int(buffer *b, long long value)
{
    if (value >= INT32_MIN && value <= INT32_MAX) {
        put_byte(b, 'i');
        put_u32(b, (uint32_t)(int32_t)value);
        return;
    }
    /* marshal's long: 15-bit digits, little end first, their count signed as the number */
    uint16_t parts[5];
    int count = 0;
    unsigned long long magnitude = value < 0 ? 0ULL - (unsigned long long)value : (unsigned long long)value;
    while (magnitude) {
        parts[count++] = magnitude & 0x7fff;
        magnitude >>= 15;
    }
    put_byte(b, 'l');
    put_u32(b, (uint32_t)(int32_t)(value < 0 ? -count : count));
    for (int i = 0; i < count; i++) {
        unsigned char two[2] = {parts[i] & 0xff, parts[i] >> 8};
        put(b, two, 2);
    }
}

/* Whether `text[0:size]` is UTF-8 as Python decodes it strictly (no surrogates, no overlong forms). */
static int utf8(const unsigned char *text, size_t size)
{
    size_t i = 0;
    while (i < size) {
        unsigned char c = text[i];
        if (c < 0x80) {
            i++;
            continue;
        }
        size_t more;
        uint32_t point;
        if (c >= 0xc2 && c <= 0xdf) {
            more = 1;
            point = c & 0x1f;
        } else if (c >= 0xe0 && c <= 0xef) {
            more = 2;
            point = c & 0x0f;
        } else if (c >= 0xf0 && c <= 0xf4) {
            more = 3;
            point = c & 0x07;
        } else {
            return 0;
        }
        if (i + more >= size)
            return 0;
        for (size_t k = 1; k <= more; k++) {
            if ((text[i + k] & 0xc0) != 0x80)
                return 0;
            point = (point << 6) | (text[i + k] & 0x3f);
        }
        if ((more == 2 && point < 0x800) || (more == 3 && (point < 0x10000 || point > 0x10ffff))
            || (point >= 0xd800 && point <= 0xdfff))
            return 0;
        i += more + 1;
    }
    return 1;
}

static void put_text(buffer *b, const char *text, size_t size)
{
    if (!utf8((const unsigned char *)text, size))
        fall_back();
    put_byte(b, 'u');
    put_u32(b, (uint32_t)size);
    put(b, text, size);
}

static void put_string(buffer *b, const char *text) { put_text(b, text, strlen(text)); }

/* ---- the environment: the variables Python's start reads, and the request's copy */

static int startup_variable(const char *entry)
{
    return strncmp(entry, "PYTHON", 6) == 0 || strncmp(entry, "LC_", 3) == 0 || strncmp(entry, "LANG", 4) == 0;
}

static int by_entry(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static const char *value_of(const char *name) { return getenv(name); }

/* "name=value\0" of each startup variable, in order, as hex; NULL where the environment names a
   variable twice (Python keeps the first; the request's dict would differ). */
static char *startup_environment(void)
{
    size_t count = 0, size = 0;
    for (char **e = environ; *e; e++)
        count++;
    char **names = calloc(count + 1, sizeof *names);
    if (names == NULL)
        return NULL;
    size_t kept = 0;
    for (char **e = environ; *e; e++) {
        if (strchr(*e, '=') == NULL)
            continue;
        if (startup_variable(*e)) {
            names[kept++] = *e;
            size += strlen(*e) + 1;
        }
    }
    qsort(names, kept, sizeof *names, by_entry);
    char *hex = malloc(size * 2 + 2);
    if (hex == NULL)
        return NULL;
    char *out = hex;
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < kept; i++) {
        const unsigned char *p = (const unsigned char *)names[i];
        size_t length = strlen(names[i]) + 1;
        for (size_t k = 0; k < length; k++) {
            *out++ = digits[p[k] >> 4];
            *out++ = digits[p[k] & 15];
        }
    }
    *out = 0;
    if (kept == 0) {
        hex[0] = '_';     /* an empty word would not survive some callers: "_" is no variable */
        hex[1] = 0;
    }
    free(names);
    return hex;
}

/* ---- the command's words */

static int in(const char *word, const char *const *set)
{
    for (; *set; set++)
        if (strcmp(word, *set) == 0)
            return 1;
    return 0;
}

static int has_word(const char *word)
{
    for (int i = 1; i < word_count; i++)
        if (strcmp(words[i], word) == 0)
            return 1;
    return 0;
}

static int switched_on(const char *value)
{
    if (value == NULL)
        return 0;
    while (*value == ' ' || *value == '\t' || *value == '\n' || *value == '\r' || *value == '\f' || *value == '\v')
        value++;
    size_t n = strlen(value);
    while (n && (value[n - 1] == ' ' || value[n - 1] == '\t' || value[n - 1] == '\n' || value[n - 1] == '\r'
                 || value[n - 1] == '\f' || value[n - 1] == '\v'))
        n--;
    static const char *const on[] = {"1", "yes", "true", "on", NULL};
    for (const char *const *v = on; *v; v++) {
        if (strlen(*v) != n)
            continue;
        size_t k = 0;
        while (k < n && (value[k] | 0x20) == (*v)[k])
            k++;
        if (k == n)
            return 1;
    }
    return 0;
}

/* Whether the Python client's `wanted` holds, and nothing asks for what only Python does. */
static int common_case(void)
{
    static const char *const not_commands[] = {"--version", "-h", "--help", "-help", NULL};
    static const char *const served[] = {"compile", "inspect", NULL};
    static const char *const commands[] = {"compile", "inspect", "run", "cache", "server", "samples", "man", "lsp", NULL};
    if (word_count < 2 || in(words[1], not_commands))
        return 0;
    if (!in(words[1], served) && in(words[1], commands))
        return 0;
    if (has_word("--no-server") || has_word("--cache"))
        return 0;
    if (!has_word("--server") && !switched_on(value_of("WGC_SERVER")))
        return 0;
    const char *cache = value_of("WGC_CACHE"), *base = value_of("WGC_CACHE_BASEDIR"), *timeout = value_of("WGC_SERVER_TIMEOUT");
    if ((cache && *cache) || (base && *base) || (timeout && *timeout))
        return 0;
    for (int i = 1; i < word_count; i++)       /* /dev/fd/N, /proc/self: `client.names_own_descriptor` decides */
        if (strstr(words[i], "fd") || strstr(words[i], "self"))
            return 0;
    return 1;
}

/* ---- the server folder and the pointer */

static char *joined(const char *a, const char *b)
{
    size_t n = strlen(a), m = strlen(b);
    char *out = malloc(n + m + 2);
    if (out == NULL)
        fall_back();
    memcpy(out, a, n);
    out[n] = '/';
    memcpy(out + n + 1, b, m + 1);
    return out;
}

/* `identity.cache_folder()`, where it is an absolute path without "." or ".." parts to normalise;
   NULL otherwise (the Python way). */
static char *cache_folder(void)
{
    const char *dir = value_of("WGC_CACHE_DIR"), *xdg = value_of("XDG_CACHE_HOME"), *home = value_of("HOME");
    char *path;
    if (dir && *dir)
        path = strdup(dir);
    else if (xdg && *xdg)
        path = joined(xdg, "wgc");
    else if (home && *home && strcmp(home, "/") != 0) {
        char *cache = joined(home, ".cache");
        path = joined(cache, "wgc");
        free(cache);
    } else
        return NULL;
    if (path == NULL || path[0] != '/' || strstr(path, "//") || strstr(path, "/./") || strstr(path, "/../"))
        return NULL;
    size_t n = strlen(path);
    if (n >= 2 && (strcmp(path + n - 2, "/.") == 0 || (n >= 3 && strcmp(path + n - 3, "/..") == 0)))
        return NULL;
    if (n > 1 && path[n - 1] == '/')
        path[n - 1] = 0;
    return path;
}

typedef struct {
    char *key;          /* the server's key (hex) */
    char *environment;  /* the startup variables it was written under (hex) */
    char *adopted;      /* those variables as Python had them after its start ("name=value\0"...) */
    size_t adopted_size;
    char *streams;      /* per standard stream: open, terminal ("11 10 10") */
    unsigned char *stdio; /* the request's "stdio" value, marshalled */
    size_t stdio_size;
} pointer;

static int from_hex(const char *hex, size_t length, unsigned char *out)
{
    if (length % 2)
        return 0;
    for (size_t i = 0; i < length; i += 2) {
        int v = 0;
        for (int k = 0; k < 2; k++) {
            char c = hex[i + k];
            v <<= 4;
            if (c >= '0' && c <= '9')
                v |= c - '0';
            else if (c >= 'a' && c <= 'f')
                v |= c - 'a' + 10;
            else
                return 0;
        }
        out[i / 2] = (unsigned char)v;
    }
    return 1;
}

/* The next line of `*text` (NUL-terminated in place), or NULL. */
static char *line(char **text)
{
    char *start = *text, *end = strchr(start, '\n');
    if (end == NULL)
        return NULL;
    *end = 0;
    *text = end + 1;
    return start;
}

/* Read the launcher's pointer (see `wgc.server.native`): a regular file of this user, not a link,
   writable by no one else; 0 when there is none to trust. */
static int read_pointer(const char *folder, pointer *p)
{
    char *path = joined(folder, "launcher-" WGC_LAUNCHER_ID);
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    free(path);
    if (fd < 0)
        return 0;
    struct stat info;
    if (fstat(fd, &info) != 0 || !S_ISREG(info.st_mode) || info.st_uid != getuid() || (info.st_mode & 022)
        || info.st_size <= 0 || info.st_size > POINTER_MAX) {
        close(fd);
        return 0;
    }
    char *text = malloc((size_t)info.st_size + 1);
    size_t got = 0;
    while (text && got < (size_t)info.st_size) {
        ssize_t n = read(fd, text + got, (size_t)info.st_size - got);
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    close(fd);
    if (text == NULL || got != (size_t)info.st_size)
        return 0;
    text[got] = 0;
    char *cursor = text, *head = line(&cursor);
    if (head == NULL || strcmp(head, "wgc launcher pointer 1") != 0)
        return 0;
    p->key = line(&cursor);
    p->environment = line(&cursor);
    char *adopted = line(&cursor);
    p->streams = line(&cursor);
    char *stdio = line(&cursor);
    if (!p->key || !p->environment || !adopted || !p->streams || !stdio)
        return 0;
    size_t key_length = strlen(p->key);
    if (key_length == 0 || key_length > 64 || strspn(p->key, "0123456789abcdef") != key_length)
        return 0;
    size_t a = strlen(adopted), s = strlen(stdio);
    p->adopted = malloc(a / 2 + 1);
    p->stdio = malloc(s / 2 + 1);
    if (!p->adopted || !p->stdio || !from_hex(adopted, a, (unsigned char *)p->adopted) || !from_hex(stdio, s, p->stdio))
        return 0;
    p->adopted_size = a / 2;
    p->stdio_size = s / 2;
    return 1;
}

/* "11 10 10": per standard stream, open and a terminal. */
static void stream_states(char out[9])
{
    for (int fd = 0; fd < 3; fd++) {
        struct stat info;
        int open_ = fstat(fd, &info) == 0;
        out[fd * 3] = open_ ? '1' : '0';
        out[fd * 3 + 1] = open_ && isatty(fd) ? '1' : '0';
        out[fd * 3 + 2] = fd < 2 ? ' ' : 0;
    }
}

/* ---- the request (`wgc.server.client.run`'s dict) */

static void put_environment(buffer *b, const pointer *p)
{
    size_t count = 0;
    for (char **e = environ; *e; e++)
        count++;
    char **kept = calloc(count + 1, sizeof *kept);
    if (kept == NULL)
        fall_back();
    size_t n = 0;
    for (char **e = environ; *e; e++) {
        char *equals = strchr(*e, '=');
        if (equals == NULL || startup_variable(*e))
            continue;
        size_t name = (size_t)(equals - *e);
        for (size_t k = 0; k < n; k++)      /* Python keeps a name's first value; so be it, the Python way */
            if (strncmp(kept[k], *e, name + 1) == 0)
                fall_back();
        kept[n++] = *e;
    }
    put_byte(b, '{');
    for (size_t k = 0; k < n; k++) {
        char *equals = strchr(kept[k], '=');
        put_text(b, kept[k], (size_t)(equals - kept[k]));
        put_string(b, equals + 1);
    }
    for (size_t at = 0; at < p->adopted_size;) {   /* the startup variables as Python's start left them */
        const char *entry = p->adopted + at;
        size_t length = strnlen(entry, p->adopted_size - at);
        const char *equals = memchr(entry, '=', length);
        if (equals == NULL || at + length >= p->adopted_size)
            fall_back();
        put_text(b, entry, (size_t)(equals - entry));
        put_text(b, equals + 1, length - (size_t)(equals - entry) - 1);
        at += length + 1;
    }
    put_byte(b, '0');
    free(kept);
}

static void put_limits(buffer *b)
{
    static const struct { const char *name; int resource; } limits[] = {
        {"RLIMIT_CORE", RLIMIT_CORE}, {"RLIMIT_CPU", RLIMIT_CPU}, {"RLIMIT_FSIZE", RLIMIT_FSIZE},
        {"RLIMIT_DATA", RLIMIT_DATA}, {"RLIMIT_STACK", RLIMIT_STACK}, {"RLIMIT_NOFILE", RLIMIT_NOFILE},
        {"RLIMIT_AS", RLIMIT_AS},
    };
    put_byte(b, '{');
    for (size_t i = 0; i < sizeof limits / sizeof *limits; i++) {
        struct rlimit limit;
        if (getrlimit(limits[i].resource, &limit) != 0)
            fall_back();
        put_string(b, limits[i].name);
        put_byte(b, '(');
        put_u32(b, 2);
        put_int(b, limit.rlim_cur == RLIM_INFINITY ? -1 : (long long)limit.rlim_cur);   /* resource.RLIM_INFINITY */
        put_int(b, limit.rlim_max == RLIM_INFINITY ? -1 : (long long)limit.rlim_max);
    }
    put_byte(b, '0');
}

/* The catchable signals this process ignores, and those Python ignores at its start (SIGPIPE,
   SIGXFSZ): what the Python client's `_ignored_signals` reads. */
static void put_ignored(buffer *b)
{
    int numbers[128], n = 0;
    for (int s = 1; s < NSIG && n < 128; s++) {
        struct sigaction old;
        if (s == SIGKILL || s == SIGSTOP || sigaction(s, NULL, &old) != 0)
            continue;
        for (size_t i = 0; caught && i < sizeof forwarded_signals / sizeof *forwarded_signals; i++)
            if (forwarded_signals[i] == s)
                old = previous_actions[i];       /* as this process came, before `catch_signals` */
        if (old.sa_handler == SIG_IGN || s == SIGPIPE || s == SIGXFSZ)
            numbers[n++] = s;
    }
    put_byte(b, '[');
    put_u32(b, (uint32_t)n);
    for (int i = 0; i < n; i++)
        put_int(b, numbers[i]);
}

static void request(buffer *b, const pointer *p)
{
    char folder[4096];
    if (getcwd(folder, sizeof folder) == NULL || strstr(folder, "fd") || strstr(folder, "self"))
        fall_back();
    mode_t mask = umask(022);
    umask(mask);
    put_byte(b, '{');
    put_string(b, "fingerprint");
    put_byte(b, 'N');
    put_string(b, "argv");
    put_byte(b, '[');
    put_u32(b, (uint32_t)(word_count - 1));
    for (int i = 1; i < word_count; i++)
        put_string(b, words[i]);
    put_string(b, "argv0");
    put_string(b, words[0]);
    put_string(b, "cwd");
    put_string(b, folder);
    put_string(b, "env");
    put_environment(b, p);
    put_string(b, "umask");
    put_int(b, mask);
    put_string(b, "limits");
    put_limits(b);
    put_string(b, "stdio");
    put(b, p->stdio, p->stdio_size);
    put_string(b, "ignored");
    put_ignored(b);
    put_byte(b, '0');
}

/* ---- messages (`protocol.send`/`receive`) */

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec / 1e9;
}

/* Wait until `fd` is readable or writable (`events`), at most `wait_ms` (-1: as long as it takes);
   1 ready (or an error to find by the call that follows), 0 not in time. */
static int ready(int fd, short events, int wait_ms)
{
    struct pollfd p = {fd, events, 0};
    for (;;) {
        int r = poll(&p, 1, wait_ms);
        if (r >= 0)
            return r > 0;
        if (errno != EINTR)
            return 1;
    }
}

static int deadline_ms(double deadline)
{
    double left = deadline - now();
    return left <= 0 ? 0 : (int)(left * 1000) + 1;
}

/* Send one message; 0 when it could not be sent whole before `deadline`. */
static int send_message(int connection, char kind, const unsigned char *body, size_t size, const int *fds, int fd_count,
                        double deadline)
{
    buffer message = {0};
    put_byte(&message, (unsigned char)kind);
    unsigned char length[4] = {(size >> 24) & 0xff, (size >> 16) & 0xff, (size >> 8) & 0xff, size & 0xff};
    put(&message, length, 4);
    put(&message, body, size);
    size_t sent = 0;
    while (sent < message.size) {
        if (!ready(connection, POLLOUT, deadline_ms(deadline))) {
            free(message.data);
            return 0;
        }
        struct iovec part = {message.data + sent, message.size - sent};
        struct msghdr header = {0};
        header.msg_iov = &part;
        header.msg_iovlen = 1;
        union {
            char space[CMSG_SPACE(3 * sizeof(int))];
            struct cmsghdr align;
        } control;
        if (sent == 0 && fd_count > 0) {          /* the descriptors travel with the first byte */
            memset(&control, 0, sizeof control);
            header.msg_control = control.space;
            header.msg_controllen = CMSG_SPACE((size_t)fd_count * sizeof(int));
            struct cmsghdr *c = CMSG_FIRSTHDR(&header);
            c->cmsg_level = SOL_SOCKET;
            c->cmsg_type = SCM_RIGHTS;
            c->cmsg_len = CMSG_LEN((size_t)fd_count * sizeof(int));
            memcpy(CMSG_DATA(c), fds, (size_t)fd_count * sizeof(int));
        }
        ssize_t n = sendmsg(connection, &header, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n < 0) {
            if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)
                continue;
            free(message.data);
            return 0;
        }
        sent += (size_t)n;
    }
    free(message.data);
    return 1;
}

/* Read exactly `size` bytes (descriptors that come along are closed); 1 done, 0 end of
   connection or an error, -1 not in time. */
static int read_exactly(int connection, unsigned char *out, size_t size, double deadline)
{
    size_t got = 0;
    while (got < size) {
        if (!ready(connection, POLLIN, deadline < 0 ? -1 : deadline_ms(deadline)))
            return -1;
        struct iovec part = {out + got, size - got};
        union {
            char space[CMSG_SPACE(8 * sizeof(int))];
            struct cmsghdr align;
        } control;
        struct msghdr header = {0};
        header.msg_iov = &part;
        header.msg_iovlen = 1;
        header.msg_control = control.space;
        header.msg_controllen = sizeof control.space;
        ssize_t n = recvmsg(connection, &header, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
        if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK))
            continue;
        for (struct cmsghdr *c = n > 0 ? CMSG_FIRSTHDR(&header) : NULL; c; c = CMSG_NXTHDR(&header, c)) {
            if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
                int fd;
                for (size_t k = 0; k + sizeof fd <= c->cmsg_len - CMSG_LEN(0); k += sizeof fd) {
                    memcpy(&fd, CMSG_DATA(c) + k, sizeof fd);
                    close(fd);
                }
            }
        }
        if (n <= 0)
            return 0;
        got += (size_t)n;
    }
    return 1;
}

typedef struct {
    char kind;
    unsigned char *body;
    size_t size;
} message;

/* 1 a message, 0 the connection ended or broke, -1 none before `deadline`. */
static int receive_message(int connection, message *m, double deadline)
{
    unsigned char head[HEADER];
    int r = read_exactly(connection, head, 1, deadline);
    if (r != 1)
        return r;
    if (read_exactly(connection, head + 1, HEADER - 1, deadline) != 1)
        return 0;
    size_t size = ((size_t)head[1] << 24) | ((size_t)head[2] << 16) | ((size_t)head[3] << 8) | head[4];
    if (size > MAX_REPLY)
        return 0;
    free(m->body);
    m->body = malloc(size ? size : 1);
    if (m->body == NULL || read_exactly(connection, m->body, size, deadline) != 1)
        return 0;
    m->kind = (char)head[0];
    m->size = size;
    return 1;
}

/* ---- reading the replies' bodies: an int, or a tuple of a string and an int */

typedef struct {
    const unsigned char *at, *end;
} reader;

static int read_u32(reader *r, uint32_t *v)
{
    if (r->end - r->at < 4)
        return 0;
    *v = (uint32_t)r->at[0] | (uint32_t)r->at[1] << 8 | (uint32_t)r->at[2] << 16 | (uint32_t)r->at[3] << 24;
    r->at += 4;
    return 1;
}

static int read_int(reader *r, long long *value)
{
    if (r->at >= r->end)
        return 0;
    unsigned char type = *r->at++ & 0x7f;      /* (0x80: marshal's reference flag) */
    uint32_t v;
    if (type != 'i' || !read_u32(r, &v))
        return 0;
    *value = (int32_t)v;
    return 1;
}

/* A short string into `out` (at most 15 bytes, NUL-terminated). */
static int read_short_text(reader *r, char out[16])
{
    if (r->at >= r->end)
        return 0;
    unsigned char type = *r->at++ & 0x7f;
    uint32_t length;
    if (type == 'z' || type == 'Z') {
        if (r->at >= r->end)
            return 0;
        length = *r->at++;
    } else if (type == 'a' || type == 'A' || type == 'u' || type == 't') {
        if (!read_u32(r, &length))
            return 0;
    } else {
        return 0;
    }
    if (length > 15 || (size_t)(r->end - r->at) < length)
        return 0;
    memcpy(out, r->at, length);
    out[length] = 0;
    r->at += length;
    return 1;
}

static int read_tuple_of_two(reader *r)
{
    if (r->at >= r->end)
        return 0;
    unsigned char type = *r->at++ & 0x7f;
    if (type == ')')
        return r->at < r->end && *r->at++ == 2;
    uint32_t n;
    return type == '(' && read_u32(r, &n) && n == 2;
}

/* ---- signals */

static void on_signal(int number)
{
    if (!running)
        _exit(128 + number);             /* nothing ran: as `client._Signalled` */
    int saved = errno;
    unsigned char byte = (unsigned char)number;
    ssize_t ignored = write(signal_pipe[1], &byte, 1);
    (void)ignored;
    errno = saved;
}

static void catch_signals(void)
{
    if (pipe(signal_pipe) != 0)
        fall_back();
    for (int k = 0; k < 2; k++) {
        fcntl(signal_pipe[k], F_SETFD, FD_CLOEXEC);
        fcntl(signal_pipe[k], F_SETFL, O_NONBLOCK);
    }
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = on_signal;
    sigemptyset(&action.sa_mask);
    for (size_t i = 0; i < sizeof forwarded_signals / sizeof *forwarded_signals; i++)
        sigaction(forwarded_signals[i], &action, &previous_actions[i]);
    caught = 1;
}

static int forwarded[NSIG];

static void forward_pending(int connection)
{
    unsigned char number;
    while (read(signal_pipe[0], &number, 1) == 1) {
        forwarded[number % NSIG] = 1;
        buffer body = {0};
        put_int(&body, number);
        send_message(connection, 'K', body.data, body.size, NULL, 0, now() + 1.0);
        free(body.data);
    }
}

/* Whether process `pid` still runs (not a zombie): `client._alive`. */
static int alive(long long pid)
{
    char path[64], text[512];
    snprintf(path, sizeof path, "/proc/%lld/stat", pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        ssize_t n = read(fd, text, sizeof text - 1);
        close(fd);
        if (n > 0) {
            text[n] = 0;
            char *close_paren = strrchr(text, ')');
            if (close_paren && close_paren[1] == ' ')
                return close_paren[2] != 'Z' && close_paren[2] != 'X';
        }
        return 1;
    }
    if (errno == ENOENT && access("/proc/self", F_OK) == 0)
        return 0;
    return !(kill((pid_t)pid, 0) != 0 && errno == ESRCH);
}

static void __attribute__((noreturn)) end_by_signal(int number)
{
    signal(number, SIG_DFL);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, number);
    sigprocmask(SIG_UNBLOCK, &set, NULL);
    kill(getpid(), number);
    _exit(128 + number);
}

/* ---- the exchange */

int main(int argc, char **argv)
{
    word_count = argc;
    words = argv;
    for (int fd = 0; fd < 3; fd++) {     /* a closed standard stream: the Python way, before any descriptor */
        struct stat stream;              /* of this process could take its number */
        if (fstat(fd, &stream) != 0)
            fall_back();
    }
    catch_signals();                     /* then: a signal from now on ends or reaches the command in order */
    if (argc < 1 || !common_case())
        fall_back();
    char *hex = startup_environment();
    if (hex == NULL)
        fall_back();
    environment_hex = hex;
    char *cache = cache_folder();
    if (cache == NULL)
        fall_back();
    char uid_name[32];
    snprintf(uid_name, sizeof uid_name, "server-%u", (unsigned)getuid());
    char *folder = joined(cache, uid_name);
    struct stat info;
    if (lstat(folder, &info) != 0 || !S_ISDIR(info.st_mode) || info.st_uid != getuid() || (info.st_mode & 077))
        fall_back();
    pointer p = {0};
    if (!read_pointer(folder, &p) || strcmp(p.environment, environment_hex) != 0)
        fall_back();
    char states[9];
    stream_states(states);
    if (strcmp(states, p.streams) != 0)
        fall_back();

    buffer body = {0};
    request(&body, &p);

    char *socket_name = malloc(strlen(p.key) + 6);
    if (socket_name == NULL)
        fall_back();
    sprintf(socket_name, "%s.sock", p.key);
    char *socket_path = joined(folder, socket_name);
    struct sockaddr_un address = {0};
    address.sun_family = AF_UNIX;
    if (strlen(socket_path) > SUN_PATH_MAX) {     /* through a descriptor of the folder (`protocol.Address`) */
        int folder_fd = open(folder, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (folder_fd < 0 || fstat(folder_fd, &info) != 0 || info.st_uid != getuid() || (info.st_mode & 077))
            fall_back();
        free(socket_path);
        socket_path = malloc(strlen(socket_name) + 40);
        if (socket_path == NULL)
            fall_back();
        sprintf(socket_path, "/proc/self/fd/%d/%s", folder_fd, socket_name);
        if (strlen(socket_path) >= sizeof address.sun_path)
            fall_back();
    }
    memcpy(address.sun_path, socket_path, strlen(socket_path) + 1);

    double timeout = DEFAULT_TIMEOUT, deadline = now() + timeout;
    int connection = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (connection < 0)
        fall_back();
    struct timeval limit = {(time_t)timeout, 0};
    setsockopt(connection, SOL_SOCKET, SO_SNDTIMEO, &limit, sizeof limit);
    if (connect(connection, (struct sockaddr *)&address, sizeof address) != 0) {
        if (errno == EAGAIN || errno == EINPROGRESS || errno == ETIMEDOUT)
            compile_here();              /* one listens but does not accept: it is stalled */
        fall_back();                     /* none listens: the Python client starts one */
    }
    struct ucred peer;
    socklen_t peer_size = sizeof peer;
    if (getsockopt(connection, SOL_SOCKET, SO_PEERCRED, &peer, &peer_size) != 0 || peer.uid != getuid())
        fall_back();
    if (!send_message(connection, 'C', body.data, body.size, NULL, 0, deadline))
        fall_back();
    message m = {0};
    int got = receive_message(connection, &m, deadline);
    if (got < 0)
        compile_here();                  /* not taken in time */
    if (got == 0 || m.kind != 'P')
        fall_back();                     /* closed, refused: nothing ran */
    reader r = {m.body, m.body + m.size};
    long long pid;
    if (!read_int(&r, &pid))
        fall_back();
    running = 1;
    int fds[3], fd_count = 0;
    for (int fd = 0; fd < 3; fd++)
        if (states[fd * 3] == '1')
            fds[fd_count++] = fd;
    forward_pending(connection);
    if (!send_message(connection, 'G', (const unsigned char *)"N", 1, fds, fd_count, now() + timeout)) {
        for (int s = 1; s < NSIG; s++)
            if (forwarded[s])
                _exit(128 + s);
        fall_back();                     /* it never got GO: nothing ran */
    }

    /* the command runs: wait for its end (`client._wait`) */
    char pid_text[32], number_text[32];
    snprintf(pid_text, sizeof pid_text, "%lld", pid);
    double gone_since = -1;
    for (;;) {
        struct pollfd watched[2] = {{connection, POLLIN, 0}, {signal_pipe[0], POLLIN, 0}};
        int r2 = poll(watched, 2, POLL_MS);
        if (r2 < 0 && errno != EINTR)
            python("lost", pid_text, "-");
        if (r2 > 0 && watched[1].revents)
            forward_pending(connection);
        if (r2 > 0 && watched[0].revents) {
            int got2 = receive_message(connection, &m, -1);
            if (got2 != 1)
                python("lost", pid_text, "-");
            reader body_reader = {m.body, m.body + m.size};
            if (m.kind == 'R')            /* the child gave up before GO reached it: nothing ran */
                fall_back();
            if (m.kind != 'X')
                continue;
            char how[16];
            long long number;
            if (!read_tuple_of_two(&body_reader) || !read_short_text(&body_reader, how)
                || !read_int(&body_reader, &number))
                python("lost", pid_text, "-");
            if (strcmp(how, "signal") == 0) {
                if (number <= 0 || number >= NSIG)
                    python("lost", pid_text, "-");
                if (!forwarded[number]) {
                    snprintf(number_text, sizeof number_text, "%lld", number);
                    python("signal", pid_text, number_text);
                }
                end_by_signal((int)number);
            }
            _exit((int)(number & 0xff));
        }
        if (r2 == 0) {
            if (alive(pid))
                gone_since = -1;
            else if (gone_since < 0)
                gone_since = now();
            else if (now() - gone_since > timeout)
                python("lost", pid_text, "-");
        }
    }
}
