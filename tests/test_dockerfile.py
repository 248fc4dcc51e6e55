"""The container image as far as it can be checked without a Docker engine: what the Dockerfile
copies exists, it installs bubblewrap, keeps data in a volume, runs the installed `referee`
command, and the web server it runs listens where `docker run -p` can reach it."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOCKERFILE = (ROOT / "Dockerfile").read_text()
STEPS = [line.split(None, 1) for line in DOCKERFILE.splitlines() if line and line[0].isupper()]


def instructions(name: str) -> list[str]:
    return [rest for step, rest in STEPS if step == name]


def test_everything_the_image_copies_exists() -> None:
    for rest in instructions("COPY"):
        *sources, _ = rest.split()
        for source in sources:
            assert (ROOT / source).exists(), source


def test_the_image_contains_bots_installs_bubblewrap_and_keeps_data_in_a_volume() -> None:
    assert "apt-get install -y --no-install-recommends bubblewrap" in DOCKERFILE
    assert instructions("VOLUME") == ["/data"] and instructions("WORKDIR")[-1] == "/data"
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert instructions("ENTRYPOINT") == ['["referee"]'] and "referee" in scripts


def test_the_web_server_listens_where_the_image_says() -> None:
    env_line = next(rest for rest in instructions("ENV") if "REFEREE_WEB_HOST" in rest)
    host = env_line.split("REFEREE_WEB_HOST=")[1].split()[0]
    done = subprocess.run(
        [sys.executable, "-m", "referee", "serve", "--help"],
        env={**os.environ, "REFEREE_WEB_HOST": host}, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0 and f"({host}" in done.stdout
    plain = subprocess.run(
        [sys.executable, "-m", "referee", "serve", "--help"],
        env={k: v for k, v in os.environ.items() if k != "REFEREE_WEB_HOST"},
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert "(127.0.0.1: this machine only)" in " ".join(plain.stdout.split())
