# The petload image, for sharded runs on Kubernetes (docs/kubernetes.md).
#   docker build -t registry.example.com/petload:0.1.0 . && docker push registry.example.com/petload:0.1.0
# No key goes into the image: the pods read the keys file mounted from a Secret.
FROM node:20-slim

WORKDIR /app
COPY package.json package-lock.json ./
# Every dependency first (the build needs the dev tools), without `prepare`: the build runs once the sources are in.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY . .
RUN npm run build --if-present \
 && npm prune --omit=dev --no-audit --no-fund \
 && npm cache clean --force \
 && chmod +x bin/petload.js \
 && ln -s /app/bin/petload.js /usr/local/bin/petload

ENV NODE_ENV=production
# The image's unprivileged user (uid 1000); the manifests run the pods as it.
USER node
ENTRYPOINT ["petload"]
CMD ["--help"]
