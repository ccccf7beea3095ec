# Stand-in for postgres:15.18-bookworm: Debian's postgresql-15 with an
# entrypoint that honours the official image's POSTGRES_USER,
# POSTGRES_PASSWORD and POSTGRES_DB on first start (superuser, password
# authentication over TCP, listening on every address of the container).
ARG BASE
FROM ${BASE}
RUN apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends postgresql-15 \
    && rm -rf /var/lib/apt/lists/* \
    && mkdir -p /var/lib/postgresql/data /var/run/postgresql \
    && chown -R postgres:postgres /var/lib/postgresql /var/run/postgresql \
    && chmod 700 /var/lib/postgresql/data
COPY postgres-entrypoint.sh /usr/local/bin/postgres-entrypoint.sh
RUN chmod 755 /usr/local/bin/postgres-entrypoint.sh
ENV PATH=/usr/lib/postgresql/15/bin:$PATH PGDATA=/var/lib/postgresql/data
USER postgres
ENTRYPOINT ["/usr/local/bin/postgres-entrypoint.sh"]
