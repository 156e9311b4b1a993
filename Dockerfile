# cstsim in a container, for cluster nodes that run another distribution (Apptainer and Podman
# take it too). Debian 12, the release the project is built and tested on; every dependency is a
# Debian package (the Makefile's DEBS), so the image needs nothing but Debian's archive.
#
#   docker build -t cstsim .                      build, then run the test suite (TEST=0 skips it)
#   docker run --rm -v $PWD/out:/out cstsim run --arch configs/arch/npu-128.yaml \
#       --workload configs/workloads/resnet18.csv --out /out/resnet18
#
# The entry point is the simulator; its working directory is the source tree, so the shipped
# configs resolve by their relative paths.
FROM debian:bookworm

ARG TEST=1
ENV DEBIAN_FRONTEND=noninteractive SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
RUN apt-get update -qq && apt-get install -y -qq --no-install-recommends make ca-certificates python3-pip \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /opt/cstsim
COPY . .
# `make deps` installs the packages; `make build` configures and builds the Release tree.
RUN make deps && make build && rm -rf /var/lib/apt/lists/*
RUN if [ "$TEST" = 1 ]; then make test; fi
RUN cmake --install build --prefix /usr/local \
    && /usr/bin/python3 -m pip install --no-index --no-build-isolation --break-system-packages --prefix /usr/local .
ENTRYPOINT ["cstsim"]
CMD ["--help"]
