//! The candle gate lives in tests/candle.rs; this library is empty.
