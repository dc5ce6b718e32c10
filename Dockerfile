# syntax=docker/dockerfile:1
#
# One image for the whole platform: the gateway and the six gRPC services share
# the kernel, the proto contract and ~99 % of their dependencies, so one image
# (one build, one scan, one set of layers on every node) runs any component.
# The component is chosen by the command:
#
#   docker run ppay/platform                                          # gateway (default CMD)
#   docker run ppay/platform node services/payments/dist/main.js      # a service
#
# docker-compose.yml and the Helm chart set the command per component. Every
# process must get METRICS_PORT (the HEALTHCHECK reads it) and bind hosts
# 0.0.0.0 (set below; the code defaults to 127.0.0.1 for local runs).
#
# Build from the repository root:  docker build -t ppay/platform:local .

ARG NODE_IMAGE=node:20-bookworm-slim

# ---------------------------------------------------------------- build ----
# Full install (dev dependencies: typescript, proto type generator) and build.
FROM ${NODE_IMAGE} AS build
WORKDIR /src
ENV CI=true NPM_CONFIG_UPDATE_NOTIFIER=false NPM_CONFIG_FUND=false NPM_CONFIG_AUDIT=false
# Manifests first so the dependency layer is cached until a package.json or the lock changes.
COPY package.json package-lock.json ./
COPY proto/package.json proto/
COPY packages/kernel/package.json packages/kernel/
COPY packages/runtime/package.json packages/runtime/
COPY packages/stripe-support/package.json packages/stripe-support/
COPY packages/webhooks-receiver/package.json packages/webhooks-receiver/
COPY packages/devstack/package.json packages/devstack/
COPY gateway/package.json gateway/
COPY services/payments/package.json services/payments/
COPY services/fx-pricing/package.json services/fx-pricing/
COPY services/subscriptions/package.json services/subscriptions/
COPY services/marketplace/package.json services/marketplace/
COPY services/kyc/package.json services/kyc/
COPY services/webhooks/package.json services/webhooks/
RUN --mount=type=cache,target=/root/.npm npm ci
COPY . .
RUN npm run build

# ---------------------------------------------------------- prod-deps ----
# Production dependencies of the runtime workspaces only (no devstack: it pulls
# autocannon for benchmarks; no webhooks-receiver: a client SDK no process imports),
# without type declarations, source maps and docs.
FROM ${NODE_IMAGE} AS prod-deps
WORKDIR /app
ENV CI=true NPM_CONFIG_UPDATE_NOTIFIER=false NPM_CONFIG_FUND=false NPM_CONFIG_AUDIT=false
COPY --from=build /src/package.json /src/package-lock.json ./
COPY --from=build /src/proto/package.json proto/
COPY --from=build /src/packages/kernel/package.json packages/kernel/
COPY --from=build /src/packages/runtime/package.json packages/runtime/
COPY --from=build /src/packages/stripe-support/package.json packages/stripe-support/
COPY --from=build /src/packages/webhooks-receiver/package.json packages/webhooks-receiver/
COPY --from=build /src/packages/devstack/package.json packages/devstack/
COPY --from=build /src/gateway/package.json gateway/
COPY --from=build /src/services/payments/package.json services/payments/
COPY --from=build /src/services/fx-pricing/package.json services/fx-pricing/
COPY --from=build /src/services/subscriptions/package.json services/subscriptions/
COPY --from=build /src/services/marketplace/package.json services/marketplace/
COPY --from=build /src/services/kyc/package.json services/kyc/
COPY --from=build /src/services/webhooks/package.json services/webhooks/
RUN --mount=type=cache,target=/root/.npm \
    npm ci --omit=dev --ignore-scripts \
      --workspace=gateway \
      --workspace=services/payments --workspace=services/fx-pricing --workspace=services/subscriptions \
      --workspace=services/marketplace --workspace=services/kyc --workspace=services/webhooks \
 && rm -rf packages/devstack node_modules/@ppay/devstack \
      packages/webhooks-receiver node_modules/@ppay/webhooks-receiver \
 && find node_modules -type f \( -name '*.d.ts' -o -name '*.d.mts' -o -name '*.d.cts' -o -name '*.map' \
      -o -name '*.md' -o -name '*.markdown' \) -delete

# -------------------------------------------------------------- runtime ----
FROM ${NODE_IMAGE} AS runtime
LABEL org.opencontainers.image.title="partner-payments-platform" \
      org.opencontainers.image.description="Partner payments platform: gateway and gRPC services (one image, command selects the component)"
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    GRPC_HOST=0.0.0.0 \
    METRICS_HOST=0.0.0.0 \
    PORT=8080 \
    METRICS_PORT=9100
WORKDIR /app
# Dependencies, then the built workspaces (only dist/, package.json and the proto files).
COPY --from=prod-deps --chown=root:root /app /app
COPY --from=build /src/proto/dist proto/dist
COPY --from=build /src/proto/ppay proto/ppay
COPY --from=build /src/proto/loader-options.json proto/
COPY --from=build /src/packages/kernel/dist packages/kernel/dist
COPY --from=build /src/packages/runtime/dist packages/runtime/dist
COPY --from=build /src/packages/stripe-support/dist packages/stripe-support/dist
COPY --from=build /src/gateway/dist gateway/dist
COPY --from=build /src/services/payments/dist services/payments/dist
COPY --from=build /src/services/fx-pricing/dist services/fx-pricing/dist
COPY --from=build /src/services/subscriptions/dist services/subscriptions/dist
COPY --from=build /src/services/marketplace/dist services/marketplace/dist
COPY --from=build /src/services/kyc/dist services/kyc/dist
COPY --from=build /src/services/webhooks/dist services/webhooks/dist
# Files are owned by root and read-only for the runtime user; nothing is written
# at run time (logs go to stdout), so a read-only root filesystem works.
USER node
EXPOSE 8080 9100
# /readyz on the metrics port exists on every process (gateway and services);
# it answers 200 once Mongo, NATS and the gRPC/HTTP server are up.
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.METRICS_PORT||9100)+'/readyz',{signal:AbortSignal.timeout(2500)}).then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# node is PID 1 and handles SIGTERM itself (graceful drain in every component).
CMD ["node", "gateway/dist/main.js"]
