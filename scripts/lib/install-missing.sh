# Sourced by the scripts that set up a machine (scripts/test.sh,
# scripts/real-model-tools.sh): installs Debian packages, once, only when some are missing.

# install_missing PACKAGE…: nothing when called with none; else one `apt-get update` and
# one install of them all (with sudo when not root).
install_missing() {
  [ $# -gt 0 ] || return 0
  echo "==> installing: $*"
  local sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "$@"
}
