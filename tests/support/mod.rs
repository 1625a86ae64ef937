//! Helpers shared by the integration tests; each test file that uses them says `mod support;`.

pub mod manifest;
