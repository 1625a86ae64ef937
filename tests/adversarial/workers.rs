//! Misbehaving exec workers (written below).
