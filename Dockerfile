# syntax=docker/dockerfile:1
# The single kbgp image: `kbgp operator` and `kbgp agent` (config/operator,
# config/agent), and kbgp-cni, the CNI plugin `kbgp install-cni` copies onto the node
# (config/podnetwork). Build with
#   docker build -t kbgp:latest --build-arg VERSION=$(git describe --tags --always) .
# Multi-arch: docker buildx build --platform linux/amd64,linux/arm64 ...

# The builder runs on the build machine's platform and cross-compiles: the binary is
# pure Go (CGO_ENABLED=0), so no emulation is needed for other architectures.
FROM --platform=$BUILDPLATFORM golang:1.26 AS build
ARG TARGETOS
ARG TARGETARCH
ARG VERSION=devel
WORKDIR /src
# Modules first, so a source change does not download them again.
COPY go.mod go.sum ./
RUN --mount=type=cache,target=/go/pkg/mod go mod download
COPY . .
# -buildvcs=false: .git is not in the build context (.dockerignore); VERSION names
# the build instead (kbgp version). The lab is cmd/kbgp-lab, not in the image: kbgp
# links no envtest, whose init panics on a read-only root filesystem.
RUN --mount=type=cache,target=/go/pkg/mod --mount=type=cache,target=/root/.cache/go-build \
    CGO_ENABLED=0 GOOS=$TARGETOS GOARCH=$TARGETARCH \
    go build -trimpath -buildvcs=false -ldflags "-s -w -X main.version=${VERSION}" -o /out/ ./cmd/kbgp ./cmd/kbgp-cni

# No shell, no package manager, CA certificates and /etc/passwd only. The image's
# user is nonroot (65532); the agent's DaemonSet runs it as UID 0 with every
# capability but NET_BIND_SERVICE dropped (docs/security.md).
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/kbgp /out/kbgp-cni /usr/local/bin/
ENTRYPOINT ["/usr/local/bin/kbgp"]
