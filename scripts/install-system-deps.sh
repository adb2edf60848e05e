#!/usr/bin/env bash
# Installs what the tests need beyond Python: redis-server (the fixtures start
# their own) and Debian's chromium (the browser tests drive it with Playwright).
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

echo "The tests need: ${missing[*]}." >&2
echo "Install them (Debian/Ubuntu: sudo apt-get install -y ${missing[*]}) and run make test again." >&2
exit 1
