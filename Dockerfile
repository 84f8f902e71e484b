# One image for every process of Switchboard; the Kubernetes manifests pick the entry point.
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY . .
RUN npm ci --no-audit --no-fund && npx nx run-many -t build && npm prune --omit=dev

FROM node:24-bookworm-slim
WORKDIR /app
# In a container every port must be reachable from outside it (outside one, Switchboard binds loopback).
ENV NODE_ENV=production SWITCHBOARD_HOST=0.0.0.0
COPY --from=build /app /app
USER 1000
EXPOSE 8080
CMD ["node", "apps/switchboard/dist/src/embedded.js"]
