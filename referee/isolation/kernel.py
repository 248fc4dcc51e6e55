"""What the launcher asks of the kernel for a bot, besides limits and its user: a session keyring
of its own, its user's keys cleared, private IPC and mount namespaces, a Landlock domain of its
own, and the system-call filter.

Loaded by the launcher (`launch.py`, run by path: standard library only, and nothing imported
after the switch to the bot's user, who may not read this interpreter's files); the referee reads
`key_count` from here too. `kernel.c` is the compiled helper's copy of these steps.

- `join_session_keyring`: kernel keys are in no namespace; a bot would otherwise share its
  launcher's session keyring (root's, or the referee's user's). A fresh anonymous one is joined
  while still root, so it counts against root's quota, not the bot user's, and goes with the bot.
  Where the machine refuses the key calls themselves (a container's own filter) there is nothing
  to join, and nothing for the bot to reach either.
- `clear_user_keys`: the user and user-session keyrings of a bot user outlive every game: what
  they hold (a key planted before the filter closed the key calls, or by anything else running
  under that user id) is cleared as that user (only it may), when /proc/key-users says the user
  has keys at all: by a launcher the referee runs as that user before each of its bots starts
  and after its game (`confinement.clear_keys`: a bot's own /proc shows it no key counts).
- `private_mounts`: without the sandbox, a root referee gives the bot a mount namespace of its
  own in which the machine's shared places (/tmp, /var/tmp, /dev/shm, /run/lock) are folders of
  its private scratch tmpfs, and the folders it needs that lie in them (its own, its
  interpreter's) are bound back at their paths. Together with an IPC namespace of its own this
  leaves two bots nothing in common to talk through: no SysV or POSIX IPC, no files in shared
  folders, and nothing of theirs outlives the game. Its /proc is one of its own too: it shows
  no process of another user (the opponent's command line and CPU time per move among them),
  and what it would list of every user (/proc/key-users) is empty. In the same namespace, last,
  the bot's own folders that its user could write (open to every user) are read-only binds of
  themselves, unless the run lets bots write their folder: it plants nothing there for the
  referee and fills no disk beyond its scratch tmpfs. The namespace is a slave of the machine's
  mounts: it gives none back, and where they propagate (a shared root, as systemd makes it) it
  takes the machine's unmounts, so it keeps alive no file system the machine let go (another
  bot's scratch tmpfs).
- `own_domain`: a Landlock domain of its own, made with the ruleset the referee chose for this
  kernel (`landlock.py`, which says why): no process outside it may be traced, its memory and
  descriptors read through /proc, or (scoped) signalled by the bot. `landlock_abi` is how the
  referee asks the kernel which Landlock it has.
- `install_filter`: no-new-privileges, then the seccomp program the referee built
  (`syscall_filter.py`): the last step before exec.
"""

from __future__ import annotations

import ctypes
import os
import time

CLONE_NEWNS, CLONE_NEWIPC = 0x00020000, 0x08000000
KEYCTL_JOIN_SESSION_KEYRING, KEYCTL_CLEAR, KEYCTL_LINK = 1, 7, 8
KEY_SPEC_USER_KEYRING, KEY_SPEC_USER_SESSION_KEYRING = -4, -5
# keyctl has no wrapper in the C library: its number, as in syscall_filter.NUMBERS (a test
# checks they agree).
KEYCTL_NUMBER = {"x86_64": 250, "aarch64": 219}
REFUSED_BY_THE_MACHINE = (1, 38)  # EPERM, ENOSYS: the key calls are closed around us already
MS_RDONLY, MS_REMOUNT, MS_BIND, MS_REC, MS_SLAVE = 1, 32, 0x1000, 0x4000, 0x80000
MS_NOSUID, MS_NODEV, MS_NOEXEC = 2, 4, 8
# A /proc that shows no process of another user to anyone without the power to trace it.
OWN_PROC_OPTIONS = b"hidepid=2"
# What a read-only remount must keep of the mount (statvfs's ST_* flags are the MS_* ones).
KEPT_FLAGS = 2 | 4 | 8 | 1024 | 2048 | 4096  # nosuid, nodev, noexec, noatime, nodiratime, relatime
PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 38, 22, 2
# The Landlock calls have the same numbers on every architecture (they came after the tables
# were unified); linux/landlock.h's flag, rule type and the one right the launcher grants.
LANDLOCK_CREATE_RULESET, LANDLOCK_ADD_RULE, LANDLOCK_RESTRICT_SELF = 444, 445, 446
LANDLOCK_CREATE_RULESET_VERSION, LANDLOCK_RULE_PATH_BENEATH = 1, 1
LANDLOCK_ACCESS_FS_REFER = 1 << 13
KEY_USERS = "/proc/key-users"
USER_KEYRINGS = 2  # what a cleared user keeps: its user and user-session keyrings, empty
COLLECTED_WAIT = 1.0  # seconds; the kernel collects unlinked keys within milliseconds

_libc = ctypes.CDLL(None, use_errno=True)


class KernelRefused(Exception):
    """A step the kernel refused: its message says which, and why."""


def _failed(what: str) -> KernelRefused:
    return KernelRefused(f"{what}: {os.strerror(ctypes.get_errno())}")


def _keyctl(*args: int) -> int:
    number = KEYCTL_NUMBER.get(os.uname().machine)
    if number is None:
        ctypes.set_errno(38)  # ENOSYS: this architecture has no number here
        return -1
    return int(_libc.syscall(ctypes.c_long(number), *map(ctypes.c_long, args)))


def join_session_keyring() -> None:
    if _keyctl(KEYCTL_JOIN_SESSION_KEYRING, 0) < 0:
        if ctypes.get_errno() in REFUSED_BY_THE_MACHINE:
            return
        raise _failed("cannot join a session keyring of its own")


def key_count(uid: int) -> int:
    """How many keys user `uid` owns (0 when /proc/key-users does not name it)."""
    try:
        with open(KEY_USERS) as listing:
            lines = listing.readlines()
    except OSError:
        return 0  # a kernel without keys
    for line in lines:  # "  UID:  USAGE NKEYS/NIKEYS QNKEYS/MAXKEYS QNBYTES/MAXBYTES"
        owner, _, rest = line.partition(":")
        if owner.strip() == str(uid):
            return int(rest.split()[1].split("/")[0])
    return 0


def clear_user_keys(uid: int) -> None:
    """As user `uid` (after the switch to it): empty its user and user-session keyrings, if it
    has any keys at all (looking them up would create them; the second links the first again,
    as the kernel made them), then wait (briefly) for the kernel to collect what they held:
    until then /proc/keys still lists it."""
    if key_count(uid) == 0:
        return
    calls: list[tuple[int, ...]] = [
        (KEYCTL_CLEAR, KEY_SPEC_USER_KEYRING),
        (KEYCTL_CLEAR, KEY_SPEC_USER_SESSION_KEYRING),
        # The user-session keyring links the user keyring, as the kernel made them.
        (KEYCTL_LINK, KEY_SPEC_USER_KEYRING, KEY_SPEC_USER_SESSION_KEYRING),
    ]
    for call in calls:
        if _keyctl(*call) < 0 and ctypes.get_errno() not in REFUSED_BY_THE_MACHINE:
            raise _failed(f"cannot clear the keys of user {uid}")
    deadline = time.monotonic() + COLLECTED_WAIT
    while key_count(uid) > USER_KEYRINGS and time.monotonic() < deadline:
        time.sleep(0.001)


def unshare(flags: int) -> None:
    if _libc.unshare(ctypes.c_int(flags)) != 0:
        raise _failed("cannot make namespaces of its own")


def private_mounts(
    places: list[tuple[str, str]],
    keep: list[str],
    readonly: list[str],
    proc_masked: list[str] | None = None,
) -> None:
    """In a new mount namespace, a slave of the machine's mounts (it takes their mounts and
    unmounts where they propagate, and gives none back): each (SOURCE, PLACE) bound over PLACE,
    then each folder of `keep` that lies in one of them bound back at its own path, shallowest
    first, then each folder of `readonly` made a read-only bind of itself, as the bot sees it by
    then (a folder of its own in /tmp is shown again first, then made read-only, not the other
    way round), then, with `proc_masked`, a /proc of its own (`own_proc`). The sources and the
    kept folders are opened before anything is covered (the sources themselves lie in /tmp)."""
    unshare(CLONE_NEWNS)
    if _libc.mount(None, b"/", None, ctypes.c_ulong(MS_REC | MS_SLAVE), None) != 0:
        raise _failed("cannot make its mounts private")
    opened = {path: os.open(path, os.O_PATH | os.O_CLOEXEC) for path, _ in places}
    kept = sorted(dict.fromkeys(keep), key=lambda path: path.count("/"))
    opened.update({path: os.open(path, os.O_PATH | os.O_CLOEXEC) for path in kept})
    mask = os.umask(0o022)  # the folders leading to a kept one: searchable by the bot's user
    try:
        for source, place in places:
            _bind(opened[source], place, 0)
        bound: list[str] = []
        for path in kept:
            if any(path == done or path.startswith(done + "/") for done in bound):
                continue  # shown with a folder above it
            os.makedirs(path, mode=0o755, exist_ok=True)
            _bind(opened[path], path, MS_REC)
            bound.append(path)
        for folder in readonly:
            _readonly(folder)
        if proc_masked is not None:
            own_proc(proc_masked)
    finally:
        os.umask(mask)
        for fd in opened.values():
            os.close(fd)


def own_proc(masked: list[str]) -> None:
    """/proc mounted again (the bot's pid namespace is the machine's), showing no process of
    another user (`hidepid`): not its opponent's, not the referee's, not another game's bots';
    each entry of `masked` shown empty (what the kernel lists there of every user, such as
    /proc/key-users, is no bot's to read)."""
    flags = ctypes.c_ulong(MS_NOSUID | MS_NODEV | MS_NOEXEC)
    if _libc.mount(b"proc", b"/proc", b"proc", flags, OWN_PROC_OPTIONS) != 0:
        raise _failed("cannot mount a /proc of its own")
    for name in masked:
        path = os.fsencode(f"/proc/{name}")
        if not os.path.exists(path):
            continue
        if _libc.mount(b"/dev/null", path, None, ctypes.c_ulong(MS_BIND), None) != 0:
            raise _failed(f"cannot hide /proc/{name}")


def _bind(fd: int, where: str, flags: int) -> None:
    source = f"/proc/self/fd/{fd}".encode()
    if _libc.mount(source, where.encode(), None, ctypes.c_ulong(MS_BIND | flags), None) != 0:
        raise _failed(f"cannot bind over {where}")


def _readonly(folder: str) -> None:
    """`folder`, as this namespace shows it, a read-only bind of itself (keeping what the kernel
    refuses to drop from a mount: statvfs's ST_* flags are the MS_* ones)."""
    path = os.fsencode(folder)
    if _libc.mount(path, path, None, ctypes.c_ulong(MS_BIND | MS_REC), None) != 0:
        raise _failed(f"cannot bind {folder} to make it read-only")
    flags = MS_REMOUNT | MS_BIND | MS_RDONLY | (os.statvfs(path).f_flag & KEPT_FLAGS)
    if _libc.mount(None, path, None, ctypes.c_ulong(flags), None) != 0:
        raise _failed(f"cannot make {folder} read-only")


class _RulesetAttr(ctypes.Structure):
    _fields_ = [
        ("handled_access_fs", ctypes.c_uint64),
        ("handled_access_net", ctypes.c_uint64),
        ("scoped", ctypes.c_uint64),
    ]


class _PathBeneath(ctypes.Structure):
    _pack_ = 1  # the kernel's struct landlock_path_beneath_attr is packed
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def landlock_abi() -> int:
    """The Landlock ABI version of this kernel; 0 where it has none (too old, or not enabled
    at boot)."""
    version = _libc.syscall(
        ctypes.c_long(LANDLOCK_CREATE_RULESET),
        None,
        ctypes.c_size_t(0),
        ctypes.c_uint32(LANDLOCK_CREATE_RULESET_VERSION),
    )
    return max(int(version), 0)


def own_domain(handled_fs: int, scoped: int) -> None:
    """This process (and all it starts) in a new Landlock domain handling `handled_fs` and
    scoped by `scoped`; where the right to move files between folders is handled, it is granted
    beneath /, so that nothing a bot does with its files is refused. No-new-privileges first:
    a process without CAP_SYS_ADMIN may not enter a domain without it."""
    attr = _RulesetAttr(handled_fs, 0, scoped)
    ruleset = _libc.syscall(
        ctypes.c_long(LANDLOCK_CREATE_RULESET),
        ctypes.byref(attr),
        ctypes.c_size_t(ctypes.sizeof(attr)),
        ctypes.c_uint32(0),
    )
    if ruleset < 0:
        raise _failed("cannot make a Landlock ruleset")
    try:
        if handled_fs & LANDLOCK_ACCESS_FS_REFER:
            _grant_beneath_root(ruleset, LANDLOCK_ACCESS_FS_REFER)
        zero = ctypes.c_ulong(0)
        one = ctypes.c_ulong(1)
        if _libc.prctl(ctypes.c_int(PR_SET_NO_NEW_PRIVS), one, zero, zero, zero) != 0:
            raise _failed("cannot set no-new-privileges")
        restricted = _libc.syscall(
            ctypes.c_long(LANDLOCK_RESTRICT_SELF), ctypes.c_int(ruleset), ctypes.c_uint32(0)
        )
        if restricted != 0:
            raise _failed("cannot enter a Landlock domain of its own")
    finally:
        os.close(ruleset)


def _grant_beneath_root(ruleset: int, access: int) -> None:
    root = os.open("/", os.O_PATH | os.O_CLOEXEC)
    try:
        rule = _PathBeneath(access, root)
        added = _libc.syscall(
            ctypes.c_long(LANDLOCK_ADD_RULE),
            ctypes.c_int(ruleset),
            ctypes.c_int(LANDLOCK_RULE_PATH_BENEATH),
            ctypes.byref(rule),
            ctypes.c_uint32(0),
        )
        if added != 0:
            raise _failed("cannot add a Landlock rule")
    finally:
        os.close(root)


class _Program(ctypes.Structure):
    _fields_ = [("length", ctypes.c_ushort), ("instructions", ctypes.c_void_p)]


def install_filter(program: bytes) -> None:
    """No new privileges, then the seccomp program (8 bytes an instruction)."""
    one = ctypes.c_ulong(1)
    zero = ctypes.c_ulong(0)
    if _libc.prctl(ctypes.c_int(PR_SET_NO_NEW_PRIVS), one, zero, zero, zero) != 0:
        raise _failed("cannot set no-new-privileges")
    instructions = ctypes.create_string_buffer(program, len(program))
    fprog = _Program(len(program) // 8, ctypes.addressof(instructions))
    mode = ctypes.c_ulong(SECCOMP_MODE_FILTER)
    if _libc.prctl(ctypes.c_int(PR_SET_SECCOMP), mode, ctypes.byref(fprog), zero, zero) != 0:
        raise _failed("cannot install the system-call filter")
