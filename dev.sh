#!/usr/bin/env bash
# Delta Inspector's two entry points for a fresh Debian/Ubuntu machine with Python 3.11:
#   ./dev.sh app [TABLE] [--operator]   set everything up, then start the app (the demo table
#                                        when no TABLE; --operator, before or after TABLE,
#                                        shows the pages that change tables)
#   ./dev.sh app --check-args ARGS...   only check the app's arguments (no setup, no server)
#   ./dev.sh desktop [TABLE] [--operator]   the same app in a desktop window (needs a display)
#   ./dev.sh test [PYTEST ARGS]         set everything up, run lint/format/type/layer checks,
#                                        then every test (building the Unity Catalog server
#                                        the tests run in the background, once per machine)
set -euo pipefail
cd "$(dirname "$0")"

started=$SECONDS
step() { echo "dev.sh: $*" >&2; }
took() { step "$1 ($((SECONDS - $2)) s)"; }

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else return 1; fi; }

apt_install() {
  # Only reached when a system package is missing; needs root or sudo.
  as_root apt-get update -qq && as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" \
    || { echo "Could not install $* with apt-get; install it yourself and run this again." >&2; exit 1; }
}

ensure_java() {
  if ! command -v java >/dev/null; then
    local t=$SECONDS
    step "Java is missing (PySpark needs Java 17); installing openjdk-17-jre-headless with apt-get..."
    apt_install openjdk-17-jre-headless
    took "installed Java" "$t"
  fi
}

ensure_venv() {
  local py="${PYTHON:-}"
  [ -n "$py" ] || py=$(command -v python3.11 || command -v python3)
  local t=$SECONDS
  if [ ! -x .venv/bin/python ]; then
    step "creating the Python environment in .venv with $py..."
    "$py" -m venv .venv || { apt_install python3-venv; "$py" -m venv .venv; }
    took "created .venv" "$t"
  fi
  # Reinstall only when a requirements file changed (the stamp hashes both).
  local stamp=.venv/.requirements.sha
  local want; want=$(cat requirements.txt requirements-dev.txt | sha256sum | cut -d' ' -f1)
  if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
    t=$SECONDS
    local n; n=$(cat requirements.txt requirements-dev.txt | grep -cvE '^[[:space:]]*(#|-r|$)')
    step "installing $n packages from requirements.txt and requirements-dev.txt into .venv (with their dependencies; a few minutes the first time)..."
    .venv/bin/python -m pip install -q --upgrade pip
    .venv/bin/python -m pip install -q -r requirements.txt -r requirements-dev.txt
    echo "$want" > "$stamp"
    took "installed $n packages" "$t"
  fi
}

ensure_node() {
  # Node runs Azurite, the Azure Blob/ADLS emulator the object-store tests start.
  if ! command -v npm >/dev/null; then
    local t=$SECONDS
    step "Node.js is missing (the Azure tests run Azurite); installing nodejs and npm with apt-get..."
    ensure_debs nodejs npm
    took "installed Node.js" "$t"
  fi
}

ensure_npm_packages() {
  # The test tools pinned in package-lock.json (Azurite), into node_modules/; reinstalled
  # only when the lock file changed (the stamp hashes it).
  local stamp=node_modules/.package-lock.sha
  local want; want=$(sha256sum package-lock.json | cut -d' ' -f1)
  if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
    local t=$SECONDS
    step "installing the Node test tools from package-lock.json into node_modules (Azurite; a minute or two the first time)..."
    npm ci --no-audit --no-fund --loglevel=error
    echo "$want" > "$stamp"
    took "installed the Node test tools" "$t"
  fi
}

ensure_jars() {
  # Delta Lake's jars and Hadoop's cloud connectors (inspector/rows/jars.pom.xml), resolved
  # once with Maven into ~/.m2; the classpath is listed in the jar cache, named by the pom's
  # digest (inspector/rows/jars.py reads it). Later runs only check the list: offline.
  local cache="${DELTA_INSPECTOR_JAR_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/delta-inspector/jars}"
  local pom=inspector/rows/jars.pom.xml
  local list; list="$cache/$(sha256sum "$pom" | cut -c1-16).classpath"
  if [ -s "$list" ]; then
    local jar complete=1
    for jar in $(tr ':' ' ' < "$list"); do [ -s "$jar" ] || complete=0; done
    [ "$complete" = 1 ] && return
  fi
  command -v mvn >/dev/null || ensure_debs maven
  local t=$SECONDS
  step "fetching Delta Lake's jars and Hadoop's cloud connectors with Maven (about 700 MB, once; the AWS SDK bundle is most of it)..."
  mkdir -p "$cache"
  mvn -B -q -Dstyle.color=never -f "$pom" dependency:build-classpath -Dmdep.includeScope=runtime \
    -Dmdep.outputFile="$list.partial" >&2 \
    || { echo "Could not fetch the jars with Maven (is Maven Central reachable?); run this again." >&2; exit 5; }
  mv "$list.partial" "$list"
  took "fetched the jars into ~/.m2 (listed in $list)" "$t"
}

run_checks() {
  # Lint, format, types and layering first: a failure here stops before the (slow) tests.
  .venv/bin/ruff check .
  .venv/bin/ruff format --check .
  .venv/bin/mypy inspector ui app.py
  if grep -q importlinter pyproject.toml; then .venv/bin/lint-imports; fi
}

ensure_debs() {
  # Install only the Debian packages that are missing (dpkg knows; apt-get is slow).
  local missing=()
  for pkg in "$@"; do dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg"); done
  [ ${#missing[@]} -eq 0 ] && return
  local t=$SECONDS
  step "installing ${#missing[@]} Debian packages with apt-get: ${missing[*]}..."
  apt_install "${missing[@]}"
  took "installed ${#missing[@]} Debian packages" "$t"
}

# What Qt WebEngine (the desktop window's web view, from PyPI wheels) needs from the system.
QT_DEBS=(libxcb-cursor0 libxkbcommon-x11-0 libxcb-icccm4 libxcb-image0 libxcb-keysyms1
  libxcb-randr0 libxcb-render-util0 libxcb-shape0 libxcb-xinerama0 libxcb-xkb1 libnss3
  libegl1 libgl1 libxcomposite1 libxdamage1 libxrandr2 libxtst6 libasound2 libdbus-1-3)
# The desktop test: a virtual screen, a window finder and a screenshot tool.
SCREEN_DEBS=(xvfb xdotool imagemagick)

ensure_chromium() {
  if ! command -v chromium >/dev/null && [ ! -x /usr/bin/chromium ]; then
    local t=$SECONDS
    step "Chromium is missing (the browser test needs it); installing it with apt-get..."
    apt_install chromium
    took "installed Chromium" "$t"
  fi
}

start_uc_server_build() {
  # The Unity Catalog server the tests start (tests/unity_server.py): uc-server from the
  # crate olai-uc-server, its version pinned in tests/uc-server.version, installed with
  # `cargo install --locked` into ~/.cargo/bin once per machine and reused when present.
  # Built unoptimized (opt-level 0): a test server answers in milliseconds either way, and
  # the build takes about 7 minutes on two idle cores where an optimized one took 20-60,
  # every minute of it competing with the tests on a fresh CI machine. It runs in the
  # background while the other tests run (niced, so the tests' own timeouts are not
  # starved); the tests that need the server run last and wait for it, boundedly
  # (DELTA_INSPECTOR_UC_SERVER_BUILD names its folder: log, pid, and rc once it ends).
  # A lock keeps two runs from building it at once.
  local version; version=$(tr -d '[:space:]' < tests/uc-server.version)
  local bin="${CARGO_HOME:-$HOME/.cargo}/bin/uc-server"
  if [ -x "$bin" ] && [ "$("$bin" --version 2>/dev/null)" = "uc-server $version" ]; then return; fi
  if ! command -v cargo >/dev/null; then
    step "cargo is missing: the Unity Catalog tests will fail until uc-server $version is installed (install Rust with rustup, then run this again)"
    return
  fi
  local dir="${XDG_CACHE_HOME:-$HOME/.cache}/delta-inspector/uc-server-build"
  mkdir -p "$dir" && rm -f "$dir/rc"
  step "building uc-server $version with cargo in the background (about 7 minutes, once per machine; log: $dir/log)..."
  ( CARGO_PROFILE_RELEASE_OPT_LEVEL=0 nice -n 10 flock "$dir/lock" cargo install olai-uc-server --version "$version" \
      --features bin --locked >"$dir/log" 2>&1; echo $? >"$dir/rc" ) </dev/null &
  echo $! > "$dir/pid"
  export DELTA_INSPECTOR_UC_SERVER_BUILD="$dir"
}

check_args() {
  # The app parses its own arguments (ui/launch.py); this only asks it, without setup.
  local py=.venv/bin/python
  [ -x "$py" ] || py=$(command -v python3.11 || command -v python3)
  exec "$py" -m ui.launch "$@"
}

ready() { [ $((SECONDS - started)) -lt 1 ] || took "ready" "$started"; }

cmd="${1:-app}"; shift || true
case "$cmd" in
  app)
    if [ "${1:-}" = "--check-args" ]; then shift; check_args "$@"; fi
    ensure_java; ensure_venv; ensure_jars; ready
    # Every argument goes to the app as given (TABLE and --operator in any order); a bad
    # one is reported by the app in this terminal and on the page.
    exec .venv/bin/python -m streamlit run app.py -- "$@"
    ;;
  develop)
    # The app for development: reruns when a source file is saved (the app itself never
    # watches files, .streamlit/config.toml).
    ensure_java; ensure_venv; ensure_jars; ready
    exec .venv/bin/python -m streamlit run app.py --server.fileWatcherType auto \
      --server.runOnSave true -- "$@"
    ;;
  desktop)
    ensure_java; ensure_venv; ensure_jars; ensure_debs "${QT_DEBS[@]}"; ready
    exec .venv/bin/python -m inspector desktop "$@"
    ;;
  test)
    start_uc_server_build  # first: it overlaps everything below, then the tests
    ensure_java; ensure_venv; ensure_chromium; ensure_debs "${QT_DEBS[@]}" "${SCREEN_DEBS[@]}"
    ensure_node; ensure_npm_packages; ensure_jars
    ready
    run_checks
    exec .venv/bin/python -m pytest "$@"
    ;;
  *)
    echo "usage: ./dev.sh app [TABLE] [--operator] | ./dev.sh develop [TABLE] [--operator] | ./dev.sh desktop [TABLE] [--operator] | ./dev.sh test [PYTEST ARGS]" >&2; exit 2 ;;
esac
