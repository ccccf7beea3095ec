# Stand-in for python:3.12-slim-bookworm (the voice stage only needs python3
# and pip): Debian's python3-pip, and the host's CA bundle for PyPI (beside
# Debian's, which apt's ca-certificates rewrites).
ARG BASE
FROM ${BASE}
RUN apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends python3-pip \
    && rm -rf /var/lib/apt/lists/*
COPY ca-certificates.crt /usr/local/share/host-ca-bundle.crt
ENV PIP_CERT=/usr/local/share/host-ca-bundle.crt
