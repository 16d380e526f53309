# syntax=docker/dockerfile:1
# The nod-gateway image: the gateway, built as every nod image is.
# From the repository root:
#   docker build --file deploy/docker/gateway.Dockerfile --tag nod-gateway:0.1.0 .
# `make lint` checks that every Dockerfile here is this one with its own names
# (hadolint too), and tests/test_wheels.py runs what the build stage installs.

# Build: the wheels of nod-gateway and the workspace packages it needs, and the
# third-party packages exactly as uv.lock pins them (with their hashes), into
# a virtualenv at /opt/nod (deploy/docker/install_service.py).
FROM python:3.11-slim-bookworm AS build
ENV PIP_DISABLE_PIP_VERSION_CHECK=1
RUN pip install --no-cache-dir uv==0.13.9
WORKDIR /src
COPY . .
RUN python deploy/docker/install_service.py nod-gateway /opt/nod \
    --python /usr/local/bin/python3 --wheels /tmp/wheels --compile-bytecode

# Run: the slim Python and that virtualenv; no uv, no compiler, no sources.
# Nothing is written outside /tmp (an emptyDir under a read-only root), and
# the bytecode was compiled above.
FROM python:3.11-slim-bookworm
RUN useradd --uid 10001 --user-group --no-create-home --home-dir /tmp \
    --shell /usr/sbin/nologin nod
COPY --from=build /opt/nod /opt/nod
ENV PATH=/opt/nod/bin:$PATH \
    HOME=/tmp \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    NOD_GATEWAY_LISTEN=0.0.0.0:8080 \
    NOD_GATEWAY_METRICS_LISTEN=0.0.0.0:9080
USER 10001:10001
EXPOSE 8080 9080
# `serve` by default; the migration Job runs `migrate` with the same image.
ENTRYPOINT ["nod-gateway"]
CMD ["serve"]
