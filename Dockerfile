# One image for both processes of openvox:
#   api:    node dist/api/main.js     (the default CMD)
#   worker: node dist/worker/main.js  (docker-compose.yml overrides the command)
# The health check lives in docker-compose.yml on the api service, because the
# worker runs the same image and serves no HTTP.

# ---------------------------------------------------------------- build stage
FROM node:20.20-bookworm-slim AS build
WORKDIR /app

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
    PORT=3000

WORKDIR /app

COPY package.json package-lock.json ./
RUN (npm ci --omit=dev --no-audit --no-fund || npm install --no-save --omit=dev --no-audit --no-fund) \
    && npm cache clean --force

COPY --from=build /app/dist ./dist

# MAIL_DIR in docker-compose.yml is /data/mail on a named volume; a new named
# volume takes the owner of the directory it is mounted on, so create it here
# for the unprivileged user.
RUN mkdir -p /data/mail && chown -R node:node /data

USER node

EXPOSE 3000

CMD ["node", "dist/api/main.js"]
