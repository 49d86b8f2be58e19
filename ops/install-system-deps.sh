#!/usr/bin/env bash
# Debian packages clausemill needs at run time (tesseract, poppler) and, with --test, for its
# tests (headless Chromium renders report.html and Flower's pages; npm brings axe-core; promtool, from the
# prometheus package, checks /metrics and the alert rules; docker-compose 1.29 checks
# docker-compose.yml).  Installs only what is missing.
set -euo pipefail
need=()
command -v tesseract >/dev/null || need+=(tesseract-ocr tesseract-ocr-eng)
command -v pdftoppm >/dev/null || need+=(poppler-utils)
if [ "${1:-}" = "--test" ]; then
  command -v chromium >/dev/null || need+=(chromium fonts-dejavu-core)
  command -v promtool >/dev/null || need+=(prometheus)
  command -v npm >/dev/null || need+=(npm)  # installs axe-core, which the accessibility test runs (Makefile)
  command -v bindfs >/dev/null || need+=(bindfs)  # a FUSE mount that raises no file-system events (tests/test_watch.py)
  command -v docker-compose >/dev/null || need+=(docker-compose)  # `docker-compose config` checks docker-compose.yml without an engine (tests/test_cluster.py)
fi
[ ${#need[@]} -eq 0 ] && exit 0
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
echo "Installing Debian packages: ${need[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
