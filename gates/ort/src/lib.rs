//! The ort gate lives in examples/conformance/ (docs/gating.md's layout); this library is empty.
