# Stand-in for quay.io/minio/minio: the MinIO server the repository builds
# (~/.cache/openvox/bin/minio, copied into the context), and an `mc` that
# answers `mc ready local` (compose's health check) from MinIO's readiness
# endpoint.
ARG BASE
FROM ${BASE}
RUN apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends curl \
    && rm -rf /var/lib/apt/lists/* \
    && printf '#!/bin/sh\n[ "$*" = "ready local" ] || { echo "mc (stand-in): only ready local" >&2; exit 2; }\nexec curl -fsS -o /dev/null http://127.0.0.1:9000/minio/health/ready\n' \
        > /usr/local/bin/mc \
    && chmod 755 /usr/local/bin/mc
COPY minio /usr/local/bin/minio
ENTRYPOINT ["/usr/local/bin/minio"]
