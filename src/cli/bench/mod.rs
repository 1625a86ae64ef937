//! `pad-conformance bench`: the reference's speed as a ratio to the best copy of the same
//! bytes, timed the same way in the same process, so the figure survives noisy machines.
//!
//! Each figure is measured against the faster of a memcpy and a copy with streaming stores
//! (the kernel streams large outputs, so an ordinary-store copy alone would flatter it), and
//! allocating figures against a copy into a fresh buffer advised for huge pages.

pub(super) mod command;
mod copies;
mod decode;
mod end_to_end;
mod measure;
mod pad;
mod scaling;
mod scratch_case;
