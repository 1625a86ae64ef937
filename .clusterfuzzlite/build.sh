#!/bin/bash -eu
# Builds every cargo-fuzz target of fuzz/ with the sanitizer ClusterFuzzLite asks for, copies
# it to $OUT, and zips beside it the seed corpus scripts/fuzz-smoke writes for it (the vendored
# models and tensor files, baselines, reply lines).
cd "$SRC/pad-conformance"
cargo fuzz build -O
FUZZ_SEED_ONLY=1 scripts/fuzz-smoke
for target in $(cargo fuzz list); do
    cp "fuzz/target/x86_64-unknown-linux-gnu/release/$target" "$OUT/"
    (cd "fuzz/corpus/$target" && zip -q -r "$OUT/${target}_seed_corpus.zip" .)
done
