#!/usr/bin/env bash
# Provides the MCP tests' client (tests/mcp): the official MCP Python SDK (PyPI `mcp`),
# pinned, in a venv of the system's Python kept in a cache outside the clone,
# ${XDG_CACHE_HOME:-$HOME/.cache}/inkling-test-tools, beside the real-model tools, so a
# fresh clone (CI checks one out every run) finds it instead of installing again.
#
# The venv's folder is named by the pinned version and moved into place only when
# complete: an interrupted run leaves nothing that looks done; a new version gets a new
# folder. On success it writes ${cache}/mcp.env and prints it:
#   MCP_PYTHON=…   the venv's python, which can `import mcp`
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/install-missing.sh

cache="${XDG_CACHE_HOME:-$HOME/.cache}/inkling-test-tools"
mkdir -p "$cache"

# The SDK's version the tests were written against (its client API: ClientSession,
# stdio_client). Its dependencies are resolved by pip from PyPI.
mcp_version=2.3.0

# The system's Python (Debian's, 3.11: the SDK needs 3.10 or newer), with venv and
# ensurepip (python3-venv).
missing=()
[ -x /usr/bin/python3 ] || missing+=(python3)
/usr/bin/python3 -c 'import venv, ensurepip' >/dev/null 2>&1 || missing+=(python3-venv)
install_missing "${missing[@]}"

venv="$cache/venv-mcp-$mcp_version"
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import mcp' >/dev/null 2>&1; then
  echo "==> installing the MCP Python SDK (mcp==$mcp_version) into $venv"
  rm -rf "$venv.partial"
  /usr/bin/python3 -m venv "$venv.partial"
  "$venv.partial/bin/python" -m pip install --quiet --disable-pip-version-check "mcp==$mcp_version"
  "$venv.partial/bin/python" -c 'import mcp' 
  rm -rf "$venv"
  mv "$venv.partial" "$venv"
  # A venv's scripts name its folder; the moved one is repaired by creating it again
  # in place (keeps the installed packages).
  /usr/bin/python3 -m venv "$venv"
fi

cat > "$cache/mcp.env.partial" <<ENV
MCP_PYTHON=$venv/bin/python
ENV
mv "$cache/mcp.env.partial" "$cache/mcp.env"
echo "==> MCP test client ready ($cache/mcp.env):"
cat "$cache/mcp.env"
