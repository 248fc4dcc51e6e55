/*
 * referee-helper: the bot's supervisor and launcher, compiled.
 *
 * The same two programs as supervise.py and launch.py beside this file, with the same command
 * lines and the same behaviour (their docstrings say what each step is for):
 *
 *   referee-helper supervise CONTROL_FD [--thaw PATH VALUE]... -- STATUS_FD OPTION... -- ARGV...
 *   referee-helper launch STATUS_FD OPTION... -- ARGV...
 *   referee-helper sandbox OPTION... -- COMMAND...      (sandbox.c: namespaces, private view)
 *
 * Why a compiled copy: each bot is started through a supervisor and, in the sandbox, an inner
 * launcher; as Python programs they cost two interpreter starts per bot (the supervisor and the
 * launcher's code in its child about 31 ms of CPU, the inner launcher 17 ms more: close to half of
 * what a tournament game of two instant bots cost the referee). Compiled, the two cost about
 * 2 ms. The referee compiles this once per machine (referee/isolation/native.py) and falls
 * back to the Python programs where no C compiler is found.
 *
 * One difference on purpose: before executing the bot, every signal is set back to its default
 * action and unblocked, as a bot started by a shell or by Python's subprocess gets it. (A Python
 * launcher would hand on the SIGPIPE and SIGXFSZ that its own interpreter ignores.)
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* sandbox.c: the namespaces and private view (`referee-helper sandbox`), and a network
   namespace of its own for a bot that runs without them. */
int sandbox_main(char **args);
int private_network(const char **failed);
/* kernel.c: the session keyring, its user's keys, its own mounts, the filter. */
int join_session_keyring(const char **failed);
int clear_user_keys(long uid, const char **failed);
int private_mounts(const char *const *places, int place_count, const char *const *keep,
                   int keep_count, const char *const *readonly, int readonly_count,
                   int own_proc_wanted, const char *const *masked, int masked_count,
                   const char **failed);
int own_domain(unsigned long long handled_fs, unsigned long long scoped, const char **failed);
int install_filter(const char *hex, const char **failed);

#define EXIT_LAUNCH_FAILED 127
#define KILL_ROUNDS_LIMIT_NS (10LL * 1000 * 1000 * 1000) /* a tree that will not die: left */
#define MAX_THAW 16
#define MAX_CGROUPS 16
#define MAX_RLIMITS 32
#define MAX_PLACES 16   /* kernel.c's MAX_PLACES */
#define MAX_KEPT 64     /* kernel.c's MAX_KEPT */
#define MAX_READONLY 64 /* any number: bound by path, nothing kept open */
#define MAX_MASKED 16   /* entries of its own /proc shown empty */
#define MAX_TREE 65536

static const int PARKED_FDS[2] = {100, 101}; /* launch.py's PARKED_FDS */

/* -- the launcher ---------------------------------------------------------------------------- */

struct rlimit_option {
    const char *name;
    int resource;
    rlim_t soft;
    rlim_t hard;
    int hard_is_soft; /* `-`: the hard limit is the soft one */
};

struct launch_spec {
    const char *stage; /* only | outer | inner */
    int has_uid, has_gid;
    long uid, gid;
    int no_network; /* --network none: a network namespace of its own (root only) */
    int private_ipc; /* --ipc private: an IPC namespace of its own (root only) */
    const char *places[2 * MAX_PLACES]; /* --place SOURCE PLACE: a mount namespace of its own */
    int place_count;
    const char *keep[MAX_KEPT]; /* --keep PATH */
    int keep_count;
    const char *readonly[MAX_READONLY]; /* --readonly FOLDER */
    int readonly_count;
    int own_proc; /* --proc NAME,...: a /proc of its own, these entries shown empty */
    const char *masked[MAX_MASKED];
    int masked_count;
    int has_landlock; /* --landlock FS,SCOPED: a Landlock domain of its own */
    unsigned long long landlock_fs, landlock_scoped;
    const char *seccomp; /* --seccomp HEX: the system-call filter's program */
    const char *cgroups[MAX_CGROUPS];
    int cgroup_count;
    struct rlimit_option rlimits[MAX_RLIMITS];
    int rlimit_count;
    char **argv;
};

static const struct {
    const char *name;
    int resource;
} RLIMIT_NAMES[] = {
    {"RLIMIT_AS", RLIMIT_AS},         {"RLIMIT_CORE", RLIMIT_CORE},
    {"RLIMIT_CPU", RLIMIT_CPU},       {"RLIMIT_DATA", RLIMIT_DATA},
    {"RLIMIT_FSIZE", RLIMIT_FSIZE},   {"RLIMIT_MEMLOCK", RLIMIT_MEMLOCK},
    {"RLIMIT_NOFILE", RLIMIT_NOFILE}, {"RLIMIT_NPROC", RLIMIT_NPROC},
    {"RLIMIT_RSS", RLIMIT_RSS},       {"RLIMIT_STACK", RLIMIT_STACK},
};

static void write_all(int fd, const char *text) {
    size_t left = strlen(text);
    while (left > 0) {
        ssize_t done = write(fd, text, left);
        if (done < 0 && errno == EINTR) continue;
        if (done <= 0) return; /* nobody to tell: the exit code still says it */
        text += done;
        left -= (size_t)done;
    }
}

/* One line to the status pipe (`infra: ...` or `start: ...`) and to stderr; exit 127. */
static void fail(int status_fd, const char *kind, const char *message) {
    char line[2048];
    snprintf(line, sizeof line, "%s: %s\n", kind, message);
    write_all(status_fd, line);
    write_all(2, "referee-launch: ");
    write_all(2, line);
    _exit(EXIT_LAUNCH_FAILED);
}

static void usage(const char *what) {
    write_all(2, "usage: referee-helper supervise CONTROL_FD [--thaw PATH VALUE]... -- "
                 "STATUS_FD OPTION... -- ARGV...\n"
                 "       referee-helper launch STATUS_FD OPTION... -- ARGV...\n(");
    write_all(2, what);
    write_all(2, ")\n");
    _exit(2);
}

static int parse_int(const char *text, long *value) {
    char *end;
    errno = 0;
    long long parsed = strtoll(text, &end, 10);
    if (errno || end == text || *end) return 0;
    *value = (long)parsed;
    return 1;
}

static int parse_limit(const char *text, rlim_t *value) {
    long parsed;
    if (!parse_int(text, &parsed) || parsed < 0) return 0;
    *value = (rlim_t)parsed;
    return 1;
}

/* launch.py's parse_options: the options up to `--`, then ARGV. */
static void parse_launch(char **args, struct launch_spec *spec) {
    memset(spec, 0, sizeof *spec);
    spec->stage = "only";
    int at = 0;
    while (args[at] && strcmp(args[at], "--") != 0) {
        const char *option = args[at];
        if (strcmp(option, "--rlimit") == 0) {
            if (!args[at + 1] || !args[at + 2] || !args[at + 3]) usage("--rlimit NAME SOFT HARD");
            if (spec->rlimit_count == MAX_RLIMITS) usage("too many --rlimit");
            struct rlimit_option *limit = &spec->rlimits[spec->rlimit_count++];
            limit->name = args[at + 1];
            limit->resource = -1;
            for (size_t i = 0; i < sizeof RLIMIT_NAMES / sizeof RLIMIT_NAMES[0]; i++)
                if (strcmp(RLIMIT_NAMES[i].name, limit->name) == 0)
                    limit->resource = RLIMIT_NAMES[i].resource;
            if (limit->resource < 0) usage("unknown resource limit");
            if (!parse_limit(args[at + 2], &limit->soft)) usage("bad soft limit");
            limit->hard_is_soft = strcmp(args[at + 3], "-") == 0;
            if (!limit->hard_is_soft && !parse_limit(args[at + 3], &limit->hard))
                usage("bad hard limit");
            at += 4;
            continue;
        }
        if (strcmp(option, "--place") == 0) {
            if (!args[at + 1] || !args[at + 2]) usage("--place SOURCE PLACE");
            if (spec->place_count == MAX_PLACES) usage("too many --place");
            spec->places[2 * spec->place_count] = args[at + 1];
            spec->places[2 * spec->place_count + 1] = args[at + 2];
            spec->place_count++;
            at += 3;
            continue;
        }
        const char *value = args[at + 1];
        if (!value) usage("an option without its value");
        if (strcmp(option, "--cgroup") == 0) {
            if (spec->cgroup_count == MAX_CGROUPS) usage("too many --cgroup");
            spec->cgroups[spec->cgroup_count++] = value;
        } else if (strcmp(option, "--readonly") == 0) {
            if (spec->readonly_count == MAX_READONLY) usage("too many --readonly");
            spec->readonly[spec->readonly_count++] = value;
        } else if (strcmp(option, "--proc") == 0) {
            spec->own_proc = 1;
            for (char *name = strtok(args[at + 1], ","); name; name = strtok(NULL, ",")) {
                if (spec->masked_count == MAX_MASKED) usage("too many --proc entries");
                spec->masked[spec->masked_count++] = name;
            }
        } else if (strcmp(option, "--uid") == 0) {
            if (!parse_int(value, &spec->uid)) usage("bad --uid");
            spec->has_uid = 1;
        } else if (strcmp(option, "--gid") == 0) {
            if (!parse_int(value, &spec->gid)) usage("bad --gid");
            spec->has_gid = 1;
        } else if (strcmp(option, "--stage") == 0) {
            spec->stage = value;
        } else if (strcmp(option, "--network") == 0) {
            if (strcmp(value, "none") != 0) usage("only --network none");
            spec->no_network = 1;
        } else if (strcmp(option, "--ipc") == 0) {
            if (strcmp(value, "private") != 0) usage("only --ipc private");
            spec->private_ipc = 1;
        } else if (strcmp(option, "--keep") == 0) {
            if (spec->keep_count == MAX_KEPT) usage("too many --keep");
            spec->keep[spec->keep_count++] = value;
        } else if (strcmp(option, "--landlock") == 0) {
            char *comma, *end;
            spec->landlock_fs = strtoull(value, &comma, 10);
            if (comma == value || *comma != ',') usage("bad --landlock");
            spec->landlock_scoped = strtoull(comma + 1, &end, 10);
            if (end == comma + 1 || *end) usage("bad --landlock");
            spec->has_landlock = 1;
        } else if (strcmp(option, "--seccomp") == 0) {
            spec->seccomp = value;
        } else {
            usage("unknown option");
        }
        at += 2;
    }
    if (!args[at] || !args[at + 1]) usage("nothing to execute");
    spec->argv = &args[at + 1];
}

static void join_cgroups(int status_fd, const struct launch_spec *spec) {
    char message[1024];
    for (int i = 0; i < spec->cgroup_count; i++) {
        int fd = open(spec->cgroups[i], O_WRONLY | O_CLOEXEC);
        if (fd < 0 || write(fd, "0", 1) != 1) {
            snprintf(message, sizeof message, "cannot join cgroup %s: %s", spec->cgroups[i],
                     strerror(errno));
            fail(status_fd, "infra", message);
        }
        close(fd);
    }
}

static void set_limits(int status_fd, const struct launch_spec *spec) {
    char message[256];
    for (int i = 0; i < spec->rlimit_count; i++) {
        const struct rlimit_option *limit = &spec->rlimits[i];
        struct rlimit current;
        if (getrlimit(limit->resource, &current) != 0) current.rlim_max = RLIM_INFINITY;
        rlim_t hard = limit->hard_is_soft ? limit->soft : limit->hard;
        /* Without privileges a hard limit can only be lowered: keep within the current one. */
        if (geteuid() != 0 && current.rlim_max != RLIM_INFINITY && hard > current.rlim_max)
            hard = current.rlim_max;
        struct rlimit wanted = {limit->soft < hard ? limit->soft : hard, hard};
        if (setrlimit(limit->resource, &wanted) != 0) {
            snprintf(message, sizeof message, "cannot set %s to %llu: %s", limit->name,
                     (unsigned long long)limit->soft, strerror(errno));
            fail(status_fd, "infra", message);
        }
    }
}

static void drop_privileges(int status_fd, const struct launch_spec *spec) {
    if (!spec->has_uid) return;
    gid_t gid = (gid_t)(spec->has_gid ? spec->gid : spec->uid);
    if (setgroups(0, NULL) != 0 || setgid(gid) != 0 || setuid((uid_t)spec->uid) != 0) {
        char message[256];
        snprintf(message, sizeof message, "cannot switch to user %ld: %s", spec->uid,
                 strerror(errno));
        fail(status_fd, "infra", message);
    }
}

/* Whether execvp would find `program` and may run it (checked inside the sandbox). */
static int executable(const char *program) {
    if (strchr(program, '/')) return access(program, X_OK) == 0;
    const char *path = getenv("PATH");
    if (!path) path = "/bin:/usr/bin"; /* Python's os.defpath */
    char candidate[PATH_MAX];
    for (const char *start = path;; ) {
        const char *end = strchr(start, ':');
        size_t length = end ? (size_t)(end - start) : strlen(start);
        if (length == 0)
            snprintf(candidate, sizeof candidate, "./%s", program);
        else
            snprintf(candidate, sizeof candidate, "%.*s/%s", (int)length, start, program);
        if (access(candidate, X_OK) == 0) return 1;
        if (!end) return 0;
        start = end + 1;
    }
}

static void park_stdio(void) {
    int null = open("/dev/null", O_RDWR);
    for (int std = 0; std < 2; std++) {
        dup2(std, PARKED_FDS[std]);
        dup2(null, std);
    }
    close(null);
}

static void unpark_stdio(void) {
    for (int std = 0; std < 2; std++) {
        dup2(PARKED_FDS[std], std);
        close(PARKED_FDS[std]);
    }
}

static void default_signals(void) {
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    for (int number = 1; number < NSIG; number++)
        if (number != SIGKILL && number != SIGSTOP) signal(number, SIG_DFL);
}

/* A kernel step that failed: `failed` says which, errno why; the machine's fault. */
static void kernel_failed(int status_fd, const char *failed) {
    char message[512];
    snprintf(message, sizeof message, "%s: %s", failed, strerror(errno));
    fail(status_fd, "infra", message);
}

static void set_inheritable(int fd, int inheritable) {
    int flags = fcntl(fd, F_GETFD);
    if (flags < 0) return;
    fcntl(fd, F_SETFD, inheritable ? (flags & ~FD_CLOEXEC) : (flags | FD_CLOEXEC));
}

/* launch.py's run(): confine this process, then become ARGV. Never returns. */
static void launch(int status_fd, const struct launch_spec *spec) {
    int outer = strcmp(spec->stage, "outer") == 0, inner = strcmp(spec->stage, "inner") == 0;
    char message[PATH_MAX + 256];
    if (outer)
        park_stdio(); /* before the limits: a low open-files limit must not stop it */
    else if (inner)
        unpark_stdio();
    join_cgroups(status_fd, spec);
    set_limits(status_fd, spec);
    const char *failed;
    if (spec->no_network && private_network(&failed) != 0) kernel_failed(status_fd, failed);
    if (spec->private_ipc && unshare(CLONE_NEWIPC) != 0)
        kernel_failed(status_fd, "cannot make namespaces of its own");
    if (spec->place_count > 0 || spec->readonly_count > 0 || spec->own_proc) {
        char cwd[PATH_MAX];
        if (!getcwd(cwd, sizeof cwd)) kernel_failed(status_fd, "cannot tell its folder");
        if (private_mounts(spec->places, spec->place_count, spec->keep, spec->keep_count,
                           spec->readonly, spec->readonly_count, spec->own_proc, spec->masked,
                           spec->masked_count, &failed) != 0)
            kernel_failed(status_fd, failed);
        /* The folder at its path in the new view, not the one covered. */
        if (chdir(cwd) != 0) kernel_failed(status_fd, "cannot enter its folder again");
    }
    if (!outer) {
        if (!spec->seccomp) fail(status_fd, "infra", "no system-call filter was given for the bot");
        umask(077); /* what the bot writes is its own (bwrap sets its own modes) */
        /* As root: the keyring counts against root's quota, not the bot user's. */
        if (join_session_keyring(&failed) != 0) kernel_failed(status_fd, failed);
    }
    drop_privileges(status_fd, spec);
    if (!outer && spec->has_uid && clear_user_keys(spec->uid, &failed) != 0)
        kernel_failed(status_fd, failed);
    /* The inner launcher reports through the status pipe too; the bot never sees it. */
    set_inheritable(status_fd, outer);
    /* No other process within its reach (landlock.py). */
    if (!outer && spec->has_landlock &&
        own_domain(spec->landlock_fs, spec->landlock_scoped, &failed) != 0)
        kernel_failed(status_fd, failed);
    /* Before `ready`: a filter that cannot be installed is reported. */
    if (!outer && install_filter(spec->seccomp, &failed) != 0) kernel_failed(status_fd, failed);
    const char *program = spec->argv[0];
    if (inner) {
        if (!executable(program)) {
            /* The referee found the program and its user may run it: hidden by the sandbox's
               plan, which is the referee's fault (void), never the bot's (launch.py). */
            snprintf(message, sizeof message, "'%s' cannot be executed inside the sandbox",
                     program);
            fail(status_fd, "infra", message);
        }
        write_all(status_fd, "ready\n");
    }
    default_signals();
    execvp(program, spec->argv);
    snprintf(message, sizeof message, "cannot execute '%s': %s", program, strerror(errno));
    fail(status_fd, outer ? "infra" : "start", message);
}

static int launch_main(char **args) {
    long status_fd;
    if (!args[0] || !parse_int(args[0], &status_fd)) usage("STATUS_FD");
    struct launch_spec spec;
    parse_launch(&args[1], &spec);
    launch((int)status_fd, &spec);
    return EXIT_LAUNCH_FAILED;
}

/* -- the supervisor -------------------------------------------------------------------------- */

static int wake_write = -1;

static void on_child(int number) {
    (void)number;
    int saved = errno;
    ssize_t ignored = write(wake_write, "c", 1); /* a full pipe already says it */
    (void)ignored;
    errno = saved;
}

/* The children of `pid` (those of each of its threads) appended to `found`, up to `room`. */
static int children_of(pid_t pid, pid_t *found, int count, int room) {
    char path[96];
    snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
    DIR *tasks = opendir(path);
    if (!tasks) return count;
    struct dirent *task;
    while ((task = readdir(tasks)) != NULL) {
        if (task->d_name[0] == '.') continue;
        snprintf(path, sizeof path, "/proc/%d/task/%.32s/children", (int)pid, task->d_name);
        FILE *children = fopen(path, "re");
        if (!children) continue;
        int child;
        while (count < room && fscanf(children, "%d", &child) == 1) found[count++] = child;
        fclose(children);
    }
    closedir(tasks);
    return count;
}

/* Every descendant of `pid`, each once. */
static int descendants(pid_t pid, pid_t *tree, int room) {
    int count = children_of(pid, tree, 0, room);
    for (int next = 0; next < count; next++) {
        int before = count;
        count = children_of(tree[next], tree, count, room);
        /* A pid seen twice (re-parented while we looked) is kept once. */
        for (int i = before; i < count; i++)
            for (int j = 0; j < i; j++)
                if (tree[j] == tree[i]) {
                    tree[i--] = tree[--count];
                    break;
                }
    }
    return count;
}

struct ended {
    pid_t pid;
    int status;
};

/* Reap every child that has ended; the bot's status is kept in `bot_status` when it is one. */
static void reap(pid_t bot, int *bot_status, int *bot_ended) {
    for (;;) {
        int status;
        pid_t pid = waitpid(-1, &status, WNOHANG);
        if (pid <= 0) return;
        if (pid == bot && !*bot_ended) {
            *bot_status = status;
            *bot_ended = 1;
        }
    }
}

static void thaw(char **thaw_files, int thaw_count) {
    for (int i = 0; i < thaw_count; i++) {
        int fd = open(thaw_files[2 * i], O_WRONLY | O_CLOEXEC);
        if (fd < 0) continue;
        write_all(fd, thaw_files[2 * i + 1]);
        close(fd);
    }
}

static long long now_ns(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return now.tv_sec * 1000000000LL + now.tv_nsec;
}

/* SIGKILL every descendant until none is left (a killed process cannot fork any more, and what
   it orphans comes to us, so this converges). */
static void kill_tree(char **thaw_files, int thaw_count, pid_t bot, int *status, int *ended) {
    static pid_t tree[MAX_TREE];
    thaw(thaw_files, thaw_count);
    long long deadline = now_ns() + KILL_ROUNDS_LIMIT_NS;
    while (now_ns() < deadline) {
        int count = descendants(getpid(), tree, MAX_TREE);
        reap(bot, status, ended);
        if (count == 0) break;
        for (int i = 0; i < count; i++) kill(tree[i], SIGKILL);
        struct timespec pause = {0, 1000000};
        nanosleep(&pause, NULL);
    }
    reap(bot, status, ended);
}

/* Drop the bot's standard streams and the launcher's status pipe: only the bot holds them. */
static void let_go_of_descriptors(int keep1, int keep2, int keep3) {
    int null = open("/dev/null", O_RDWR);
    for (int std = 0; std < 3; std++) dup2(null, std);
    if (null > 2) close(null);
    DIR *fds = opendir("/proc/self/fd");
    if (!fds) return;
    int own = dirfd(fds);
    int listed[4096], count = 0;
    struct dirent *entry;
    while ((entry = readdir(fds)) != NULL && count < 4096) {
        long fd;
        if (parse_int(entry->d_name, &fd)) listed[count++] = (int)fd;
    }
    closedir(fds);
    for (int i = 0; i < count; i++) {
        int fd = listed[i];
        if (fd > 2 && fd != keep1 && fd != keep2 && fd != keep3 && fd != own) close(fd);
    }
}

/* Exit with the bot's wait status: its exit code, or death by its signal (no core file). */
static void exit_like(int ended, int status) {
    if (!ended) _exit(0);
    if (WIFSIGNALED(status)) {
        int number = WTERMSIG(status);
        struct rlimit none = {0, 0};
        setrlimit(RLIMIT_CORE, &none);
        signal(number, SIG_DFL);
        sigset_t just;
        sigemptyset(&just);
        sigaddset(&just, number);
        sigprocmask(SIG_UNBLOCK, &just, NULL);
        kill(getpid(), number);
        _exit(128 + number);
    }
    _exit(WEXITSTATUS(status));
}

static int supervise_main(char **args) {
    long control_fd;
    if (!args[0] || !parse_int(args[0], &control_fd)) usage("CONTROL_FD");
    char *thaw_files[2 * MAX_THAW];
    int at = 1, thaw_count = 0;
    while (args[at] && strcmp(args[at], "--thaw") == 0) {
        if (!args[at + 1] || !args[at + 2]) usage("--thaw PATH VALUE");
        if (thaw_count == MAX_THAW) usage("too many --thaw");
        thaw_files[2 * thaw_count] = args[at + 1];
        thaw_files[2 * thaw_count + 1] = args[at + 2];
        thaw_count++;
        at += 3;
    }
    if (!args[at] || strcmp(args[at], "--") != 0) usage("no launcher arguments");
    char **launch_args = &args[at + 1];
    long status_fd;
    if (!launch_args[0] || !parse_int(launch_args[0], &status_fd)) usage("STATUS_FD");
    struct launch_spec spec;
    parse_launch(&launch_args[1], &spec);

    if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0)
        write_all(2, "referee-supervise: cannot become a subreaper\n");
    int wake[2];
    if (pipe2(wake, O_NONBLOCK | O_CLOEXEC) != 0) usage("no pipe");
    wake_write = wake[1];
    struct sigaction child_action;
    memset(&child_action, 0, sizeof child_action);
    child_action.sa_handler = on_child;
    child_action.sa_flags = SA_RESTART | SA_NOCLDSTOP;
    sigaction(SIGCHLD, &child_action, NULL);
    signal(SIGPIPE, SIG_IGN);
    /* Only the control socket ends a supervisor. */
    signal(SIGINT, SIG_IGN);
    signal(SIGTERM, SIG_IGN);
    signal(SIGHUP, SIG_IGN);

    pid_t bot = fork();
    if (bot < 0) usage("cannot fork");
    if (bot == 0) {
        close((int)control_fd);
        close(wake[0]);
        close(wake[1]);
        setpgid(0, 0); /* the freezer's and the referee's signals go to the bot, not to us */
        default_signals();
        launch((int)status_fd, &spec); /* executes the bot; never returns */
        _exit(EXIT_LAUNCH_FAILED);
    }
    let_go_of_descriptors((int)control_fd, wake[0], wake[1]);

    struct pollfd waiting[2] = {{(int)control_fd, POLLIN, 0}, {wake[0], POLLIN, 0}};
    int status = 0, ended = 0;
    for (;;) {
        /* poll, not select: a referee running hundreds of bots hands out descriptor numbers
           above select's limit of 1024. */
        if (poll(waiting, 2, -1) < 0) {
            if (errno == EINTR) continue;
            break;
        }
        if (waiting[1].revents) {
            char drained[256];
            while (read(wake[0], drained, sizeof drained) > 0) continue;
        }
        reap(bot, &status, &ended);
        if (ended) break;
        if (waiting[0].revents) {
            char said[64];
            ssize_t got = read((int)control_fd, said, sizeof said - 1);
            if (got < 0 && (errno == EINTR || errno == EAGAIN)) continue;
            if (got <= 0) break;
            said[got] = 0;
            if (memmem(said, (size_t)got, "kill", 4)) break;
        }
    }
    kill_tree(thaw_files, thaw_count, bot, &status, &ended);
    exit_like(ended, status);
    return 0;
}

int main(int argc, char **argv) {
    (void)argc;
    if (argv[1] && strcmp(argv[1], "supervise") == 0) return supervise_main(&argv[2]);
    if (argv[1] && strcmp(argv[1], "launch") == 0) return launch_main(&argv[2]);
    if (argv[1] && strcmp(argv[1], "sandbox") == 0) return sandbox_main(&argv[2]);
    usage("supervise, launch or sandbox");
    return 2;
}
