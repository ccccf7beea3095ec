# Stand-in for axllent/mailpit: an SMTP catcher on port 1025 that writes each
# message as an .eml file into /mail (the test reads them there, as README's
# first session reads .data/mail). No web UI.
ARG BASE
FROM ${BASE}
RUN apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends python3-aiosmtpd \
    && rm -rf /var/lib/apt/lists/*
COPY mailcatcher.py /usr/local/bin/mailcatcher.py
ENTRYPOINT ["python3", "/usr/local/bin/mailcatcher.py"]
