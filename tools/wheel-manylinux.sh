#!/usr/bin/env bash
# The Python package's abi3 wheel for manylinux2014 (glibc 2.17 and later: RHEL/CentOS 7, 8, 9 and
# the clusters built on them), linked with zig against glibc 2.17's symbols (maturin --zig), then
# installed into a fresh virtual environment, where a privatize-and-fit like the README's must run
# with nothing on PATH but the environment and /usr/bin:/bin (no Rust toolchain).
#
# Not part of .ci/run: the release build of the extension with a second linker rebuilds every
# dependency (measured below), more than the CI's 10-minute budget leaves. Run it before
# publishing a wheel. Needs PyPI (maturin and ziglang are pinned here).
# Usage: bash tools/wheel-manylinux.sh   (the wheel lands in target/wheels/)
set -euo pipefail
cd "$(dirname "$0")/.."
build=target/wheel-build
python3 -m venv --clear "$build"
"$build/bin/pip" install --quiet --disable-pip-version-check maturin==1.16.0 ziglang==0.15.2
rm -f target/wheels/lppf-*manylinux*2014*.whl
(cd python && PATH="$PWD/../$build/bin:$PATH" maturin build --release --zig --compatibility manylinux2014 \
    --out ../target/wheels)
wheel=$(ls -t target/wheels/lppf-*manylinux*2014*.whl | head -1)
echo "built $wheel"
# The highest glibc symbol version the extension asks for must be 2.17's or older.
newest=$(unzip -p "$wheel" 'lppf/_core*.so' > target/wheel-core.so && objdump -T target/wheel-core.so \
    | grep -o 'GLIBC_[0-9.]*' | sort -uV | tail -1)
case $newest in
    GLIBC_2.1[0-7]|GLIBC_2.[0-9]|GLIBC_2.[0-9].*) echo "the extension needs at most $newest" ;;
    *) echo "the extension needs $newest, newer than manylinux2014's glibc 2.17" >&2; exit 1 ;;
esac
# A fresh environment with only the wheel and its Python dependencies; no Rust toolchain on PATH.
test=target/wheel-test
python3 -m venv --clear "$test"
"$test/bin/pip" install --quiet --disable-pip-version-check "$wheel"
root=$PWD
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp data/enron/network-counts.csv "$work/"
cd "$work"
env -i PATH="$root/$test/bin:/usr/bin:/bin" HOME="$work" "$root/$test/bin/python" - <<'PY'
import lppf
release = lppf.privatize("network-counts.csv", epsilon=2, square=True, seed=1, output="released.csv")
fit = lppf.fit(release, model="block", components=4, iterations=200, seed=1, quiet=True)
print(f"lppf {lppf.__version__} from the wheel: a fit of {len(fit.rates)} cells, total {fit.true_total[0]:.0f}")
PY
