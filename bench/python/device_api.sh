#!/usr/bin/env bash
# The Python package on the GPU machine (issue 12): builds the extension there against its own
# Python (3.12, pybind11 3.x) from the binding sources and the static libraries of a CUDA build
# made elsewhere (PIC, -DCMAKE_CUDA_ARCHITECTURES=90), runs the pytest tier with the cuda backend
# and the Python-driven md speed check. Layout of DIR (default: the script's directory):
#   lib/libpairwise_api.a lib/libpairwise_lib.a bin/pairwise include/ python/ tree/{tests,examples,bench}
# Writes OUT (default $OUT): pytest.log, md-driver.json, md-driver.txt. The examples (cpu backend)
# are left to the CPU machines.
set -uo pipefail
dir="${1:-$(dirname "${BASH_SOURCE[0]}")}"
out="${OUT:-$dir/out}"
cd "$dir" || exit 1
mkdir -p obj pkg/pairwise "$out"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
py=python3
includes="$($py -m pybind11 --includes)"
suffix="$($py -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')"
cudalib="$(dirname "$(command -v nvcc)")/../lib64"
[[ -e "$cudalib/libcudart_static.a" ]] || cudalib="$(dirname "$(find / -name libcudart_static.a 2>/dev/null | head -1)")"
cp python/pairwise/*.py pkg/pairwise/
t0=$(date +%s)
for f in python/src/*.cpp; do
  g++ -O2 -fPIC -std=c++20 -fvisibility=hidden $includes -Iinclude -DPAIRWISE_VERSION='"0.1.0"' \
    -c "$f" -o "obj/$(basename "$f" .cpp).o" &
done
wait
g++ -shared -o "pkg/pairwise/_pairwise$suffix" obj/*.o lib/libpairwise_api.a lib/libpairwise_lib.a \
  -L"$cudalib" -lcudart_static -ldl -lrt -lpthread -fopenmp || exit 1
echo "module built in $(( $(date +%s) - t0 )) s: pkg/pairwise/_pairwise$suffix"
export PYTHONPATH="$PWD/pkg" PAIRWISE_BINARY="$PWD/bin/pairwise" PAIRWISE_SOURCE="$PWD/tree"
export PAIRWISE_TEST_DATA="$PWD/tree/tests/data" MPLBACKEND=Agg PYTHONUNBUFFERED=1
$py -c 'import pairwise; print("cuda available:", pairwise.cuda_available())'
$py -m pytest -q -p no:cacheprovider tree/tests/python -rs -k "not test_example_writes_its_png" 2>&1 | tee "$out/pytest.log"
$py tree/bench/python/md_driver_speed.py --cli bin/pairwise --backend cuda --precision mixed \
  --steps 10000 --repeats 3 --json "$out/md-driver.json" 2>&1 | tee "$out/md-driver.txt"
