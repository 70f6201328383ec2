# sparkwire: a PostgreSQL-wire server. Debian 12 + Python 3.11 + Java 17 (for Spark).
#   docker build -t sparkwire .
#   docker run -p 6875:6875 -p 6876:6876 -v sparkwire-data:/data sparkwire
#   psql -h 127.0.0.1 -p 6875 -U materialize materialize
FROM python:3.11-slim-bookworm

RUN apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends openjdk-17-jre-headless \
    && rm -rf /var/lib/apt/lists/*

WORKDIR /src
COPY pyproject.toml README.md ./
COPY sparkwire ./sparkwire
# the console serves the notice docs: sparkwire/console/notice_docs links to docs/notices (package data)
COPY docs/notices ./docs/notices
RUN pip install --no-cache-dir .

VOLUME /data
EXPOSE 6875 6876
WORKDIR /data
ENTRYPOINT ["sparkwire"]
# Reachable from outside the container, so password (SCRAM) auth by default: the server refuses to start
# without SPARKWIRE_SUPERUSER_PASSWORD. Override the command to choose otherwise.
# The web console (docs/console.md) listens on 6876 with the same password logins.
CMD ["serve", "--host", "0.0.0.0", "--port", "6875", "--data-dir", "/data", "--auth", "password", \
     "--http-host", "0.0.0.0"]
