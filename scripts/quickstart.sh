#!/bin/sh
# Quick start: install what is missing, build, and show the summary of a
# bundled Soft-RoCE capture (rping over RDMA CM: handshake, SEND, READ, WRITE).
set -eu
cd "$(dirname "$0")/.."
sh scripts/deps.sh build
make -s
./rocestat samples/rping_s64.pcap
