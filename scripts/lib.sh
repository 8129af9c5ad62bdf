# Shared by scripts/build, scripts/test and scripts/run (sourced, not executed).

# The repository root, whatever the caller's working directory.
PAIRWISE_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

# Puts a CUDA toolkit installed at the usual place on PATH.
if ! command -v nvcc >/dev/null 2>&1 && [[ -x /usr/local/cuda/bin/nvcc ]]; then
  export PATH="/usr/local/cuda/bin:$PATH"
fi

# Prints the CMake preset to build: cuda when nvcc exists and nvidia-smi lists a GPU, else cpu.
# PAIRWISE_CUDA=ON or OFF in the environment overrides the detection.
pairwise_preset() {
  case "${PAIRWISE_CUDA:-}" in
    ON | on | 1) echo cuda; return ;;
    OFF | off | 0) echo cpu; return ;;
  esac
  if command -v nvcc >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then
    echo cuda
  else
    echo cpu
  fi
}
