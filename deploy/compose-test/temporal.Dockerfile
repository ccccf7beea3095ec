# Stand-ins for the temporalio/* images, from the Temporal CLI the repository
# builds (~/.cache/openvox/bin/temporal, copied into the context):
#   server       the CLI's dev server (in-memory; the real image keeps its
#                state in PostgreSQL), with the dynamic config file compose mounts
#   admin-tools  the real `temporal` CLI, and a temporal-sql-tool that only
#                says the dev server keeps its own schema
#   ui           the dev server's own web UI, forwarded from port 8080
ARG BASE
FROM ${BASE} AS common
RUN apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends netcat-openbsd socat \
    && rm -rf /var/lib/apt/lists/*
COPY temporal /usr/local/bin/temporal

FROM common AS server
COPY temporal-server.sh /usr/local/bin/temporal-server.sh
RUN chmod 755 /usr/local/bin/temporal-server.sh
ENTRYPOINT ["/usr/local/bin/temporal-server.sh"]

FROM common AS admin-tools
RUN printf '#!/bin/sh\necho "temporal-sql-tool (stand-in): the dev server keeps its own schema; skipped: $*"\n' \
        > /usr/local/bin/temporal-sql-tool \
    && chmod 755 /usr/local/bin/temporal-sql-tool

FROM common AS ui
ENTRYPOINT ["socat", "TCP-LISTEN:8080,fork,reuseaddr", "TCP:temporal:8233"]
