//! The parts of one sharded run, as `merge` and `fuzz-merge` both check them: a field that
//! every part records is the same in each, each shard of the split comes once, and none is
//! missing. What else makes a report a part (its backend, its data sets, an interruption) is
//! each verb's own.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::data::shard::{Shard, missing_parts};
use crate::text::shown_path;

/// Two reports that would be parts of one run, differing in a field both record.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "{}: {field} {theirs}, but {} has {ours}: not {parts} of one run",
    shown_path(path),
    shown_path(first)
)]
pub(super) struct PartsDiffer {
    pub path: PathBuf,
    pub field: &'static str,
    pub theirs: String,
    pub first: PathBuf,
    pub ours: String,
    /// `parts` or `shards`: what the verb calls them.
    pub parts: &'static str,
}

/// Why reports are not the shards of one run, in what both verbs check.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub(super) enum ShardsError {
    /// A part run under other options, or over another corpus or selection (`merge`); another
    /// seed, or another option (`fuzz-merge`).
    #[error(transparent)]
    Differs(#[from] Box<PartsDiffer>),
    /// The same shard twice.
    #[error("{} and {} are both shard {shard}", shown_path(first), shown_path(path))]
    Twice {
        path: PathBuf,
        first: PathBuf,
        shard: Shard,
    },
    /// Shards missing: the union would not be the whole run.
    #[error("shards {missing} of {count} are missing: the merge would not be the whole run")]
    Missing { missing: String, count: u32 },
}

impl ShardsError {
    /// No parts at all.
    pub(super) fn no_parts() -> ShardsError {
        ShardsError::Missing {
            missing: String::new(),
            count: 0,
        }
    }
}

/// The shards read so far, each with the file it came from.
#[derive(Default)]
pub(super) struct ShardsSeen {
    seen: BTreeMap<u32, PathBuf>,
}

impl ShardsSeen {
    /// Takes `shard`, read from `path`: a shard already seen is refused, naming both files.
    pub(super) fn add(&mut self, path: &Path, shard: Shard) -> Result<(), ShardsError> {
        match self.seen.insert(shard.index(), path.to_owned()) {
            Some(first) => Err(ShardsError::Twice {
                path: path.to_owned(),
                first,
                shard,
            }),
            None => Ok(()),
        }
    }

    /// Whether every shard of a split into `count` was seen: if not, which are missing.
    pub(super) fn complete(&self, count: u32) -> Result<(), ShardsError> {
        match missing_parts(count, |k| self.seen.contains_key(&k)) {
            Some(missing) => Err(ShardsError::Missing { missing, count }),
            None => Ok(()),
        }
    }
}
