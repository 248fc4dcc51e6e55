# The referee in a container. Build: `docker build -t referee .`
# Play:   docker run --rm referee play lasker-morris -p1 builtin:random -p2 builtin:random
# Data:   records and tournament stores go to /data: mount a folder there to keep them,
#         docker run --rm -v "$PWD:/data" referee tournament run tournament.toml
# Web:    the server listens on every interface inside the container (REFEREE_WEB_HOST), so
#         docker run --rm -p 8000:8000 -v "$PWD:/data" referee serve
#         is reachable at http://localhost:8000/ from the host.
# Containment: bubblewrap is installed, but Docker's default seccomp profile refuses the
# namespaces it needs; `--security-opt seccomp=unconfined` lets the sandbox level work, and
# every run names on its first line the isolation level its bots actually get.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 REFEREE_WEB_HOST=0.0.0.0
WORKDIR /app
COPY pyproject.toml README.md ./
COPY protocols ./protocols
COPY referee ./referee
COPY bots ./bots
# The bots' compiled supervisor, launcher and sandbox (referee/isolation/helper.c, sandbox.c) is
# built here, by the user that runs the referee and into its cache, in the same layer that
# installs the compiler and removes it again: each bot then starts without two extra Python
# interpreters. So are the search bot's compiled Lasker Morris core and its endgame tables
# (bots/morris, about 10 s). (The image's referee is not root: bubblewrap makes the sandbox.)
RUN apt-get update \
    && apt-get install -y --no-install-recommends bubblewrap gcc libc6-dev \
    && pip install --no-cache-dir . && useradd --create-home referee \
    && mkdir /data && chown referee:referee /data \
    && su referee -s /bin/sh -c \
        "python -c 'from referee.isolation.native import native_helper; assert native_helper()'" \
    && su referee -s /bin/sh -c "python -m bots.solvers.cache --build --game lasker-morris" \
    && apt-get purge -y --auto-remove gcc libc6-dev \
    && rm -rf /var/lib/apt/lists/*
USER referee
VOLUME /data
WORKDIR /data
EXPOSE 8000
ENTRYPOINT ["referee"]
CMD ["--help"]
