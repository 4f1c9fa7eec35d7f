#!/usr/bin/env sh
# joinery view on large runs (docs/performance.md, "Viewer"): page size, load time and frame
# rate in headless Chromium (software WebGL: SwiftShader, no GPU) for
#   - the 1024-link chain of bench/chain_model.hpp (rigid3d rods on spherical joints), 1 s
#     from rest sampled every 1 ms (1001 frames);
#   - Andrews' squeezer (examples/validation/a03_andrews_rigid.json), its own run.
# Usage: sh bench/viewer_fps.sh   (BUILD names the build directory, default build; N the chain
# length, default 1024; PLAY_SECONDS how long each page plays, default 5)
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$root/build}
N=${N:-1024}
out=${OUT:-$build/viewer-bench}
mkdir -p "$out"
joinery="$build/apps/joinery"
fps="$build/apps/viewer-web/test/fps.mjs"

/usr/bin/python3 - "$N" "$out/chain$N.json" <<'PY'
import json, sys
n, path = int(sys.argv[1]), sys.argv[2]
bodies, joints = [], []
for i in range(n):
    bodies.append({"name": f"link{i}", "type": "rigid3d", "mass": 1.0, "inertia": [1e-4, 1 / 12, 1 / 12],
                   "position": [i + 0.5, 0.0, 0.0]})
    joints.append({"name": f"ball{i}", "type": "spherical", "body1": "ground" if i == 0 else f"link{i-1}",
                   "point1": [0.0, 0.0, 0.0] if i == 0 else [0.5, 0.0, 0.0], "body2": f"link{i}",
                   "point2": [-0.5, 0.0, 0.0]})
json.dump({"joinery": 1, "name": f"chain of {n} rods on spherical joints", "gravity": [0, 0, -9.81],
           "bodies": bodies, "joints": joints,
           "simulation": {"t_end": 1, "output_interval": 0.001, "rtol": 1e-6, "atol": 1e-6}}, open(path, "w"))
PY

run() {  # name scene
  "$joinery" simulate "$2" -o "$out/$1.csv" | sed -n 2,3p
  /usr/bin/time -f "  joinery view: %e s, %M kB" "$joinery" view "$2" --results "$out/$1.csv" -o "$out/$1.html"
  node "$fps" "$out/$1.html" "${PLAY_SECONDS:-5}"
}
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
run "chain$N" "$out/chain$N.json"
run andrews "$root/examples/validation/a03_andrews_rigid.json"
