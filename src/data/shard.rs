//! Shards: one part K of N of a run, so that a slow backend or a campaign spreads over several
//! machines and `pad-conformance merge` joins the parts. A data set belongs to the part its
//! name hashes to, by FNV-1a (64 bits): a hash fixed by its definition, the same on every
//! machine, build and release (std's hasher is randomized per process), and — since it reads
//! the name alone — a data set stays in its part however many are added or removed.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// Part `index` (1 to `count`) of a run split into `count` parts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "ShardFields", into = "ShardFields")]
pub struct Shard {
    index: u32,
    count: u32,
}

/// A `--shard` value (or a report's `shard`) that names no part.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ShardError {
    /// Not of the form `K/N` with two whole numbers.
    #[error("shard {0:?} is not of the form K/N (part K of N, e.g. 2/4)")]
    Form(String),
    /// K outside 1..=N, or N zero or over [`Shard::MAX_COUNT`].
    #[error(
        "shard {index}/{count}: the part must be 1 to {count}, and the number of parts 1 to {}",
        Shard::MAX_COUNT
    )]
    Range {
        /// K.
        index: u32,
        /// N.
        count: u32,
    },
}

impl Shard {
    /// The whole: part 1 of 1.
    pub const ALL: Shard = Shard { index: 1, count: 1 };

    /// The most parts a run splits into (docs/cli.md): more machines than any CI gives, and
    /// few enough that checking every part is there costs nothing, whatever a report claims.
    pub const MAX_COUNT: u32 = 10_000;

    /// Part `index` of `count`, counted from 1.
    pub fn new(index: u32, count: u32) -> Result<Shard, ShardError> {
        if count == 0 || count > Shard::MAX_COUNT || index == 0 || index > count {
            return Err(ShardError::Range { index, count });
        }
        Ok(Shard { index, count })
    }

    /// K, from 1.
    pub fn index(self) -> u32 {
        self.index
    }

    /// N.
    pub fn count(self) -> u32 {
        self.count
    }

    /// Whether the data set named `name` (`onnx-1.22.0/node/test_wrap_pad/0`) is in this part.
    pub fn contains(self, name: &str) -> bool {
        self.contains_index(fnv1a(name.as_bytes()))
    }

    /// Whether item `index` of a numbered sequence (a fuzzing campaign's case, whose seed
    /// its index decides) is in this part: every N-th, from K − 1.
    pub fn contains_index(self, index: u64) -> bool {
        index % u64::from(self.count) == u64::from(self.index - 1)
    }

    /// The indices of this part's items below `limit` (all of them when `None`), in order.
    pub fn indices(self, limit: Option<u64>) -> impl Iterator<Item = u64> {
        let step = usize::try_from(self.count).unwrap_or(usize::MAX);
        (u64::from(self.index - 1)..)
            .step_by(step)
            .take_while(move |&i| limit.is_none_or(|limit| i < limit))
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl FromStr for Shard {
    type Err = ShardError;

    fn from_str(text: &str) -> Result<Shard, ShardError> {
        let form = || ShardError::Form(text.to_owned());
        let (index, count) = text.trim().split_once('/').ok_or_else(form)?;
        let number = |part: &str| {
            // Digits only: `+2` or ` 2` would parse, and a typo would pass unseen.
            if part.is_empty() || !part.bytes().all(|b| b.is_ascii_digit()) {
                return Err(form());
            }
            part.parse::<u32>().map_err(|_| form())
        };
        Shard::new(number(index)?, number(count)?)
    }
}

/// The parts of `count` not in `seen`, listed for a person: the first few, then how many in all.
pub(crate) fn missing_parts(count: u32, seen: impl Fn(u32) -> bool) -> Option<String> {
    const SHOWN: usize = 10;
    let missing: Vec<u32> = (1..=count.min(Shard::MAX_COUNT)).filter(|&k| !seen(k)).collect();
    let shown: Vec<String> = missing.iter().take(SHOWN).map(u32::to_string).collect();
    match missing.len() {
        0 => None,
        n if n <= SHOWN => Some(shown.join(", ")),
        n => Some(format!("{}, … ({n} in all)", shown.join(", "))),
    }
}

/// A shard as a report records it: `{"index": K, "count": N}`.
#[derive(Serialize, Deserialize)]
struct ShardFields {
    index: u32,
    count: u32,
}

impl TryFrom<ShardFields> for Shard {
    type Error = ShardError;

    fn try_from(fields: ShardFields) -> Result<Shard, ShardError> {
        Shard::new(fields.index, fields.count)
    }
}

impl From<Shard> for ShardFields {
    fn from(shard: Shard) -> ShardFields {
        ShardFields {
            index: shard.index,
            count: shard.count,
        }
    }
}

/// FNV-1a, 64 bits (the parameters of the FNV specification, draft-eastlake-fnv).
fn fnv1a(bytes: &[u8]) -> u64 {
    const OFFSET_BASIS: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    bytes
        .iter()
        .fold(OFFSET_BASIS, |hash, &byte| (hash ^ u64::from(byte)).wrapping_mul(PRIME))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv1a_is_the_specified_hash() {
        // Test vectors of the FNV specification's reference code.
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a(b"foobar"), 0x8594_4171_f739_67e8);
    }

    #[test]
    fn every_name_lies_in_exactly_one_part_and_stays_there() {
        let names: Vec<String> = (0..500)
            .map(|i| format!("extended/test_ext_pad_{i}/{}", i % 3))
            .collect();
        let parts: Vec<Shard> = (1..=4).map(|k| Shard::new(k, 4).unwrap()).collect();
        let mut sizes = [0usize; 4];
        for name in &names {
            let owners: Vec<usize> = (0..4).filter(|&k| parts[k].contains(name)).collect();
            assert_eq!(owners.len(), 1, "{name}");
            sizes[owners[0]] += 1;
        }
        // Spread evenly enough to be worth splitting (each part near 125 of 500).
        assert!(sizes.iter().all(|&n| (90..=160).contains(&n)), "{sizes:?}");
        // The part is the name's alone: pinned, so no change of hash goes unnoticed.
        let pinned: Vec<u32> = ["onnx-1.22.0/node/test_wrap_pad/0", "extended/a/1", "x"]
            .iter()
            .map(|name| parts.iter().find(|p| p.contains(name)).unwrap().index())
            .collect();
        assert_eq!(pinned, [3, 1, 4]);
        assert!(Shard::new(1, 1).unwrap().contains("anything"));
        let second_of_three = Shard::new(2, 3).unwrap();
        let taken: Vec<u64> = (0..9).filter(|&i| second_of_three.contains_index(i)).collect();
        assert_eq!(taken, [1, 4, 7]);
    }

    #[test]
    fn only_k_of_n_parses() {
        assert_eq!("2/4".parse::<Shard>().unwrap(), Shard::new(2, 4).unwrap());
        assert_eq!(" 1/1 ".parse::<Shard>().unwrap().to_string(), "1/1");
        for bad in [
            "",
            "2",
            "2/",
            "/4",
            "a/4",
            "2/4/1",
            "+2/4",
            "2/-4",
            "2 /4",
            "99999999999/4",
        ] {
            assert_eq!(bad.parse::<Shard>(), Err(ShardError::Form(bad.to_owned())), "{bad}");
        }
        for (bad, index, count) in [
            ("0/4", 0, 4),
            ("5/4", 5, 4),
            ("0/0", 0, 0),
            ("1/0", 1, 0),
            ("1/4294967295", 1, u32::MAX),
            ("1/10001", 1, 10_001),
        ] {
            assert_eq!(bad.parse::<Shard>(), Err(ShardError::Range { index, count }), "{bad}");
        }
        assert_eq!(missing_parts(3, |k| k == 2).as_deref(), Some("1, 3"));
        assert_eq!(missing_parts(2, |_| true), None);
        assert_eq!(
            missing_parts(12, |k| k == 1).as_deref(),
            Some("2, 3, 4, 5, 6, 7, 8, 9, 10, 11, … (11 in all)")
        );
        let message = "5/4".parse::<Shard>().unwrap_err().to_string();
        assert_eq!(
            message,
            "shard 5/4: the part must be 1 to 4, and the number of parts 1 to 10000"
        );
    }

    #[test]
    fn a_report_s_shard_reads_back_and_a_bad_one_is_refused() {
        let shard = Shard::new(3, 8).unwrap();
        let text = serde_json::to_string(&shard).unwrap();
        assert_eq!(text, r#"{"index":3,"count":8}"#);
        assert_eq!(serde_json::from_str::<Shard>(&text).unwrap(), shard);
        let error = serde_json::from_str::<Shard>(r#"{"index":9,"count":8}"#).unwrap_err();
        assert!(error.to_string().contains("shard 9/8"), "{error}");
    }
}
