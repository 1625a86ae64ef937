//! The rten gate lives in tests/rten.rs; this library is empty.
