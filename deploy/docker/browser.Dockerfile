# syntax=docker/dockerfile:1
# The nod-browser image: the browser service, built as every nod image is.
# From the repository root:
#   docker build --file deploy/docker/browser.Dockerfile --tag nod-browser:0.1.0 .
# `make lint` checks that every Dockerfile here is this one with its own names
# (hadolint too), and tests/test_wheels.py runs what the build stage installs.

# Build: the wheels of nod-browser and the workspace packages it needs, and the
# third-party packages exactly as uv.lock pins them (with their hashes), into
# a virtualenv at /opt/nod (deploy/docker/install_service.py).
FROM python:3.11-slim-bookworm AS build
ENV PIP_DISABLE_PIP_VERSION_CHECK=1
RUN pip install --no-cache-dir uv==0.13.9
WORKDIR /src
COPY . .
RUN python deploy/docker/install_service.py nod-browser /opt/nod \
    --python /usr/local/bin/python3 --wheels /tmp/wheels --compile-bytecode

# Run: the slim Python and that virtualenv; no uv, no compiler, no sources.
# Nothing is written outside /tmp (an emptyDir under a read-only root), and
# the bytecode was compiled above.
FROM python:3.11-slim-bookworm
RUN useradd --uid 10001 --user-group --no-create-home --home-dir /tmp \
    --shell /usr/sbin/nologin nod

# browser only: Debian's headless Chromium (the shell without the desktop
# browser, which spends CPU painting pages nobody sees) and fonts for the
# pages it reads; never a browser build of Playwright's own. Debian's
# security updates replace its version, so pinning one would break the next
# build (DL3008): the base image's Debian release is the pin.
# hadolint ignore=DL3008
RUN apt-get update \
 && apt-get install --yes --no-install-recommends chromium-headless-shell fonts-liberation \
    fonts-noto-core \
 && rm -rf /var/lib/apt/lists/*
ENV NOD_BROWSER_CHROMIUM=/usr/bin/chromium-headless-shell
# browser only: end
COPY --from=build /opt/nod /opt/nod
ENV PATH=/opt/nod/bin:$PATH \
    HOME=/tmp \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    NOD_BROWSER_LISTEN=0.0.0.0:50054 \
    NOD_BROWSER_METRICS_LISTEN=0.0.0.0:52054
USER 10001:10001
EXPOSE 50054 51054 52054
# `serve` by default; the migration Job runs `migrate` with the same image.
ENTRYPOINT ["nod-browser"]
CMD ["serve"]
