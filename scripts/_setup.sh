# Shared set-up for scripts/serve and scripts/test (sourced, not run).
#
# ensure_apt PKG...      apt-get installs the Debian packages that are not installed yet (sudo unless root);
#                        does nothing, and needs no network, when all are present.
# ensure_venv [EXTRAS]   creates ./.venv with python3.11 if missing and pip installs this package (editable)
#                        with EXTRAS (e.g. "dev"); reinstalls only when pyproject.toml changed since last time.
# Both are idempotent, so every command can be run on a fresh clone or again and again.

set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$ROOT/.venv"
PYTHON="${SPARKWIRE_PYTHON:-python3.11}"

as_root() {
    if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

ensure_apt() {
    local missing=()
    local pkg
    for pkg in "$@"; do
        if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
            missing+=("$pkg")
        fi
    done
    if [ "${#missing[@]}" -eq 0 ]; then
        return 0
    fi
    echo "==> apt-get install ${missing[*]}"
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

ensure_venv() {
    local extras="${1:-}"
    if [ ! -x "$VENV/bin/python" ]; then
        if ! "$PYTHON" -c "import ensurepip, venv" 2>/dev/null; then
            ensure_apt python3-venv
        fi
        echo "==> creating $VENV"
        "$PYTHON" -m venv "$VENV"
    fi
    local spec="."
    [ -n "$extras" ] && spec=".[$extras]"
    local stamp="$VENV/.sparkwire-installed${extras:+-$extras}"
    local want
    want="$(sha256sum "$ROOT/pyproject.toml" | cut -d' ' -f1)"
    if [ -z "$extras" ] && [ "$(cat "$VENV/.sparkwire-installed-dev" 2>/dev/null)" = "$want" ]; then
        return 0  # the dev install includes the plain one
    fi
    if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
        echo "==> pip install -e '$spec'"
        (cd "$ROOT" && "$VENV/bin/python" -m pip install -q -e "$spec")
        echo "$want" > "$stamp"
    fi
}

# ensure_tool_venv NAME  creates ./.venv-tools/NAME from tests/tools/NAME.txt (pinned requirements) for a client tool
#                        whose dependencies must not mix with ours (dbt, pgcli, harlequin, SQLAlchemy 1.4);
#                        reinstalls only when that file changed. Tests find it through tests/support/tools.py.
ensure_tool_venv() {
    local name="$1"
    local dir="$ROOT/.venv-tools/$name"
    local requirements="$ROOT/tests/tools/$name.txt"
    local want
    want="$(sha256sum "$requirements" | cut -d' ' -f1)"
    if [ -x "$dir/bin/python" ] && [ "$(cat "$dir/.installed" 2>/dev/null)" = "$want" ]; then
        return 0
    fi
    echo "==> tool venv $name (pip install -r tests/tools/$name.txt)"
    rm -rf "$dir"
    "$PYTHON" -m venv "$dir"
    "$dir/bin/python" -m pip install -q -r "$requirements"
    echo "$want" > "$dir/.installed"
}

# ensure_npm DIR  installs DIR's package-lock.json (npm ci) when node_modules is missing or older than the lock.
ensure_npm() {
    local dir="$ROOT/$1"
    if [ -d "$dir/node_modules" ] && [ "$dir/node_modules/.package-lock.json" -nt "$dir/package-lock.json" ]; then
        return 0
    fi
    if ! command -v npm >/dev/null 2>&1; then
        ensure_apt nodejs npm
    fi
    echo "==> npm ci in $1"
    (cd "$dir" && npm ci --silent --no-audit --no-fund)
}
