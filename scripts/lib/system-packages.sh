# Debian packages a command of this repository needs and a fresh machine may lack.
# Usage (sourced): ensure_system_packages COMMAND:PACKAGE [COMMAND:PACKAGE ...]
#   A pair whose COMMAND is on PATH (or, for a PACKAGE with no command of its own, whose check passes) is
#   left alone; the rest are installed with apt-get when this runs as root, otherwise it stops and names them.
#   COMMAND may be "python-venv", which checks that python3 can make a venv (Debian splits it out).

_system_package_present() {
  case "$1" in
    python-venv) python3 -c 'import ensurepip, venv' >/dev/null 2>&1 ;;
    *) command -v "$1" >/dev/null 2>&1 ;;
  esac
}

ensure_system_packages() {
  local pair missing=()
  for pair in "$@"; do
    _system_package_present "${pair%%:*}" || missing+=("${pair#*:}")
  done
  ((${#missing[@]})) || return 0
  if [[ "$(id -u)" != 0 ]] || ! command -v apt-get >/dev/null 2>&1; then
    printf 'missing system packages: %s (install them with your package manager, then run this again)\n' \
      "${missing[*]}" >&2
    return 1
  fi
  printf '[setup] installing %s from Debian (once per machine)\n' "${missing[*]}" >&2
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}
