#!/bin/sh
# ctest fsc_hencky_simbody: the flexible slider-crank as a Hencky chain of 8 segments, in
# Simbody (fsc_simbody, Runge-Kutta-Merson at accuracy 1e-6) and in joinery (the scene of
# examples/flexible/make_hencky_slider_crank.py, dopri5 rtol 1e-10): the midpoint deflections
# must agree to 1e-5 of max|w_mid| (docs/flexible_slider_crank_reference.md: measured 5e-7 at these
# settings, 1e-8 against Simbody at 1e-10; a modelling difference shows at 1e-3 and more).
# Usage: fsc_check.sh FSC_SIMBODY JOINERY SOURCE_DIR WORK_DIR
set -eu
sim=$1 joinery=$2 src=$3 work=$4
mkdir -p "$work"
"$sim" 8 "$work/simbody8.csv" 1e-6
/usr/bin/python3 "$src/examples/flexible/make_hencky_slider_crank.py" 8 "$work/hencky8.json"
"$joinery" simulate "$work/hencky8.json" -o "$work/joinery8.csv"
/usr/bin/python3 "$src/tests/peers/fsc_compare.py" "$work/simbody8.csv" "$work/joinery8.csv" --tol 1e-5
