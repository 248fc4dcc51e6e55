"""A course folder with a handful of tiny Alak submissions, as students hand them in.

The good bots keep their own board (captures and the no-recapture ban) and play the first point
they believe legal, in Python, Java and C; the others fail in one way each.
"""

from __future__ import annotations

import subprocess
import tarfile
import textwrap
import zipfile
from pathlib import Path

from referee.course.scheme import write_skeleton

PYTHON_BOT = """\
import sys

N = 11
board = [0] * N  # 0 empty, 1 mine, 2 theirs
banned = set()


def put(point, who):
    other = 3 - who
    board[point] = who
    for step in (-1, 1):
        i = point + step
        while 0 <= i < N and board[i] == other:
            i += step
        if i != point + step and (not 0 <= i < N or board[i] == who):
            for j in range(point + step, i, step):
                board[j] = 0
                if who == 2:
                    banned.add(j)


def main():
    colour = sys.stdin.readline().strip()
    first = colour == "blue"
    while True:
        if not first:
            line = sys.stdin.readline().strip()
            if not line or line == "END":
                return
            banned.clear()
            put(ord(line[0]) - ord("a"), 2)
        first = False
        point = next((p for p in range(N) if board[p] == 0 and p not in banned), 0)
        put(point, 1)
        print(chr(ord("a") + point), flush=True)


if __name__ == "__main__":
    main()
"""

JAVA_BOT = """\
import java.io.*;

public class Main {
    static final int N = 11;
    static int[] board = new int[N];
    static boolean[] banned = new boolean[N];

    static void put(int p, int who) {
        int other = 3 - who;
        board[p] = who;
        for (int step = -1; step <= 1; step += 2) {
            int i = p + step;
            while (i >= 0 && i < N && board[i] == other) i += step;
            if (i != p + step && (i < 0 || i >= N || board[i] == who)) {
                for (int j = p + step; j != i; j += step) {
                    board[j] = 0;
                    if (who == 2) banned[j] = true;
                }
            }
        }
    }

    public static void main(String[] args) throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        boolean first = "blue".equals(in.readLine().trim());
        while (true) {
            if (!first) {
                String line = in.readLine();
                if (line == null || line.trim().equals("END")) return;
                java.util.Arrays.fill(banned, false);
                put(line.trim().charAt(0) - 'a', 2);
            }
            first = false;
            int p = 0;
            while (p < N && (board[p] != 0 || banned[p])) p++;
            if (p == N) p = 0;
            put(p, 1);
            System.out.println((char) ('a' + p));
            System.out.flush();
        }
    }
}
"""

C_BOT = """\
#include <stdio.h>
#include <string.h>
#define N 11
static int board[N], banned[N];

static void put(int p, int who) {
    int other = 3 - who;
    board[p] = who;
    for (int step = -1; step <= 1; step += 2) {
        int i = p + step;
        while (i >= 0 && i < N && board[i] == other) i += step;
        if (i != p + step && (i < 0 || i >= N || board[i] == who))
            for (int j = p + step; j != i; j += step) {
                board[j] = 0;
                if (who == 2) banned[j] = 1;
            }
    }
}

int main(void) {
    char line[256];
    if (!fgets(line, sizeof line, stdin)) return 0;
    int first = strncmp(line, "blue", 4) == 0;
    for (;;) {
        if (!first) {
            if (!fgets(line, sizeof line, stdin) || strncmp(line, "END", 3) == 0) return 0;
            memset(banned, 0, sizeof banned);
            put(line[0] - 'a', 2);
        }
        first = 0;
        int p = 0;
        while (p < N && (board[p] || banned[p])) p++;
        if (p == N) p = 0;
        put(p, 1);
        printf("%c\\n", 'a' + p);
        fflush(stdout);
    }
}
"""

CRASHES = """\
import sys
sys.stdin.readline()
sys.stderr.write("Traceback: KeyError: 'board'\\n")
sys.exit(3)
"""

ILLEGAL = """\
import sys
colour = sys.stdin.readline().strip()
while True:
    if colour != "blue":
        line = sys.stdin.readline().strip()
        if not line or line == "END":
            break
    colour = ""
    print("a", flush=True)
"""

# Plays like the good bot, but thinks too long from its third move on.
SLOW = PYTHON_BOT.replace(
    "        put(point, 1)\n",
    "        moves.append(point)\n"
    "        if len(moves) > 2:\n"
    "            import time; time.sleep(30)\n"
    "        put(point, 1)\n",
).replace("banned = set()\n", "banned = set()\nmoves = []\n")

BROKEN_C = "int main(void) { this is not C }\n"


def write(folder: Path, files: dict[str, str]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (folder / name).write_text(textwrap.dedent(text))
    return folder


MAKEFILE = "bot: main.c\n\tcc -O2 -o bot main.c\n"


def make_course(root: Path, *, java: bool = True, c: bool = True) -> Path:
    """A course folder under `root` with one entry per student; returns the course folder."""
    course = root / "course"
    write_skeleton(course, "Test course", "alak")
    text = (course / "course.toml").read_text()
    text = text.replace("move_timeout = 2.0", "move_timeout = 1.0")
    text = text.replace("games_per_pairing = 2", "games_per_pairing = 1")
    (course / "course.toml").write_text(text)
    subs = course / "submissions"
    write(subs / "alice", {"player.py": PYTHON_BOT})  # Python, found by convention
    if java:
        write(subs / "bob", {"Main.java": JAVA_BOT})
    if c:
        write(subs / "carol", {"bot.c": C_BOT})
        write(subs / "dave", {"bot.c": BROKEN_C})
        write(subs / "jack", {"Makefile": MAKEFILE, "main.c": C_BOT})
    write(subs / "erin", {"player.py": CRASHES})
    write(subs / "fred", {"run.txt": "python3 mine.py\n", "mine.py": ILLEGAL})
    write(subs / "ivan", {"player.py": SLOW})
    with zipfile.ZipFile(subs / "gina.zip", "w") as zf:  # zipped, in a top folder of its own
        zf.writestr("gina/player.py", PYTHON_BOT)
    kate = write(root / "kate-src", {"player.py": PYTHON_BOT})
    with tarfile.open(subs / "kate.tar.gz", "w:gz") as tar:  # a tarball, files at its top
        tar.add(kate / "player.py", arcname="player.py")
    # A manifest naming a build step and the command (a script the build writes).
    manifest = 'build = "cp source.py built.py"\nrun = "python3 built.py"\n'
    write(subs / "leo", {"referee.toml": manifest, "source.py": PYTHON_BOT})
    repo = write(root / "hugo-repo", {"player.py": PYTHON_BOT})
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    subprocess.run([*git, "-C", str(repo), "add", "."], check=True)
    subprocess.run([*git, "-C", str(repo), "commit", "-qm", "bot"], check=True)
    head = subprocess.run(
        ["git", "-C", str(repo), "rev-parse", "HEAD"], check=True, capture_output=True, text=True
    ).stdout.strip()
    (repo / "player.py").write_text("this later commit does not run\n")
    subprocess.run([*git, "-C", str(repo), "commit", "-qam", "broken"], check=True)
    write(subs / "hugo", {"repo.txt": f"# the repository, then the commit\n{repo}\n{head}\n"})
    return course
