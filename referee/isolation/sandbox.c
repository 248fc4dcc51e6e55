/*
 * referee-helper sandbox: a bot's own namespaces and its private view of the file system, made by
 * the helper itself (the referee runs as root), with no other program installed.
 *
 *   referee-helper sandbox OPTION... -- COMMAND...
 *
 * The options are the part of bubblewrap's command line that the referee writes, with the same
 * meanings: referee/isolation/sandbox.py writes one plan of the bot's view, and either this
 * program or bwrap carries it out, so a bot sees the same world under both. Processes:
 *
 *   this process (outside)       waits for the sandbox and exits with its status, as bwrap does
 *     init (pid 1 inside)        makes the mounts, then reaps; when the bot ends, init exits with
 *                                the bot's status and the kernel kills whatever is left inside
 *       COMMAND (pid 2)          the inner launcher: it drops to the bot's user and executes it
 *
 * The view is built in a fresh mount namespace: a small tmpfs becomes the root, the machine's root
 * is kept beside it as /oldroot while the plan's operations are carried out in /newroot (sources
 * are read under /oldroot), then /newroot becomes the root and the old one is detached. The
 * referee passes paths with every symbolic link resolved, so a path means the same on both sides.
 *
 * Options (each operation in the order given; --perms and --size apply to the next one):
 *   --unshare-pid --unshare-net --unshare-ipc --unshare-uts --unshare-cgroup   new namespaces (a
 *                                mount namespace always); the network namespace's loopback is
 *                                brought up; the cgroup namespace is rooted at the cgroups this
 *                                process is in (the bot's own, joined by the launcher before)
 *   --die-with-parent            the sandbox dies when the process that started it does
 *   --cap-drop ALL, --cap-add CAP_NAME   the capabilities COMMAND is executed with (as root)
 *   --ro-bind SRC DEST, --ro-bind-try SRC DEST, --bind SRC DEST   bind mounts (recursive),
 *                                nosuid and nodev as bwrap's; --dev-bind SRC DEST is --bind
 *                                where devices work (nosuid only)
 *   --tmpfs DEST, --dir DEST, --perms OCTAL, --size BYTES, --remount-ro DEST
 *   --symlink TARGET DEST        a symbolic link (/bin -> usr/bin)
 *   --dev DEST                   a minimal /dev: null zero full random urandom tty, pts, shm
 *   --proc DEST                  the new pid namespace's /proc (its kernel tunables read-only)
 *   --chdir DIR                  the working directory of COMMAND
 * A failure is one line on stderr ("referee-sandbox: ...") and exit code 1: the referee reads it
 * as a sandbox that could not be set up (the machine's fault, never the bot's).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <limits.h>
#include <unistd.h>

#define BASE "/tmp" /* where the sandbox's own root is mounted, in its namespace only */
#define NEW_ROOT "/newroot"
#define OLD_ROOT "/oldroot"

enum op_kind { OP_BIND, OP_TMPFS, OP_DIR, OP_SYMLINK, OP_REMOUNT_RO, OP_DEV, OP_PROC };

struct op {
    enum op_kind kind;
    const char *source; /* binds; a link's target */
    const char *dest;
    int readonly, optional, devices;
    mode_t perms;
    long long size; /* tmpfs bytes; 0: the kernel's default */
};

struct plan {
    struct op *ops; /* as many as the options could name: no limit but the command line's */
    int count, room;
    int namespaces; /* CLONE_NEW* besides the mount namespace */
    int die_with_parent;
    int drop_caps;
    uint64_t keep_caps;
    const char *chdir;
    char **command;
};

static const struct {
    const char *name;
    int number;
} CAPS[] = {
    {"CAP_CHOWN", CAP_CHOWN},       {"CAP_DAC_OVERRIDE", CAP_DAC_OVERRIDE},
    {"CAP_FOWNER", CAP_FOWNER},     {"CAP_KILL", CAP_KILL},
    {"CAP_SETGID", CAP_SETGID},     {"CAP_SETUID", CAP_SETUID},
    {"CAP_SETPCAP", CAP_SETPCAP},   {"CAP_NET_BIND_SERVICE", CAP_NET_BIND_SERVICE},
    {"CAP_SYS_CHROOT", CAP_SYS_CHROOT},
};

static void die(const char *what, const char *path) {
    char line[PATH_MAX + 256];
    if (path)
        snprintf(line, sizeof line, "referee-sandbox: %s %s: %s\n", what, path, strerror(errno));
    else
        snprintf(line, sizeof line, "referee-sandbox: %s\n", what);
    ssize_t ignored = write(2, line, strlen(line)); /* nobody else to tell; the exit code says it */
    (void)ignored;
    _exit(1);
}

static void usage(const char *what) {
    errno = 0;
    char line[512];
    snprintf(line, sizeof line, "usage: referee-helper sandbox OPTION... -- COMMAND... (%s)", what);
    die(line, NULL);
}

static struct op *add_op(struct plan *plan, enum op_kind kind, mode_t *perms, long long *size) {
    if (plan->count == plan->room) usage("too many operations");
    struct op *op = &plan->ops[plan->count++];
    memset(op, 0, sizeof *op);
    op->kind = kind;
    op->perms = *perms;
    op->size = *size;
    *perms = 0755;
    *size = 0;
    return op;
}

static void parse(char **args, struct plan *plan) {
    memset(plan, 0, sizeof *plan);
    /* Each operation takes at least one word of the command line: a record-filled folder hides
       each record by an operation of its own, hundreds or thousands of them. */
    for (char **word = args; *word; word++) plan->room++;
    plan->ops = calloc((size_t)plan->room + 1, sizeof *plan->ops);
    if (!plan->ops) die("cannot allocate the plan", NULL);
    mode_t perms = 0755;
    long long size = 0;
    int at = 0;
    for (; args[at] && strcmp(args[at], "--") != 0; at++) {
        const char *option = args[at];
        const char *value = args[at + 1];
        if (strcmp(option, "--unshare-pid") == 0) {
            plan->namespaces |= CLONE_NEWPID;
        } else if (strcmp(option, "--unshare-net") == 0) {
            plan->namespaces |= CLONE_NEWNET;
        } else if (strcmp(option, "--unshare-ipc") == 0) {
            plan->namespaces |= CLONE_NEWIPC;
        } else if (strcmp(option, "--unshare-uts") == 0) {
            plan->namespaces |= CLONE_NEWUTS;
        } else if (strcmp(option, "--unshare-cgroup") == 0) {
            plan->namespaces |= CLONE_NEWCGROUP;
        } else if (strcmp(option, "--die-with-parent") == 0) {
            plan->die_with_parent = 1;
        } else if (!value) {
            usage("an option without its value");
        } else if (strcmp(option, "--cap-drop") == 0 || strcmp(option, "--cap-add") == 0) {
            int adding = option[6] == 'a';
            if (!adding) {
                if (strcmp(value, "ALL") != 0) usage("only --cap-drop ALL");
                plan->drop_caps = 1;
            } else {
                size_t i = 0, known = sizeof CAPS / sizeof CAPS[0];
                while (i < known && strcmp(CAPS[i].name, value) != 0) i++;
                if (i == known) usage("unknown capability");
                plan->keep_caps |= 1ULL << CAPS[i].number;
            }
            at++;
        } else if (strcmp(option, "--perms") == 0) {
            char *end;
            perms = (mode_t)strtol(value, &end, 8);
            if (*end) usage("bad --perms");
            at++;
        } else if (strcmp(option, "--size") == 0) {
            char *end;
            size = strtoll(value, &end, 10);
            if (*end || size < 0) usage("bad --size");
            at++;
        } else if (strcmp(option, "--chdir") == 0) {
            plan->chdir = value;
            at++;
        } else if (strcmp(option, "--tmpfs") == 0 || strcmp(option, "--dir") == 0 ||
                   strcmp(option, "--remount-ro") == 0 || strcmp(option, "--dev") == 0 ||
                   strcmp(option, "--proc") == 0) {
            enum op_kind kind = option[2] == 't'   ? OP_TMPFS
                                : option[2] == 'r' ? OP_REMOUNT_RO
                                : option[2] == 'p' ? OP_PROC
                                : option[3] == 'i' ? OP_DIR
                                                   : OP_DEV;
            add_op(plan, kind, &perms, &size)->dest = value;
            at++;
        } else if (strcmp(option, "--symlink") == 0) {
            if (!args[at + 2]) usage("a link without its path");
            struct op *op = add_op(plan, OP_SYMLINK, &perms, &size);
            op->source = value;
            op->dest = args[at + 2];
            at += 2;
        } else if (strcmp(option, "--bind") == 0 || strcmp(option, "--dev-bind") == 0 ||
                   strcmp(option, "--ro-bind") == 0 || strcmp(option, "--ro-bind-try") == 0) {
            if (!args[at + 2]) usage("a bind without its destination");
            struct op *op = add_op(plan, OP_BIND, &perms, &size);
            op->source = value;
            op->dest = args[at + 2];
            op->readonly = strncmp(option, "--ro-", 5) == 0;
            op->devices = strcmp(option, "--dev-bind") == 0;
            op->optional = strcmp(option, "--ro-bind-try") == 0;
            at += 2;
        } else {
            usage("unknown option");
        }
    }
    if (!args[at] || !args[at + 1]) usage("nothing to execute");
    plan->command = &args[at + 1];
}

/* -- paths ------------------------------------------------------------------------------------ */

/* `root` followed by absolute `path`, without a trailing slash ("/newroot" for "/"). */
static void join(char *out, const char *root, const char *path) {
    if (snprintf(out, PATH_MAX, "%s%s", root, path) >= PATH_MAX) {
        errno = ENAMETOOLONG;
        die("path too long:", path);
    }
    size_t length = strlen(out);
    while (length > 1 && out[length - 1] == '/') out[--length] = 0;
}

/* `dir`/`name`, never silently truncated. */
static void below(char *out, const char *dir, const char *name) {
    if (snprintf(out, PATH_MAX, "%s/%s", dir, name) >= PATH_MAX) {
        errno = ENAMETOOLONG;
        die("path too long:", dir);
    }
}

/* `path` and every missing parent, as directories of mode 0755 (inside fresh tmpfs only). */
static void make_directories(const char *path) {
    struct stat info;
    if (stat(path, &info) == 0) {
        if (!S_ISDIR(info.st_mode)) {
            errno = ENOTDIR;
            die("cannot use as a directory:", path);
        }
        return;
    }
    char parent[PATH_MAX];
    snprintf(parent, sizeof parent, "%s", path);
    char *slash = strrchr(parent, '/');
    if (slash && slash != parent) {
        *slash = 0;
        make_directories(parent);
    }
    if (mkdir(path, 0755) != 0 && errno != EEXIST) die("cannot create directory", path);
}

static void make_file(const char *path) {
    struct stat info;
    if (stat(path, &info) == 0) return;
    char parent[PATH_MAX];
    snprintf(parent, sizeof parent, "%s", path);
    char *slash = strrchr(parent, '/');
    if (slash && slash != parent) {
        *slash = 0;
        make_directories(parent);
    }
    int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0444);
    if (fd < 0) die("cannot create mount point", path);
    close(fd);
}

/* -- read-only mounts -------------------------------------------------------------------------- */

/* What a read-only remount must keep of the mount at `mount_point` (the kernel refuses to drop
   these for a mount that has them). kernel.c's read-only folders use it too. */
unsigned long kept_flags(const char *mount_point) {
    struct statvfs info;
    if (statvfs(mount_point, &info) != 0) return 0;
    unsigned long flags = 0;
    if (info.f_flag & ST_NOSUID) flags |= MS_NOSUID;
    if (info.f_flag & ST_NODEV) flags |= MS_NODEV;
    if (info.f_flag & ST_NOEXEC) flags |= MS_NOEXEC;
    if (info.f_flag & ST_NOATIME) flags |= MS_NOATIME;
    if (info.f_flag & ST_NODIRATIME) flags |= MS_NODIRATIME;
    if (info.f_flag & ST_RELATIME) flags |= MS_RELATIME;
    return flags;
}

/* The mount at `mount_point` remounted with `added` (MS_RDONLY, MS_NOSUID, MS_NODEV) besides
   what it keeps. */
static void restrict_mount(const char *mount_point, unsigned long added) {
    unsigned long flags = MS_REMOUNT | MS_BIND | added | kept_flags(mount_point);
    /* A mount point that root itself cannot look into cannot be reached by the bot either. */
    if (mount(NULL, mount_point, NULL, flags, NULL) != 0 && errno != EACCES)
        die(added & MS_RDONLY ? "cannot make read-only" : "cannot restrict", mount_point);
}

/* mountinfo escapes space, tab, newline and backslash as \ooo. */
static void unescape(char *text) {
    char *out = text;
    for (char *in = text; *in; in++) {
        if (in[0] == '\\' && in[1] >= '0' && in[1] <= '3' && in[2] && in[3]) {
            *out++ = (char)((in[1] - '0') * 64 + (in[2] - '0') * 8 + (in[3] - '0'));
            in += 3;
        } else {
            *out++ = *in;
        }
    }
    *out = 0;
}

/* `path` and every mount below it remounted with `added` (each mount of a recursive bind is its
   own). The mount table is read from the machine's /proc, still mounted under the old root. */
static void restrict_tree(const char *path, const char *proc, unsigned long added) {
    char table[PATH_MAX];
    join(table, proc, "/self/mountinfo");
    FILE *mounts = fopen(table, "re");
    if (!mounts) die("cannot read", table);
    size_t length = strlen(path);
    char line[8192];
    while (fgets(line, sizeof line, mounts)) {
        char *field = strtok(line, " "); /* id parent major:minor root mount-point ... */
        for (int skip = 0; field && skip < 4; skip++) field = strtok(NULL, " ");
        if (!field) continue;
        unescape(field);
        if (strncmp(field, path, length) == 0 && (field[length] == 0 || field[length] == '/'))
            restrict_mount(field, added);
    }
    fclose(mounts);
}

/* -- the operations ---------------------------------------------------------------------------- */

static void mount_tmpfs(const char *where, mode_t perms, long long size) {
    char options[128];
    if (size > 0)
        snprintf(options, sizeof options, "mode=%o,size=%lld", (unsigned)perms, size);
    else
        snprintf(options, sizeof options, "mode=%o", (unsigned)perms);
    if (mount("tmpfs", where, "tmpfs", MS_NOSUID | MS_NODEV, options) != 0)
        die("cannot mount a tmpfs on", where);
}

static void bind_path(const struct op *op) {
    char from[PATH_MAX], to[PATH_MAX];
    join(from, OLD_ROOT, op->source);
    join(to, NEW_ROOT, op->dest);
    struct stat info;
    if (stat(from, &info) != 0) {
        if (op->optional) return;
        die("cannot bind", op->source);
    }
    if (S_ISDIR(info.st_mode))
        make_directories(to);
    else
        make_file(to);
    if (mount(from, to, NULL, MS_BIND | MS_REC, NULL) != 0) die("cannot bind", op->source);
    /* As bwrap's binds: no set-user-id program, nor any device but --dev-bind's, works there
       (a bot that may write its folder leaves no setuid program or device node of use). */
    unsigned long added = MS_NOSUID | (op->devices ? 0 : MS_NODEV) | (op->readonly ? MS_RDONLY : 0);
    if (S_ISDIR(info.st_mode))
        restrict_tree(to, OLD_ROOT "/proc", added);
    else
        restrict_mount(to, added); /* a file has no mounts below it */
}

static void device(const char *dev, const char *name) {
    char from[PATH_MAX], to[PATH_MAX];
    snprintf(from, sizeof from, OLD_ROOT "/dev/%s", name);
    below(to, dev, name);
    make_file(to);
    if (mount(from, to, NULL, MS_BIND, NULL) != 0) die("cannot bind device", from);
}

static void make_dev(const char *dest) {
    static const char *const DEVICES[] = {"null", "zero", "full", "random", "urandom", "tty"};
    static const char *const LINKS[][2] = {
        {"/proc/self/fd", "fd"},          {"/proc/self/fd/0", "stdin"},
        {"/proc/self/fd/1", "stdout"},    {"/proc/self/fd/2", "stderr"},
        {"pts/ptmx", "ptmx"},
    };
    char dev[PATH_MAX], path[PATH_MAX];
    join(dev, NEW_ROOT, dest);
    make_directories(dev);
    mount_tmpfs(dev, 0755, 1 << 20);
    for (size_t i = 0; i < sizeof DEVICES / sizeof DEVICES[0]; i++) device(dev, DEVICES[i]);
    for (size_t i = 0; i < sizeof LINKS / sizeof LINKS[0]; i++) {
        below(path, dev, LINKS[i][1]);
        if (symlink(LINKS[i][0], path) != 0) die("cannot link", path);
    }
    below(path, dev, "shm");
    if (mkdir(path, 01777) != 0 || chmod(path, 01777) != 0) die("cannot create", path);
    below(path, dev, "pts");
    if (mkdir(path, 0755) != 0) die("cannot create", path);
    /* A pseudo-terminal of its own, where the kernel allows one (bots rarely need it). */
    mount("devpts", path, "devpts", MS_NOSUID | MS_NOEXEC, "newinstance,ptmxmode=0666,mode=620");
}

static void make_proc(const char *dest) {
    static const char *const TUNABLES[] = {"sys", "sysrq-trigger", "irq", "bus"};
    char proc[PATH_MAX], path[PATH_MAX];
    join(proc, NEW_ROOT, dest);
    make_directories(proc);
    if (mount("proc", proc, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) != 0)
        die("cannot mount proc on", proc);
    /* The kernel's tunables stay read-only, even for a bot that runs as root by request. */
    for (size_t i = 0; i < sizeof TUNABLES / sizeof TUNABLES[0]; i++) {
        below(path, proc, TUNABLES[i]);
        if (access(path, F_OK) != 0) continue;
        if (mount(path, path, NULL, MS_BIND | MS_REC, NULL) != 0) die("cannot bind", path);
        restrict_mount(path, MS_RDONLY);
    }
}

static void carry_out(const struct op *op) {
    char path[PATH_MAX];
    switch (op->kind) {
    case OP_BIND:
        bind_path(op);
        break;
    case OP_TMPFS:
        join(path, NEW_ROOT, op->dest);
        make_directories(path);
        mount_tmpfs(path, op->perms, op->size);
        break;
    case OP_DIR: /* as bwrap: the mode is that of a folder made here, not of one there */
        join(path, NEW_ROOT, op->dest);
        if (access(path, F_OK) == 0) break;
        make_directories(path);
        if (chmod(path, op->perms) != 0) die("cannot set the mode of", path);
        break;
    case OP_SYMLINK:
        join(path, NEW_ROOT, op->dest);
        if (symlink(op->source, path) != 0) die("cannot make the link", path);
        break;
    case OP_REMOUNT_RO:
        join(path, NEW_ROOT, op->dest);
        restrict_mount(path, MS_RDONLY);
        break;
    case OP_DEV:
        make_dev(op->dest);
        break;
    case OP_PROC:
        make_proc(op->dest);
        break;
    }
}

/* -- processes --------------------------------------------------------------------------------- */

/* A network namespace of its own for this process, with its loopback up: 0, or -1 with errno
   set and `*failed` saying which step failed. (Also used by the launcher without a sandbox.) */
int private_network(const char **failed) {
    if (unshare(CLONE_NEWNET) != 0) {
        *failed = "cannot make a network namespace";
        return -1;
    }
    int sock = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    struct ifreq request;
    memset(&request, 0, sizeof request);
    snprintf(request.ifr_name, sizeof request.ifr_name, "lo");
    if (sock < 0 || ioctl(sock, SIOCGIFFLAGS, &request) != 0) {
        *failed = "cannot read the loopback's flags";
        return -1;
    }
    request.ifr_flags |= IFF_UP | IFF_RUNNING;
    if (ioctl(sock, SIOCSIFFLAGS, &request) != 0) {
        *failed = "cannot bring the loopback up";
        return -1;
    }
    close(sock);
    return 0;
}

/* Only `keep` may be used by what is executed next, and nothing gained again by exec. */
static void limit_capabilities(uint64_t keep) {
    for (int cap = 0; cap < 64; cap++)
        if (!(keep & (1ULL << cap)) && prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 &&
            errno != EINVAL)
            die("cannot drop a capability", NULL);
    struct __user_cap_header_struct header = {_LINUX_CAPABILITY_VERSION_3, 0};
    struct __user_cap_data_struct data[2];
    memset(data, 0, sizeof data);
    for (int i = 0; i < 2; i++) data[i].effective = data[i].permitted = (uint32_t)(keep >> (32 * i));
    if (syscall(SYS_capset, &header, data) != 0) die("cannot set the capabilities", NULL);
    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
}

/* Close every descriptor above stderr: the bot's parked streams and status pipe are not ours
   (a referee with many bots hands out numbers above 1024, hence close_range or the limit). */
static void close_descriptors(void) {
    int null = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (null >= 0) {
        dup2(null, 0);
        dup2(null, 1);
    }
#ifdef SYS_close_range
    if (syscall(SYS_close_range, 3U, ~0U, 0) == 0) return;
#endif
    long limit = sysconf(_SC_OPEN_MAX);
    for (long fd = 3; fd < (limit > 0 ? limit : 65536); fd++) close((int)fd);
}

/* This process's exit status as the child's wait status says it (a signal as 128 + number). */
static void exit_as(int status) {
    if (WIFSIGNALED(status)) _exit(128 + WTERMSIG(status));
    _exit(WEXITSTATUS(status));
}

static void run_command(const struct plan *plan) {
    if (plan->drop_caps) limit_capabilities(plan->keep_caps);
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) die("cannot set no_new_privs", NULL);
    execvp(plan->command[0], plan->command);
    die("cannot execute", plan->command[0]);
}

static void build_root(const struct plan *plan) {
    const char *failed;
    if (unshare(CLONE_NEWNS | (plan->namespaces & ~(CLONE_NEWPID | CLONE_NEWNET))) != 0)
        die("cannot make namespaces", NULL);
    if ((plan->namespaces & CLONE_NEWNET) && private_network(&failed) != 0) die(failed, NULL);
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
        die("cannot make the mounts private", NULL);
    mount_tmpfs(BASE, 0755, 1 << 20);
    if (mkdir(BASE NEW_ROOT, 0755) != 0 || mkdir(BASE OLD_ROOT, 0755) != 0)
        die("cannot create the roots in", BASE);
    mount_tmpfs(BASE NEW_ROOT, 0755, 1 << 20);
    if (syscall(SYS_pivot_root, BASE, BASE OLD_ROOT) != 0) die("cannot pivot to", BASE);
    if (chdir("/") != 0) die("cannot enter", "/");
    for (int i = 0; i < plan->count; i++) carry_out(&plan->ops[i]);
    if (chdir(NEW_ROOT) != 0) die("cannot enter", NEW_ROOT);
    if (syscall(SYS_pivot_root, ".", ".") != 0) die("cannot pivot to", NEW_ROOT);
    if (umount2(".", MNT_DETACH) != 0) die("cannot detach the old root", NULL);
    if (chdir("/") != 0) die("cannot enter", "/");
    if (plan->chdir && chdir(plan->chdir) != 0) die("cannot enter", plan->chdir);
    if (plan->chdir) setenv("PWD", plan->chdir, 1); /* as bwrap's --chdir: a shell's $PWD */
}

/* pid 1 of the sandbox: build the view, start COMMAND, reap until it ends, end with it. */
static void init(const struct plan *plan) {
    if (plan->die_with_parent) prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
    umask(022);
    build_root(plan);
    pid_t command = fork();
    if (command < 0) die("cannot fork", NULL);
    if (command == 0) {
        if (plan->die_with_parent) prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
        run_command(plan);
    }
    close_descriptors();
    prctl(PR_SET_DUMPABLE, 0, 0, 0, 0); /* nothing inside may trace or read this process */
    limit_capabilities(0);
    for (;;) {
        int status;
        pid_t ended = waitpid(-1, &status, 0);
        if (ended == command) exit_as(status);
        if (ended < 0 && errno != EINTR) _exit(1);
    }
}

int sandbox_main(char **args) {
    static struct plan plan;
    parse(args, &plan);
    if (geteuid() != 0) {
        errno = EPERM;
        die("needs root to make namespaces:", "its own user");
    }
    if (plan.die_with_parent) prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
    if ((plan.namespaces & CLONE_NEWPID) && unshare(CLONE_NEWPID) != 0)
        die("cannot make a pid namespace", NULL);
    pid_t child = fork();
    if (child < 0) die("cannot fork", NULL);
    if (child == 0) init(&plan);
    close_descriptors();
    for (;;) {
        int status;
        pid_t ended = waitpid(child, &status, 0);
        if (ended == child) exit_as(status);
        if (ended < 0 && errno != EINTR) _exit(1);
    }
}
