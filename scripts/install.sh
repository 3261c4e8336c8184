#!/usr/bin/env bash
# Install hillclimber and what it needs on a fresh Debian/Ubuntu machine, into ./.venv.
#   bash scripts/install.sh            # the tool, the embedded model's runtime and the model
#   bash scripts/install.sh dev        # the same, plus the test tools
#   bash scripts/install.sh dev light  # the test tools without the model's runtime, the model
#                                      # and Harbor: minutes, for the checks that need none
set -euo pipefail
cd "$(dirname "$0")/.."
extras="${1:-}"
light="${2:-}"
hc_home="${HILLCLIMBER_HOME:-${XDG_CACHE_HOME:-$HOME/.cache}/hillclimber}"

# System packages: bubblewrap for the sandbox; python3-venv for verifier environments; a C++
# toolchain and cmake to build llama.cpp; the tools the built-in suite's tasks use.
need=()
command -v bwrap >/dev/null || need+=(bubblewrap)
/usr/bin/python3 -c 'import ensurepip, venv' 2>/dev/null || need+=(python3-venv)
for tool in gcc g++ make cmake git sqlite3 jq; do command -v "$tool" >/dev/null || need+=("$tool"); done
# Task images (root only: a trial's layer is an overlay mount over the image's root folder):
# podman builds each task's image from its Dockerfile, runc runs its build steps, mmdebstrap
# makes the local base where no image registry can be reached.
if [ "$(id -u)" -eq 0 ]; then
  for tool in podman runc mmdebstrap; do command -v "$tool" >/dev/null || need+=("$tool"); done
fi
# dev only: a headless browser for the test that opens the HTML report
case ",$extras," in *,dev,*) command -v chromium >/dev/null || need+=(chromium) ;; esac
if [ ${#need[@]} -gt 0 ]; then
  echo "installing system packages: ${need[*]}"
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq "${need[@]}" >/dev/null
fi

# podman's settings for machines like ours: runc (crun refuses hybrid cgroup v1/v2 hierarchies),
# cgroupfs (no systemd session), no default ulimits (runc may not set the file-descriptor limit
# inside a VM: "error setting rlimit type 7"). A drop-in, so a machine's own settings stay.
podman_conf=/etc/containers/containers.conf.d/50-hillclimber.conf
if [ "$(id -u)" -eq 0 ] && command -v podman >/dev/null && [ ! -f "$podman_conf" ]; then
  mkdir -p "$(dirname "$podman_conf")"
  cat > "$podman_conf" <<'CONF'
[containers]
default_ulimits = []

[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
CONF
fi

python="${PYTHON:-python3}"
"$python" -c 'import sys; assert sys.version_info >= (3, 11), "hillclimber needs Python 3.11+"'
[ -x .venv/bin/python ] || "$python" -m venv .venv
pip=(.venv/bin/pip -q --disable-pip-version-check)
"${pip[@]}" install --upgrade pip

if [ "$light" = light ]; then
  spec="."
  [ -z "$extras" ] || spec=".[$extras]"
  "${pip[@]}" install -e "$spec"
  echo "installed (light: no embedded model): $(.venv/bin/hillclimber --version) in $(pwd)/.venv"
  exit 0
fi

# llama-cpp-python is published as source only, so it compiles (about 4 minutes on 2 cores).
# We build it once into our own wheel cache, for a portable CPU level: a build for the build
# machine's own CPU (llama.cpp's default) can crash on machines that advertise instructions
# they cannot run (seen here: AMX inside a VM). Without the multimodal library (LLAVA_BUILD),
# which a text-only harness never loads: 3m56s against 4m27s here, a 4 MB smaller wheel.
llama_version=0.3.36
case "$(uname -m)" in
  x86_64) llama_cmake="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON" ;;
  *) llama_cmake="-DGGML_NATIVE=OFF" ;;
esac
llama_cmake="$llama_cmake -DLLAVA_BUILD=OFF"
wheels="$hc_home/wheels/llama-cpp-python-$llama_version-$(echo "$llama_cmake" | sha256sum | cut -c1-8)"
if ! ls "$wheels"/llama_cpp_python-*.whl >/dev/null 2>&1; then
  echo "building llama-cpp-python $llama_version (once; takes a while)"
  mkdir -p "$wheels"
  CMAKE_ARGS="$llama_cmake" "${pip[@]}" wheel --no-deps --no-cache-dir -w "$wheels" \
    "llama-cpp-python==$llama_version"
fi
"${pip[@]}" install "$wheels"/llama_cpp_python-*.whl

spec=".[local]"
[ -z "$extras" ] || spec=".[local,$extras]"
"${pip[@]}" install -e "$spec"
.venv/bin/hillclimber models install

# dev only: Harbor in a venv of its own (it needs Python 3.12+), so that the tests check our
# trajectories and exported runs with Harbor's own models and validator, and run Harbor with
# our agent and environment
harbor_version=0.24.0
case ",$extras," in *,dev,*)
  py312=""
  for candidate in python3.13 python3.12 "$HOME"/.pyenv/versions/3.1[23].*/bin/python; do
    if command -v "$candidate" >/dev/null 2>&1 \
      && "$candidate" -c 'import sys, venv; assert sys.version_info >= (3, 12)' 2>/dev/null; then
      py312="$candidate"; break
    fi
  done
  if [ -z "$py312" ]; then
    echo "no Python 3.12+ here: the tests that use Harbor will be skipped (CI fails them)"
  elif ! .venv-harbor/bin/python -c "import harbor" 2>/dev/null \
    || [ "$(.venv-harbor/bin/pip show harbor 2>/dev/null | sed -n 's/^Version: //p')" != "$harbor_version" ]; then
    echo "installing harbor $harbor_version into .venv-harbor (with $py312)"
    rm -rf .venv-harbor && "$py312" -m venv .venv-harbor
    .venv-harbor/bin/pip -q --disable-pip-version-check install "harbor==$harbor_version"
  fi
  # hillclimber itself beside Harbor, for `harbor run -a hillclimber.harbor:HillclimberAgent
  # -e hillclimber.harbor:SandboxEnvironment` (the llama.cpp wheel is py3-none: the same one)
  if [ -n "$py312" ]; then
    .venv-harbor/bin/pip -q --disable-pip-version-check install "$wheels"/llama_cpp_python-*.whl
    .venv-harbor/bin/pip -q --disable-pip-version-check install -e ".[local]"
  fi
  ;;
esac
echo "installed: $(.venv/bin/hillclimber --version) in $(pwd)/.venv"
