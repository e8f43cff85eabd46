# AttachKit as a container: `attachkit http` on port 8080, built from this repository.
#   docker build --build-arg ATTACHKIT_COMMIT=$(git rev-parse --short=12 HEAD) -t attachkit .
#   docker run --rm --stop-timeout 30 -p 8080:8080 -v attachkit-media:/media attachkit
# Stage 1 builds the Debian package with scripts/package.sh (the same package as outside a
# container); stage 2 installs only that package on Debian 12 slim, so apt brings exactly the
# libraries its Depends name (libvips, FFmpeg's libraries, libmicrohttpd, libcurl) and nothing to build with.
# Never built as an image: AttachKit's build machines have no container engine. The runtime stage's
# commands were run by hand in a Debian 12 minbase chroot (apt install of the .deb, the user, then
# attachkit http as that user, the HEALTHCHECK command, SIGTERM).

FROM swift:6.3-bookworm AS build
# .git is not sent to the build (.dockerignore): the commit to bake into the binary comes from here.
ARG ATTACHKIT_COMMIT=unknown
WORKDIR /src
COPY . .
# setup.sh (called by package.sh) installs the -dev packages and dpkg-dev with apt.
RUN ATTACHKIT_COMMIT="$ATTACHKIT_COMMIT" scripts/package.sh --out /dist

FROM debian:12-slim
COPY --from=build /dist/ /tmp/dist/
RUN apt-get update \
    && apt-get install -y --no-install-recommends /tmp/dist/attachkit_*.deb \
    && rm -rf /var/lib/apt/lists/* /tmp/dist \
    && groupadd --gid 10001 attachkit \
    && useradd --uid 10001 --gid 10001 --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin attachkit \
    && install -d -o 10001 -g 10001 -m 0750 /spool /media
# A numeric user, so that Kubernetes' runAsNonRoot can check it.
USER 10001:10001
# The spool holds request bodies and outputs while they are worked on; /media is the root
# POST /v1/jobs may read and write. Workers make their private folders under TMPDIR.
ENV TMPDIR=/tmp
VOLUME ["/spool", "/media"]
EXPOSE 8080
# attachkit is PID 1 and handles SIGTERM itself: it stops accepting, answers what it accepted within
# --drain, then exits 0 (and reaps its worker processes). --drain 8 fits `docker stop`'s default
# 10 s before SIGKILL; a longer drain needs a longer stop timeout with it (docker run
# --stop-timeout 30 with --drain 25, as the Kubernetes manifest pairs terminationGracePeriodSeconds).
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/bin/attachkit"]
CMD ["http", "--listen", "0.0.0.0:8080", "--allow", "/media", "--spool", "/spool", "--jobs", "2", "--drain", "8"]
# The image has no curl or wget: bash's /dev/tcp asks GET /healthz and checks for status 200.
HEALTHCHECK --interval=30s --timeout=3s --start-period=10s \
    CMD ["bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/8080 && printf 'GET /healthz HTTP/1.0\\r\\n\\r\\n' >&3 && head -n 1 <&3 | grep -q ' 200 '"]
