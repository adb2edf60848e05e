#!/usr/bin/env bash
# Installs what the tests need beyond Python: redis-server (the fixtures start
# their own) and a Chromium for the browser tests: Debian's package when we are
# root, else Playwright's own build (downloaded into the user's cache).
set -euo pipefail

missing=()
command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing ${missing[*]} with apt-get"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq "${missing[@]}" >/dev/null
  exit 0
fi

if [[ " ${missing[*]} " == *" chromium "* ]]; then
  echo "no chromium on PATH and not root: installing Playwright's own Chromium"
  "${PYTHON:-.venv/bin/python}" -m playwright install chromium
fi
if [[ " ${missing[*]} " == *" redis-server "* ]]; then
  echo "The tests need redis-server. Install it (Debian/Ubuntu: sudo apt-get install -y redis-server;" >&2
  echo "macOS: brew install redis) and run make test again." >&2
  exit 1
fi
