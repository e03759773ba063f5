# The OCC control-plane image: the `occ` command, which runs the controller (`occ up`) and the
# reconcile workers (`occ worker`). Built from the repository root because it needs the whole
# workspace (controller, CLI, console, contracts, policy, and the runtime's launch helpers).
# The agent runtime has its own image: apps/runtime/Dockerfile.
#
#   docker build -t occ-controller:0.1.0 .
#   docker build --build-arg BASE_IMAGE=registry.example.com/node:24-bookworm-slim -t … .
#
# BASE_IMAGE must provide Node.js >= 24 (package.json's engines) and npm (the official node
# images do). Nothing in the image is writable by its user: the controller writes only to
# /var/lib/occ (OCC_DATA_DIR: the first-start administrator key) and /tmp (the TypeScript
# loader's cache), both volumes at run time, so the root filesystem can be mounted read-only.
ARG BASE_IMAGE=node:24-bookworm-slim

FROM ${BASE_IMAGE} AS build
WORKDIR /opt/occ
COPY . .
# --ignore-scripts: the runtime's postinstall downloads the agent toolchain (Node 24, OpenClaw,
# Codex), which this image never runs (it is in the runtime image). The two bundles the install
# scripts would build are built explicitly instead.
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund \
 && npm run build -w @occ/console \
 && npm run build -w @occ/cli \
 && rm -rf /root/.npm

FROM ${BASE_IMAGE}
ARG OCC_VERSION=dev
LABEL org.opencontainers.image.title="occ-controller" \
      org.opencontainers.image.description="OCC, the OpenClaw Enterprise control plane: controller and workers" \
      org.opencontainers.image.version="${OCC_VERSION}" \
      org.opencontainers.image.source="deploy/kubernetes (docs/kubernetes.md)"
# Root-owned and read-only to the process user.
COPY --from=build /opt/occ /opt/occ
# The data directory's mount point, owned by the process user for a plain `docker run`.
RUN mkdir -p /var/lib/occ && chown 10001:10001 /var/lib/occ && chmod 0700 /var/lib/occ
ENV NODE_ENV=production \
    OCC_DATA_DIR=/var/lib/occ \
    HOME=/var/lib/occ
# No user database entry is needed: Kubernetes and Docker run numeric ids.
USER 10001:10001
EXPOSE 8080
ENTRYPOINT ["node", "/opt/occ/apps/cli/bin/occ.mjs"]
CMD ["up", "--host", "0.0.0.0", "--port", "8080", "--no-context"]
