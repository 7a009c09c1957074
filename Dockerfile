# syntax=docker/dockerfile:1
# Build stage: Bun compiles tinyhost and every bundled component into one binary.
FROM oven/bun:1.4.4-debian AS build
WORKDIR /src
COPY package.json package-lock.json bunfig.toml tsconfig.json ./
RUN bun install --frozen-lockfile --production=false --ignore-scripts
COPY src ./src
COPY components ./components
COPY scripts ./scripts
COPY crds ./crds
RUN bun scripts/build.ts

# Run stage: a minimal glibc base, no shell, non-root (uid 65532 as the chart's securityContext).
FROM gcr.io/distroless/base-debian12:nonroot
COPY --from=build /src/dist/tinyhost /usr/local/bin/tinyhost
USER 65532:65532
ENTRYPOINT ["/usr/local/bin/tinyhost", "run"]
