# Sourced by the .ci scripts that install Debian packages: the scripts' shared
# setup. Before sourcing, a script defines `log`; afterwards it has
#   SETUP_ONLY   1 if its first argument was --setup-only (then shifted off),
#   SUDO         an empty command prefix as root, sudo otherwise,
#   install_missing PACKAGE...   apt-get install, non-interactively, if any of
#                the packages is missing.
# shellcheck shell=bash

SETUP_ONLY=0
if [[ "${1-}" == "--setup-only" ]]; then
  SETUP_ONLY=1
  shift
fi

SUDO=()
if [[ "$(id -u)" != 0 ]]; then SUDO=(sudo); fi
export DEBIAN_FRONTEND=noninteractive

installed() {
  [[ "$(dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null)" == installed ]]
}

install_missing() {
  local missing=() p
  for p in "$@"; do installed "$p" || missing+=("$p"); done
  ((${#missing[@]})) || return 0
  log "installing: ${missing[*]}"
  "${SUDO[@]}" apt-get -o DPkg::Lock::Timeout=300 update -qq </dev/null
  "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 \
    install -y -qq --no-install-recommends "$@" </dev/null >/dev/null
}
