# The referee in a container: `docker build -t referee .` then
# `docker run --rm referee play lasker-morris -p1 builtin:random -p2 builtin:random`.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
WORKDIR /app
COPY pyproject.toml README.md ./
COPY protocols ./protocols
COPY referee ./referee
COPY bots ./bots
RUN pip install --no-cache-dir . && useradd --create-home referee
USER referee
WORKDIR /home/referee
ENTRYPOINT ["referee"]
CMD ["--help"]
