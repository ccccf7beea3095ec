# Stand-in for node:20.20-bookworm-slim, made from the debootstrapped base: the
# Node binary and npm the host runs (scripts/compose-test.sh copies them into
# the build context), a user `node` (uid 1000) as in the official image, and
# the host's CA bundle so npm reaches the registry through this machine's
# proxy (beside Debian's, which apt's ca-certificates rewrites). Build-time
# only: nothing here is the product.
ARG BASE
FROM ${BASE}
COPY ca-certificates.crt /usr/local/share/host-ca-bundle.crt
COPY node /usr/local/bin/node
COPY npm /usr/local/lib/node_modules/npm
RUN ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \
    && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx \
    && groupadd --gid 1000 node \
    && useradd --uid 1000 --gid node --shell /bin/bash --create-home node \
    && node --version && npm --version
ENV NODE_EXTRA_CA_CERTS=/usr/local/share/host-ca-bundle.crt
