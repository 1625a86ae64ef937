//! The tract gate lives in tests/tract.rs; this library is empty.
