//! How a fuzz run is driven: its options, and which cases are also handed over re-encoded.

use std::time::Duration;

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use crate::backend::Driven;
use crate::cancel::Cancel;
use crate::data::shard::Shard;
use crate::judge::check::CheckOptions;

use super::encoding::Encoding;
use super::generate::Shape;

/// How a run is driven.
#[derive(Clone, Debug)]
pub struct FuzzOptions {
    /// The seed: the same seed gives the same cases on any machine.
    pub seed: u64,
    /// Stop after this many cases; with neither this nor `time`, after 10,000.
    pub cases: Option<u64>,
    /// Stop after this long: a time budget alone bounds the run. It becomes `cancel`'s
    /// deadline, so that a backend stopped by the same token has its case in flight then cut
    /// short, its worker killed.
    pub time: Option<Duration>,
    /// What the generator draws.
    pub shape: Shape,
    /// The comparison, the bases that gate, the backend's profile, constant-input mode.
    pub check: CheckOptions,
    /// The most subject runs shrinking one finding may take.
    pub shrink_runs: usize,
    /// Threads evaluating cases. Findings are shrunk in order of case index on the calling
    /// thread, so the result does not depend on it.
    pub threads: usize,
    /// Stops the run once tripped: the cases finished by then are reported, a case under
    /// way is dropped.
    pub cancel: Cancel,
    /// The most tensor elements the findings kept may hold (their cases, as drawn and
    /// shrunk, and the expected outputs); further distinct findings are counted as
    /// [`FuzzReport::dropped`](super::FuzzReport::dropped). Default 16 Mi: at most 256 MiB.
    pub stored_elements: usize,
    /// The share of the cases this run takes: part K of N draws the cases whose index is
    /// K − 1 modulo N. Shards of one seed draw disjoint cases; their reports
    /// [merged](super::FuzzReport::merge) are the unsharded run's.
    pub shard: Shard,
    /// The share of cases, 0 to 1, that a backend reading model files is also handed in
    /// another legal wire form when it answers the plain form correctly: one of
    /// [`Encoding::OTHERS`](super::Encoding::OTHERS) that changes the model, drawn from the seed and the case's index.
    /// What changes is reported apart ([`FuzzReport::encodings`](super::FuzzReport::encodings)). 0 turns the dimension off.
    pub encodings: f64,
}

/// The cases a run draws when given neither a number of cases nor a time budget.
pub(crate) const DEFAULT_CASES: u64 = 10_000;

/// The share of cases re-encoded by default: one in ten costs a tenth more subject runs.
pub(crate) const DEFAULT_ENCODINGS: f64 = 0.1;

impl FuzzOptions {
    /// The most cases the run draws: `cases`, else 10,000 unless a time budget
    /// bounds it.
    pub fn case_limit(&self) -> Option<u64> {
        self.cases.or(self.time.is_none().then_some(DEFAULT_CASES))
    }

    /// Whether case `index` is also handed over in another form, and which first: drawn
    /// from a generator of its own (the case's draws stay as they are), so a case is
    /// re-encoded the same way in any run. Only a backend that reads the model file can see
    /// a form.
    pub(super) fn reencoding_for(&self, index: u64, backend: &dyn Driven) -> Reencode {
        use rand::RngExt;
        if self.encodings <= 0.0 || !backend.reads_model_file() {
            return Reencode::No;
        }
        let mut rng = ChaCha8Rng::seed_from_u64(self.seed ^ ENCODING_STREAMS);
        rng.set_stream(index);
        if !rng.random_bool(self.encodings.min(1.0)) {
            return Reencode::No;
        }
        Reencode::Drawn(rng.random())
    }
}

/// Which other form a case is also handed over in.
#[derive(Clone, Copy, Debug)]
pub(super) enum Reencode {
    /// None.
    No,
    /// One of the forms of [`Encoding::OTHERS`](super::Encoding::OTHERS) that change the model, picked by this draw
    /// (modulo their number): a form the model holds nothing of (no list, no tensor) is never
    /// picked.
    Drawn(u64),
    /// This one (shrinking an encoding finding).
    Exactly(Encoding),
}

impl Reencode {
    /// The forms to pick from, and the draw that picks.
    pub(super) fn forms(self) -> (Vec<Encoding>, u64) {
        match self {
            Reencode::No | Reencode::Exactly(Encoding::Onnx) => (Vec::new(), 0),
            Reencode::Drawn(draw) => (Encoding::OTHERS.to_vec(), draw),
            Reencode::Exactly(form) => (vec![form], 0),
        }
    }
}

/// Sets the encodings' generators apart from the cases' (`"encodin"` in ASCII).
pub(super) const ENCODING_STREAMS: u64 = 0x0065_6e63_6f64_696e;

impl Default for FuzzOptions {
    fn default() -> Self {
        FuzzOptions {
            seed: 1,
            cases: None,
            time: None,
            shape: Shape::default(),
            check: CheckOptions::default(),
            shrink_runs: 400,
            threads: crate::run::runner::default_threads(),
            shard: Shard::ALL,
            cancel: Cancel::new(),
            stored_elements: 1 << 24,
            encodings: DEFAULT_ENCODINGS,
        }
    }
}
