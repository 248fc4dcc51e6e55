/*
 * The launcher's requests to the kernel for a bot, compiled (kernel.py beside this file is the
 * Python launcher's copy, and says why each step exists): the system-call filter. Each returns 0,
 * or -1 with errno set and `*failed` saying which step failed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <string.h>
#include <sys/prctl.h>

#define MAX_PROGRAM 4096 /* instructions: BPF_MAXINSNS */

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
