//! The ort gate lives in tests/ort.rs; this library is empty.
