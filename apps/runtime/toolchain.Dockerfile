# The agent runtime's toolchain image, `occ-runtime-toolchain:<key>`: the pinned Node 24, OpenClaw
# and the Codex pieces `npm ci` installed (apps/runtime/{node24,openclaw,codex}) and the machine's
# npm, about 1.2 GB, under /opt/occ. Built by scripts/build-runtime-image.mjs only when no image
# carries the key of its content (the lockfiles, the install script, npm's version, the base's id
# …; not file times, which every `npm ci` renews); apps/runtime/Dockerfile builds the runtime
# image FROM it. No step needs a network.
ARG BASE_IMAGE=debian:bookworm-slim
FROM ${BASE_IMAGE}

# Root-owned (COPY's default), no file writable by group or others (the build script checks):
# read-only to the runtime user.
COPY toolchain /opt/occ

ARG OCC_TOOLCHAIN_KEY=none
LABEL org.occ.runtime-toolchain="${OCC_TOOLCHAIN_KEY}"
