/*
 * A small bot in C for the kernel's shared state (test_kernel.py): it plays a fixed opening and,
 * at its moment, tries one thing through the kernel, saying what came of it. C, so that a bot
 * user runs it at every level, whatever the referee's own Python is (pyenv under a 0700 home).
 *
 *   kernel_bot COLOUR ACTION TOKEN ENDS MOVE...
 *
 * COLOUR: blue acts after reading its colour, orange after reading blue's first move. ENDS: yes
 * writes what came of it as its move (a line no game accepts: the game ends, the record keeps
 * it); no writes it on stderr and plays its MOVEs, one an ask, until END.
 *
 * ACTIONS
 *   plant      add a key readable by everyone to its user and session keyrings
 *   plant-user the same, to its user keyring only
 *   look       whether a key described TOKEN shows in /proc/keys
 *   calls:P    the calls the filter closes (and a thread, which must still work); P a vsock port
 *              some process outside holds
 *   ipc-make   SysV shared memory, a message queue and a semaphore set, a POSIX queue, files in
 *              /dev/shm and /tmp, all open to everyone, named after TOKEN
 *   ipc-look   which of those it finds
 *   none       nothing
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/io_uring.h>
#include <linux/perf_event.h>
#include <linux/vm_sockets.h>
#include <mqueue.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/ptrace.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static char result[1024];

static void add(const char *what, long outcome) {
    const char *said = outcome >= 0 ? "ok" : strerrorname_np(errno);
    snprintf(result + strlen(result), sizeof result - strlen(result), "%s%s-%s",
             result[0] ? " " : "", what, said ? said : "?");
}

static void seen(const char *what, int found) {
    snprintf(result + strlen(result), sizeof result - strlen(result), "%s%s-%s",
             result[0] ? " " : "", what, found ? "seen" : "unseen");
}

/* SysV keys from TOKEN: three distinct numbers the looking bot computes alike. */
static key_t ipc_key(const char *token, int which) {
    unsigned long hash = 5381;
    for (const char *c = token; *c; c++) hash = hash * 33 + (unsigned char)*c;
    return (key_t)((hash & 0x0fffffff) * 4 + (unsigned long)which);
}

static void plant(const char *token, int rings) {
    static const long RINGS[] = {-4 /* user */, -3 /* session */};
    const char *names[] = {"user", "session"};
    /* The user keyring is its own (it may set what it adds there) through its session keyring. */
    syscall(SYS_keyctl, 8 /* KEYCTL_LINK */, -4, -3);
    for (int i = 0; i < rings; i++) {
        long key = syscall(SYS_add_key, "user", token, "secret", (size_t)6, RINGS[i]);
        if (key >= 0) key = syscall(SYS_keyctl, 5 /* KEYCTL_SETPERM */, key, 0x3f3f3f3f);
        add(names[i], key);
    }
}

static void look(const char *token) {
    FILE *keys = fopen("/proc/keys", "re");
    char line[512];
    int found = 0;
    while (keys && fgets(line, sizeof line, keys)) found |= strstr(line, token) != NULL;
    if (keys) fclose(keys);
    seen("key", found);
}

static void *nothing(void *unused) { return unused; }

static void calls(int port) {
    struct io_uring_params params;
    memset(&params, 0, sizeof params);
    long fd = syscall(__NR_io_uring_setup, 1, &params);
    add("io_uring", fd);
    add("userfaultfd", syscall(__NR_userfaultfd, O_CLOEXEC | 1 /* UFFD_USER_MODE_ONLY */));
    struct perf_event_attr attr;
    memset(&attr, 0, sizeof attr);
    attr.size = sizeof attr;
    attr.type = PERF_TYPE_SOFTWARE;
    attr.config = PERF_COUNT_SW_TASK_CLOCK;
    attr.exclude_kernel = attr.exclude_hv = 1;
    add("perf", syscall(__NR_perf_event_open, &attr, 0, -1, -1, 0));
    add("bpf", syscall(__NR_bpf, 0 /* BPF_MAP_CREATE */, NULL, 0));
    add("keyctl", syscall(SYS_keyctl, 0 /* KEYCTL_GET_KEYRING_ID */, -3, 0));
    long child = syscall(SYS_clone, CLONE_NEWUSER | SIGCHLD, NULL, NULL, NULL, NULL);
    if (child == 0) _exit(0);
    if (child > 0) waitpid((pid_t)child, NULL, 0);
    add("clone-newuser", child);
    add("unshare-newuser", unshare(CLONE_NEWUSER));
    add("ptrace", ptrace(PTRACE_TRACEME, 0, NULL, NULL));
    int vsock = socket(AF_VSOCK, SOCK_STREAM, 0);
    long bound = vsock;
    if (vsock >= 0) {
        struct sockaddr_vm address;
        memset(&address, 0, sizeof address);
        address.svm_family = AF_VSOCK;
        address.svm_cid = VMADDR_CID_ANY;
        address.svm_port = (unsigned)port;
        bound = bind(vsock, (struct sockaddr *)&address, sizeof address);
    }
    add("vsock", bound);
    pthread_t thread;
    int made = pthread_create(&thread, NULL, nothing, NULL);
    if (made == 0) pthread_join(thread, NULL);
    errno = made;
    add("thread", made == 0 ? 0 : -1);
}

static void ipc_make(const char *token) {
    int shm = shmget(ipc_key(token, 1), 4096, IPC_CREAT | 0666);
    add("shm", shm);
    add("msg", msgget(ipc_key(token, 2), IPC_CREAT | 0666));
    add("sem", semget(ipc_key(token, 3), 1, IPC_CREAT | 0666));
    char name[256];
    snprintf(name, sizeof name, "/%s", token);
    add("mq", mq_open(name, O_CREAT | O_RDWR, 0666, NULL));
    const char *folders[] = {"/dev/shm", "/tmp"};
    for (int i = 0; i < 2; i++) {
        snprintf(name, sizeof name, "%s/%s", folders[i], token);
        int fd = open(name, O_CREAT | O_WRONLY | O_CLOEXEC, 0666);
        if (fd >= 0) fchmod(fd, 0666);
        add(folders[i] + 1, fd);
    }
}

static void ipc_look(const char *token) {
    seen("shm", shmget(ipc_key(token, 1), 0, 0) >= 0);
    seen("msg", msgget(ipc_key(token, 2), 0) >= 0);
    seen("sem", semget(ipc_key(token, 3), 0, 0) >= 0);
    char name[256];
    snprintf(name, sizeof name, "/%s", token);
    seen("mq", mq_open(name, O_RDONLY) >= 0);
    snprintf(name, sizeof name, "/dev/shm/%s", token);
    seen("dev/shm", access(name, F_OK) == 0);
    snprintf(name, sizeof name, "/tmp/%s", token);
    seen("tmp", access(name, F_OK) == 0);
}

static void act(const char *action, const char *token) {
    if (strcmp(action, "plant") == 0) plant(token, 2);
    else if (strcmp(action, "plant-user") == 0) plant(token, 1);
    else if (strcmp(action, "look") == 0) look(token);
    else if (strncmp(action, "calls:", 6) == 0) calls(atoi(action + 6));
    else if (strcmp(action, "ipc-make") == 0) ipc_make(token);
    else if (strcmp(action, "ipc-look") == 0) ipc_look(token);
    else snprintf(result, sizeof result, "nothing");
}

static int hear(void) {
    char line[4096];
    if (!fgets(line, sizeof line, stdin)) return 0;
    return strncmp(line, "END", 3) != 0;
}

static void say(const char *line) {
    printf("%s\n", line);
    fflush(stdout);
}

int main(int argc, char **argv) {
    if (argc < 5) return 2;
    const char *colour = argv[1], *action = argv[2], *token = argv[3];
    int ends = strcmp(argv[4], "yes") == 0, next = 5;
    hear();                                        /* the colour */
    if (strcmp(colour, "orange") == 0 && !hear()) return 0; /* blue's first move */
    act(action, token);
    if (ends) {
        say(result);
    } else {
        fprintf(stderr, "%s\n", result);
        fflush(stderr);
        if (next < argc) say(argv[next++]);
    }
    while (hear())
        if (next < argc) say(argv[next++]);
    return 0;
}
