/*
 * The launcher's requests to the kernel for a bot, compiled (kernel.py beside this file is the
 * Python launcher's copy, and says why each step exists): a session keyring of its own, its
 * user's keys cleared, a mount namespace of its own (its private places, the folders it needs
 * in them, its own folders read-only), a Landlock domain of its own, and the system-call filter
 * (the IPC namespace is a bare unshare, in helper.c). Each returns 0, or -1 with errno set and `*failed` saying which step
 * failed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/keyctl.h>
#include <linux/seccomp.h>
#include <limits.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define MAX_PROGRAM 4096 /* instructions: BPF_MAXINSNS */
#define USER_KEYRINGS 2 /* what a cleared user keeps: its user and user-session keyrings */
#define COLLECTED_WAIT_MS 1000 /* the kernel collects unlinked keys within milliseconds */
#define MAX_PLACES 16 /* helper.c's: the private places */
#define MAX_KEPT 64 /* helper.c's: the kept folders */
/* Landlock (linux/landlock.h, defined here so that older headers compile it too): the calls have
   the same numbers on every architecture; the rule type and the one right the launcher grants. */
#define LANDLOCK_CREATE_RULESET 444
#define LANDLOCK_ADD_RULE 445
#define LANDLOCK_RESTRICT_SELF 446
#define LANDLOCK_RULE_PATH_BENEATH 1
#define LANDLOCK_ACCESS_FS_REFER (1ULL << 13)

struct ruleset_attr {
    uint64_t handled_access_fs, handled_access_net, scoped;
};

struct path_beneath_attr {
    uint64_t allowed_access;
    int32_t parent_fd;
} __attribute__((packed));

/* The key calls closed around us already (a container's own filter): nothing to do, nothing a
   bot could reach either. */
static int refused_by_the_machine(void) { return errno == EPERM || errno == ENOSYS; }

int join_session_keyring(const char **failed) {
    if (syscall(SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, NULL) >= 0 || refused_by_the_machine())
        return 0;
    *failed = "cannot join a session keyring of its own";
    return -1;
}

/* How many keys user `uid` owns, from /proc/key-users (0 where it is not named). */
int key_count(long uid) {
    FILE *listing = fopen("/proc/key-users", "re");
    if (!listing) return 0;
    char line[256];
    int count = 0;
    while (fgets(line, sizeof line, listing)) {
        long owner;
        int usage, keys;
        if (sscanf(line, " %ld: %d %d/", &owner, &usage, &keys) == 3 && owner == uid) {
            count = keys;
            break;
        }
    }
    fclose(listing);
    return count;
}

/* As user `uid`: empty its user and user-session keyrings, if it has keys at all (the second
   links the first again, as the kernel made them), then wait (briefly) for the kernel to
   collect what they held: until then /proc/keys still lists it. */
int clear_user_keys(long uid, const char **failed) {
    if (key_count(uid) == 0) return 0;
    static const long KEYRINGS[] = {KEY_SPEC_USER_KEYRING, KEY_SPEC_USER_SESSION_KEYRING};
    *failed = "cannot clear the keys of its user";
    for (size_t i = 0; i < sizeof KEYRINGS / sizeof KEYRINGS[0]; i++)
        if (syscall(SYS_keyctl, KEYCTL_CLEAR, KEYRINGS[i]) < 0 && !refused_by_the_machine())
            return -1;
    /* The user-session keyring links the user keyring, as the kernel made it. */
    if (syscall(SYS_keyctl, KEYCTL_LINK, KEY_SPEC_USER_KEYRING, KEY_SPEC_USER_SESSION_KEYRING) <
            0 && !refused_by_the_machine())
        return -1;
    struct timespec pause = {0, 1000000};
    for (int waited = 0; waited < COLLECTED_WAIT_MS && key_count(uid) > USER_KEYRINGS; waited++)
        nanosleep(&pause, NULL);
    return 0;
}

static int depth(const char *path) {
    int slashes = 0;
    for (; *path; path++) slashes += *path == '/';
    return slashes;
}

static int compare_depth(const void *a, const void *b) {
    return depth(*(char *const *)a) - depth(*(char *const *)b);
}

/* `path` and the folders leading to it, searchable by anyone (inside the fresh private place). */
static int make_folders(const char *path) {
    char partial[PATH_MAX];
    if (snprintf(partial, sizeof partial, "%s", path) >= (int)sizeof partial) {
        errno = ENAMETOOLONG;
        return -1;
    }
    for (char *slash = partial + 1;; slash++) {
        char ended = *slash;
        if (ended != '/' && ended != 0) continue;
        *slash = 0;
        if (mkdir(partial, 0755) == 0)
            chmod(partial, 0755); /* whatever the umask */
        else if (errno != EEXIST)
            return -1;
        if (!ended) return 0;
        *slash = '/';
    }
}

static int bind_fd(int fd, const char *where, unsigned long flags) {
    char source[64];
    snprintf(source, sizeof source, "/proc/self/fd/%d", fd);
    return mount(source, where, NULL, MS_BIND | flags, NULL);
}

/* What a read-only remount keeps of a mount (sandbox.c: nosuid, nodev, noexec, the atime's). */
unsigned long kept_flags(const char *mount_point);

/* kernel.py's own_proc: /proc mounted again, showing no process of another user, with each
   entry of `masked` shown empty. */
static int own_proc(const char *const *masked, int masked_count, const char **failed) {
    *failed = "cannot mount a /proc of its own";
    if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, "hidepid=2") != 0)
        return -1;
    char path[PATH_MAX];
    *failed = "cannot hide an entry of its /proc";
    for (int i = 0; i < masked_count; i++) {
        if (snprintf(path, sizeof path, "/proc/%s", masked[i]) >= (int)sizeof path) {
            errno = ENAMETOOLONG;
            return -1;
        }
        if (access(path, F_OK) == 0 && mount("/dev/null", path, NULL, MS_BIND, NULL) != 0)
            return -1;
    }
    return 0;
}

/* In a new mount namespace, a slave of the machine's mounts (it takes their mounts and unmounts
   where they propagate, and gives none back): each source bound over its place, then each kept
   folder bound back at its own path, shallowest first, then each read-only folder made a
   read-only bind of itself, as the bot sees it by then (a folder of its own in /tmp is shown
   again first, then made read-only, not the other way round), then, with `own_proc_wanted`, a
   /proc of its own. The sources and the kept folders are opened before anything is covered (the
   sources themselves lie in /tmp). */
int private_mounts(const char *const *places, int place_count, const char *const *keep,
                   int keep_count, const char *const *readonly, int readonly_count,
                   int own_proc_wanted, const char *const *masked, int masked_count,
                   const char **failed) {
    const char *kept[MAX_KEPT];
    int sources[MAX_PLACES], kept_fds[MAX_KEPT], result = -1;
    if (place_count > MAX_PLACES || keep_count > MAX_KEPT) {
        errno = E2BIG;
        *failed = "too many private places or kept folders";
        return -1;
    }
    *failed = "cannot make a mount namespace";
    if (unshare(CLONE_NEWNS) != 0) return -1;
    *failed = "cannot make its mounts private";
    if (mount(NULL, "/", NULL, MS_REC | MS_SLAVE, NULL) != 0) return -1;
    memcpy(kept, keep, sizeof kept[0] * (size_t)keep_count);
    qsort(kept, (size_t)keep_count, sizeof kept[0], compare_depth);
    int opened = 0, kept_opened = 0;
    *failed = "cannot open a private place or a kept folder";
    for (; opened < place_count; opened++)
        if ((sources[opened] = open(places[2 * opened], O_PATH | O_CLOEXEC)) < 0) goto done;
    for (; kept_opened < keep_count; kept_opened++)
        if ((kept_fds[kept_opened] = open(kept[kept_opened], O_PATH | O_CLOEXEC)) < 0) goto done;
    mode_t mask = umask(022);
    *failed = "cannot bind a private place";
    for (int i = 0; i < place_count; i++)
        if (bind_fd(sources[i], places[2 * i + 1], 0) != 0) goto unmask;
    *failed = "cannot show a kept folder again";
    for (int i = 0; i < keep_count; i++) {
        int shown = 0;
        for (int j = 0; j < i && !shown; j++) {
            size_t length = strlen(kept[j]);
            shown = strncmp(kept[i], kept[j], length) == 0 &&
                    (kept[i][length] == '/' || kept[i][length] == 0);
        }
        if (shown) continue; /* shown with a folder above it */
        if (make_folders(kept[i]) != 0 || bind_fd(kept_fds[i], kept[i], MS_REC) != 0) goto unmask;
    }
    for (int i = 0; i < readonly_count; i++) {
        *failed = "cannot bind a folder to make it read-only";
        if (mount(readonly[i], readonly[i], NULL, MS_BIND | MS_REC, NULL) != 0) goto unmask;
        *failed = "cannot make a folder read-only";
        unsigned long flags = MS_REMOUNT | MS_BIND | MS_RDONLY | kept_flags(readonly[i]);
        if (mount(NULL, readonly[i], NULL, flags, NULL) != 0) goto unmask;
    }
    if (own_proc_wanted && own_proc(masked, masked_count, failed) != 0) goto unmask;
    result = 0;
unmask:
    umask(mask);
done:
    for (int i = 0; i < opened; i++) close(sources[i]);
    for (int i = 0; i < kept_opened; i++) close(kept_fds[i]);
    return result;
}

/* kernel.py's own_domain: this process (and all it starts) in a new Landlock domain handling
   `handled_fs` and scoped by `scoped` (landlock.py says why each); the right to move files
   between folders, where handled, granted beneath /. No-new-privileges first: a process without
   CAP_SYS_ADMIN may not enter a domain without it. */
int own_domain(unsigned long long handled_fs, unsigned long long scoped, const char **failed) {
    struct ruleset_attr attr = {handled_fs, 0, scoped};
    int ruleset = (int)syscall(LANDLOCK_CREATE_RULESET, &attr, sizeof attr, 0U);
    *failed = "cannot make a Landlock ruleset";
    if (ruleset < 0) return -1;
    int result = -1;
    if (handled_fs & LANDLOCK_ACCESS_FS_REFER) {
        struct path_beneath_attr rule = {LANDLOCK_ACCESS_FS_REFER, open("/", O_PATH | O_CLOEXEC)};
        *failed = "cannot add a Landlock rule";
        int added = rule.parent_fd >= 0 ? (int)syscall(LANDLOCK_ADD_RULE, ruleset,
                                                        LANDLOCK_RULE_PATH_BENEATH, &rule, 0U)
                                         : -1;
        if (rule.parent_fd >= 0) close(rule.parent_fd);
        if (added != 0) goto done;
    }
    *failed = "cannot set no-new-privileges";
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) goto done;
    *failed = "cannot enter a Landlock domain of its own";
    result = (int)syscall(LANDLOCK_RESTRICT_SELF, ruleset, 0U);
done:
    close(ruleset);
    return result;
}

static int nibble(char digit) {
    if (digit >= '0' && digit <= '9') return digit - '0';
    if (digit >= 'a' && digit <= 'f') return digit - 'a' + 10;
    return -1;
}

/* No new privileges, then the seccomp program given in hexadecimal (8 bytes an instruction). */
int install_filter(const char *hex, const char **failed) {
    static struct sock_filter program[MAX_PROGRAM];
    size_t length = strlen(hex);
    *failed = "the system-call filter given is not a program";
    if (length == 0 || length % 16 != 0 || length / 16 > MAX_PROGRAM) {
        errno = EINVAL;
        return -1;
    }
    unsigned char *bytes = (unsigned char *)program;
    for (size_t i = 0; i < length; i++) {
        int digit = nibble(hex[i]);
        if (digit < 0) {
            errno = EINVAL;
            return -1;
        }
        bytes[i / 2] = (unsigned char)(i % 2 ? bytes[i / 2] | digit : digit << 4);
    }
    struct sock_fprog fprog = {(unsigned short)(length / 16), program};
    *failed = "cannot set no-new-privileges";
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return -1;
    *failed = "cannot install the system-call filter";
    return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fprog, 0, 0);
}
