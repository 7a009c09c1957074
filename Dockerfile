# syntax=docker/dockerfile:1
# tinyhost image: one compiled binary (runtime + bundled components + CRDs) at /manager, where the
# platform's tinysystems-operator chart runs every module (`command: [/manager]`, args `run …`,
# `pre-install`, `pre-delete`), on a minimal glibc base, as uid 65532 like the chart's
# securityContext. Checked statically by test/unit/dockerfile.test.ts (no Docker engine in CI); the
# chart's way of running it by test/integration/chart-install.test.ts.

# The two base images, as build arguments so a machine without a registry can build from local
# equivalents (`npm run image`, scripts/image/; docs/operations.md "Building the image"). The
# defaults are the public images; any replacement must be the same thing: Bun 1.4.4 on Debian 12
# (glibc), and a Debian 12 slim root filesystem.
ARG BUN_IMAGE=oven/bun:1.4.4-debian
ARG BASE_IMAGE=debian:12.11-slim

# ---- build: locked install, then `bun scripts/build.ts` (static registry + bun build --compile)
FROM ${BUN_IMAGE} AS build
WORKDIR /src
# Manifests first so the install layer is cached while only sources change. Bun reads
# package-lock.json and --frozen-lockfile fails on any drift from package.json, as `npm ci` does;
# --production skips dev tools (typescript, the bun npm package) the compile does not need.
COPY package.json package-lock.json bunfig.toml tsconfig.json ./
RUN bun install --frozen-lockfile --production --ignore-scripts
COPY scripts ./scripts
COPY src ./src
COPY components ./components
COPY crds ./crds
# The demo is in the binary (src/cli/commands/demo.ts imports examples/generate.ts).
COPY examples ./examples
RUN bun scripts/build.ts

# ---- run: Debian slim (glibc for the Bun binary), nothing but the binary, non-root, no shell use.
FROM ${BASE_IMAGE} AS run
COPY --from=build /src/dist/tinyhost /manager
# The health probes (8081) and the gRPC fallback (8483), as the Deployment declares them.
EXPOSE 8081 8483
# JavaScriptCore sizes its collection cadence to the RAM it sees (the node's, not the pod's limit),
# so under traffic garbage piled up to ~120 MiB RssAnon at 1,000 nodes. It is told half the chart's
# 128Mi limit: the other half is for the binary's own code pages (~40 MiB in use), which the
# pod's memory cgroup charges too. Told 128Mi, anon reached ~85-95 MiB and a 128Mi pod thrashed on
# its code pages (throughput 0.06-0.45x, no OOM kill); told 64Mi it stays at ~70 MiB and serves at
# 0.68-1.11x (docs/operations.md §8 "In a pod", bench/memory.ts). JSC reads its options at
# start-up, before the binary runs any code, hence ENV here. The rule for another pod limit: half of
# it, in bytes (256Mi -> 134217728), set with the chart's controllerManager.manager.extraEnv.
ENV BUN_JSC_forceRAMSize=67108864
# JavaScriptCore's optimizing JIT tiers (DFG, and FTL above it) are off: at 1,000 nodes under steady
# traffic they held ~17 MiB of RSS (~5 MiB of the binary's compiler code, ~11 MiB of the allocator's
# arena for compiled code and compile-time data, ~1.5 MiB of JIT code) and took VmRSS from ~96 to
# ~115 MiB (issue 19's target: <= 100). Inside a 128Mi pod the module served as many requests/s
# without them (bench/memory.ts, 5 pairs, median 1.08x) and its code pages kept their room; without
# a limit, turning them off gave 0.25-1.2x the requests/s (median 0.56x, 9 pairs on a shared 2-core
# machine). The baseline JIT stays. A pod
# with a larger limit may set BUN_JSC_useDFGJIT=1 through the chart's
# controllerManager.manager.extraEnv (docs/operations.md §8).
ENV BUN_JSC_useDFGJIT=0
USER 65532:65532
# The chart replaces this with `command: [/manager]` + `args: [run, ...]` (or pre-install,
# pre-delete); `docker run <image> --name ... --version ...` gets the same `run`, and
# `docker run --entrypoint /manager <image> tools rbac-values` the chart values overlay.
# Probes, not HEALTHCHECK. Nothing is written outside /tmp (an emptyDir under readOnlyRootFilesystem).
ENTRYPOINT ["/manager", "run"]
