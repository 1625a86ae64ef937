//! The padding kernel, apart from any ONNX translation: a [`PadPlan`] says, for every axis,
//! which input index each output index copies (or that it is filled with the constant), and
//! [`pad_into`] moves contiguous runs of memory according to it.
//!
//! Negative pads crop first; padding then works from the data that remains (docs/semantics.md).

use bytemuck::Pod;

#[cfg(target_arch = "x86_64")]
use super::stream_copy::{StreamWriter, extend_streaming};
pub(crate) use crate::operators::PadMode;
use crate::operators::Rule;

impl PlanError {
    /// The rule the plan breaks.
    pub(crate) fn rule(&self) -> Rule {
        match self {
            PlanError::NegativeExtent { .. } => Rule::NegativeExtent,
            PlanError::NothingToCopy { .. } => Rule::NothingToCopy,
            _ => Rule::Limit,
        }
    }
}

/// Why a padding cannot be planned.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum PlanError {
    /// The pads crop an axis by more than its extent.
    #[error("axis {axis}: extent {extent} with pads begin {begin}, end {end} gives output extent {out}, below 0")]
    NegativeExtent {
        /// The axis.
        axis: usize,
        /// The input extent.
        extent: usize,
        /// The pad before the data (negative crops).
        begin: i64,
        /// The pad after the data (negative crops).
        end: i64,
        /// The output extent the pads give.
        out: i128,
    },
    /// An axis is cropped to nothing yet still padded, in a mode that pads by copying data.
    #[error(
        "axis {axis}: {mode} padding needs data, but the axis has none left (extent {extent}, pads begin {begin}, end {end})"
    )]
    NothingToCopy {
        /// The axis.
        axis: usize,
        /// The mode, not `constant`.
        mode: PadMode,
        /// The input extent.
        extent: usize,
        /// The pad before the data (negative crops).
        begin: i64,
        /// The pad after the data (negative crops).
        end: i64,
    },
    /// The output would have more than [`MAX_OUTPUT_ELEMENTS`] elements.
    #[error("output shape {shape:?} exceeds the limit of {limit} elements")]
    TooLarge {
        /// The output extents, unbounded.
        shape: Vec<i128>,
        /// The element limit.
        limit: usize,
    },
    /// The output would take more than [`MAX_OUTPUT_BYTES`] bytes.
    #[error("output shape {shape:?} at {element_bytes} bytes an element exceeds the limit of {limit} bytes")]
    TooManyBytes {
        /// The output shape.
        shape: Vec<usize>,
        /// The size of one element.
        element_bytes: usize,
        /// The byte limit.
        limit: usize,
    },
    /// The plan itself would need more than [`MAX_PLAN_BYTES`] bytes (e.g. wrapping a short
    /// axis very many times).
    #[error(
        "output shape {shape:?}: the padding repeats its data in so many pieces that planning it needs over {limit} bytes"
    )]
    PlanTooLarge {
        /// The output shape.
        shape: Vec<usize>,
        /// The plan's byte budget.
        limit: usize,
    },
}

/// One step of producing an axis's output, in units of the block below that axis.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Run {
    /// `count` blocks of the constant.
    Fill(usize),
    /// Input blocks `start .. start + len`, in order.
    Copy { start: usize, len: usize },
    /// Input block `index`, `count` times.
    Repeat { index: usize, count: usize },
}

/// A padding worked out once for an input shape: per-axis source maps and the run list of the
/// innermost padded axis.
#[derive(Clone, Debug)]
pub(crate) struct PadPlan {
    out_shape: Vec<usize>,
    /// For each outer axis (those before `inner`), the input index each output index reads,
    /// `None` for the constant.
    outer_maps: Vec<Vec<Option<usize>>>,
    /// Input strides of the outer axes, in elements.
    outer_strides: Vec<usize>,
    /// The runs producing one output row of the innermost padded axis, in blocks.
    runs: Vec<Run>,
    /// The input blocks, relative to a row, that [`far_sources`] finds the runs jump to.
    far_sources: Vec<usize>,
    /// Elements per block: the product of the unpadded trailing extents.
    block: usize,
    /// Output elements per row: the innermost padded axis's output extent × `block`.
    row_len: usize,
}

impl PadPlan {
    /// Plans padding `in_shape` by `pads[axis] = (begin, end)` in `mode`, for elements that
    /// take up to `element_bytes` of memory each. Outputs of more than [`MAX_OUTPUT_ELEMENTS`]
    /// elements or [`MAX_OUTPUT_BYTES`] bytes are refused before anything is allocated; a plan
    /// that would need more than [`MAX_PLAN_BYTES`] is refused before it is built when its
    /// count of runs shows it, else on reaching that much.
    pub(crate) fn new(
        in_shape: &[usize],
        pads: &[(i64, i64)],
        mode: PadMode,
        element_bytes: usize,
    ) -> Result<PadPlan, PlanError> {
        assert_eq!(in_shape.len(), pads.len(), "one (begin, end) pair per axis");
        let axes: Vec<AxisPad> = in_shape
            .iter()
            .zip(pads)
            .enumerate()
            .map(|(axis, (&extent, &(begin, end)))| AxisPad::new(axis, extent, begin, end, mode))
            .collect::<Result<_, _>>()?;
        let too_large = || PlanError::TooLarge {
            shape: axes.iter().map(|a| a.out).collect(),
            limit: MAX_OUTPUT_ELEMENTS,
        };
        let out_shape: Vec<usize> = axes
            .iter()
            .map(|a| usize::try_from(a.out).map_err(|_| too_large()))
            .collect::<Result<_, _>>()?;
        let total = out_shape.iter().try_fold(1usize, |n, &d| n.checked_mul(d));
        match total {
            Some(n) if n > MAX_OUTPUT_ELEMENTS => return Err(too_large()),
            None => return Err(too_large()),
            // ndarray requires the product of the non-zero extents to fit in isize even when
            // another extent is 0: [0, 2^40, 2^40] is refused, not a panic (found by fuzzing).
            Some(0) if !nonzero_extents_fit(&out_shape) => return Err(too_large()),
            // An empty output needs no maps, however long its other axes.
            Some(0) => {
                let empty = PadPlan {
                    out_shape,
                    outer_maps: vec![],
                    outer_strides: vec![],
                    runs: vec![],
                    far_sources: vec![],
                    block: 0,
                    row_len: 0,
                };
                return Ok(empty);
            }
            Some(n)
                if n.checked_mul(element_bytes)
                    .is_none_or(|bytes| bytes > MAX_OUTPUT_BYTES) =>
            {
                return Err(PlanError::TooManyBytes {
                    shape: out_shape,
                    element_bytes,
                    limit: MAX_OUTPUT_BYTES,
                });
            }
            Some(_) => {}
        }
        // Trailing axes that are neither padded nor cropped copy whole: merge them into a block.
        let inner = pads.iter().rposition(|&p| p != (0, 0)).unwrap_or(0);
        let block: usize = in_shape.get(inner + 1..).map_or(1, |s| s.iter().product());
        let mut outer_strides = vec![0; inner];
        let mut stride = block * in_shape.get(inner).copied().unwrap_or(1);
        for axis in (0..inner).rev() {
            outer_strides[axis] = stride;
            stride *= in_shape[axis];
        }
        let plan_too_large = || PlanError::PlanTooLarge {
            shape: out_shape.clone(),
            limit: MAX_PLAN_BYTES,
        };
        let map_bytes = out_shape[..inner].iter().sum::<usize>() * size_of::<Option<usize>>();
        if map_bytes > MAX_PLAN_BYTES {
            return Err(plan_too_large());
        }
        let outer_maps = axes[..inner].iter().map(|a| a.sources(mode).collect()).collect();
        let max_runs = (MAX_PLAN_BYTES - map_bytes) / size_of::<Run>();
        // A count of runs that cannot fit is refused before the runs are enumerated up to the
        // budget.
        if axes
            .get(inner)
            .is_some_and(|axis| axis.fewest_runs(mode) > max_runs as i128)
        {
            return Err(plan_too_large());
        }
        let runs = match axes.get(inner) {
            Some(axis) => runs(axis.sources(mode), max_runs),
            None => runs(std::iter::once(Some(0)), max_runs),
        }
        .ok_or_else(plan_too_large)?;
        let row_len = out_shape.get(inner).map_or(1, |&extent| extent * block);
        let far_sources = far_sources(&runs, block.saturating_mul(element_bytes));
        Ok(PadPlan {
            out_shape,
            outer_maps,
            outer_strides,
            runs,
            far_sources,
            block,
            row_len,
        })
    }

    /// The output extents.
    pub(crate) fn out_shape(&self) -> &[usize] {
        &self.out_shape
    }

    /// The number of output elements.
    pub(crate) fn out_len(&self) -> usize {
        self.out_shape.iter().product()
    }
}

/// Whether the product of the non-zero extents of `shape` fits in `isize`, as ndarray requires
/// of every array, empty ones included.
pub(crate) fn nonzero_extents_fit(shape: &[usize]) -> bool {
    shape
        .iter()
        .filter(|&&d| d != 0)
        .try_fold(1usize, |n, &d| n.checked_mul(d))
        .is_some_and(|n| isize::try_from(n).is_ok())
}

/// The largest output, in elements, a plan accepts (2^28: 1 GiB of float). It bounds the
/// plan's own per-axis maps too, so hostile pads are refused instead of exhausting memory.
pub(crate) const MAX_OUTPUT_ELEMENTS: usize = 1 << 28;

/// The largest output, in bytes of memory, the reference writes: 2^28 complex128 elements
/// would be 4 GiB, so wide types are held to this as well as to [`MAX_OUTPUT_ELEMENTS`].
pub(crate) const MAX_OUTPUT_BYTES: usize = 1 << 31;

/// The most memory a plan's maps and runs may take. Ordinary paddings need a few runs per
/// axis; only wrap or reflect of a tiny axis by an enormous pad comes near this.
pub(crate) const MAX_PLAN_BYTES: usize = 1 << 28;

/// One axis's padding, validated: the data left after cropping and the output extent.
struct AxisPad {
    /// The first input index kept after cropping.
    lo: i128,
    /// How many input elements are kept (0 when the crop removes everything).
    kept: i128,
    pad_begin: i128,
    /// The output extent (never negative; may not fit in memory, which the plan checks).
    out: i128,
}

impl AxisPad {
    fn new(axis: usize, extent: usize, begin: i64, end: i64, mode: PadMode) -> Result<AxisPad, PlanError> {
        let out = extent as i128 + begin as i128 + end as i128;
        if out < 0 {
            return Err(PlanError::NegativeExtent {
                axis,
                extent,
                begin,
                end,
                out,
            });
        }
        let crop_begin = (-(begin as i128)).max(0);
        let kept = (extent as i128 - crop_begin - (-(end as i128)).max(0)).max(0);
        // Nothing left to copy: constant fills the whole axis; the other modes cannot pad,
        // even where the removals leave the output extent at 0 (docs/semantics.md#empty-axes).
        if kept == 0 && mode != PadMode::Constant && (begin > 0 || end > 0) {
            return Err(PlanError::NothingToCopy {
                axis,
                mode,
                extent,
                begin,
                end,
            });
        }
        Ok(AxisPad {
            lo: crop_begin,
            kept,
            pad_begin: (begin as i128).max(0),
            out,
        })
    }

    /// A lower bound on the runs [`runs`] groups this axis's sources into. Wrap's data begins
    /// again once every `kept` outputs, and reflect walks back `kept − 1` steps every
    /// `2 (kept − 1)` outputs: each such step starts a run (a run only grows by the next index
    /// up, or repeats one). Constant and edge make at most three runs.
    fn fewest_runs(&self, mode: PadMode) -> i128 {
        let (out, kept) = (self.out, self.kept);
        match mode {
            _ if kept < 2 || out == 0 => 0,
            PadMode::Wrap => out / kept,
            PadMode::Reflect => 1 + (out - 1) / (2 * (kept - 1)) * (kept - 1),
            PadMode::Constant | PadMode::Edge => 0,
        }
    }

    /// The input index each output index reads, in output order (`None`: the constant).
    fn sources(&self, mode: PadMode) -> impl Iterator<Item = Option<usize>> + '_ {
        let (lo, n) = (self.lo, self.kept);
        (0..self.out).map(move |o| {
            let j = o - self.pad_begin;
            let within = match mode {
                _ if (0..n).contains(&j) => j,
                _ if n == 0 => return None,
                PadMode::Constant => return None,
                PadMode::Edge => j.clamp(0, n - 1),
                PadMode::Wrap => j.rem_euclid(n),
                PadMode::Reflect if n == 1 => 0,
                PadMode::Reflect => {
                    let period = 2 * (n - 1);
                    let m = j.rem_euclid(period);
                    if m < n { m } else { period - m }
                }
            };
            Some((lo + within) as usize)
        })
    }
}

/// Groups an axis's sources into runs: constant stretches, ascending copies and repeats;
/// `None` when that takes more than `max_runs`.
fn runs(sources: impl Iterator<Item = Option<usize>>, max_runs: usize) -> Option<Vec<Run>> {
    let mut runs: Vec<Run> = Vec::new();
    for source in sources {
        // Room for one more run, growing by doubling but never past `max_runs`.
        if runs.len() == runs.capacity() {
            let room = max_runs.saturating_sub(runs.len()).min(runs.capacity().max(4));
            if room == 0 {
                return None;
            }
            runs.reserve_exact(room);
        }
        match (runs.last_mut(), source) {
            (Some(Run::Fill(count)), None) => *count += 1,
            (_, None) => runs.push(Run::Fill(1)),
            (Some(Run::Copy { start, len }), Some(i)) if *start + *len == i => *len += 1,
            (Some(Run::Copy { start, len: 1 }), Some(i)) if *start == i => {
                *runs.last_mut().unwrap() = Run::Repeat { index: i, count: 2 }
            }
            (Some(Run::Repeat { index, count }), Some(i)) if *index == i => *count += 1,
            (_, Some(i)) => runs.push(Run::Copy { start: i, len: 1 }),
        }
    }
    Some(runs)
}

/// The sources (in blocks) of the runs that jump more than [`FAR_JUMP_BYTES`] past all that
/// the row's runs before them read. The hardware prefetcher follows a row read in order, but
/// not such a jump: wrap reads a row's end first, so each row began with a miss to memory
/// (wrap ran at 0.6 of a copy, reflect at 0.95), and these sources are prefetched a row ahead.
/// Prefetching sources the stream reaches anyway only costs: reflect fell to 0.7 when every
/// run's source was.
fn far_sources(runs: &[Run], block_bytes: usize) -> Vec<usize> {
    let mut read_to = 0usize;
    let mut far = Vec::new();
    for run in runs {
        let (source, blocks) = match *run {
            Run::Fill(_) => continue,
            Run::Copy { start, len } => (start, len),
            Run::Repeat { index, .. } => (index, 1),
        };
        let start = source.saturating_mul(block_bytes);
        if start > read_to.saturating_add(FAR_JUMP_BYTES) {
            far.push(source);
        }
        read_to = read_to.max(start.saturating_add(blocks.saturating_mul(block_bytes)));
    }
    far
}

/// How many rows ahead far sources are prefetched. For wrap of [1, 64, 512, 512] rows of 2 KiB,
/// one row ahead was as fast as any: 2, 4 and 8 were no faster, 8 slower.
const PREFETCH_ROWS: usize = 1;

/// A jump in a row's reads the hardware prefetcher is not expected to have foreseen: a few
/// cache lines.
const FAR_JUMP_BYTES: usize = 256;

/// Pads `input` (row-major, of the shape the plan was made for) into `out`, which is cleared
/// first and keeps its capacity, so a caller running many paddings reuses one buffer.
pub(crate) fn pad_into<T: Clone>(input: &[T], plan: &PadPlan, constant: &T, out: &mut Vec<T>) {
    out.clear();
    out.reserve(plan.out_len());
    crate::tensor::huge_pages::advise_capacity(out);
    pad_runs(input, plan, constant, out);
}

/// Pads like [`pad_into`], for plain data. On x86_64 an output of [`STREAM_MIN_BYTES`] or more
/// is written with streaming stores, which save the read of the output's memory that an
/// ordinary store makes first (see `stream_copy.rs`).
pub(crate) fn pad_pod_into<T: Pod>(input: &[T], plan: &PadPlan, constant: &T, out: &mut Vec<T>) {
    #[cfg(target_arch = "x86_64")]
    if plan.out_len() * size_of::<T>() >= STREAM_MIN_BYTES && matches!(size_of::<T>(), 1 | 2 | 4 | 8 | 16) {
        return pad_streaming(input, plan, constant, out);
    }
    pad_into(input, plan, constant, out);
}

/// The output size from which [`pad_pod_into`] streams: a large last-level cache. Below it,
/// input and output partly stay in the cache, and ordinary stores were as fast or faster
/// (float32 outputs of 4 to 8 MiB, uint8 outputs of 17 MiB, with a 32 MiB L3).
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
pub(crate) const STREAM_MIN_BYTES: usize = 32 << 20;

/// [`pad_into`] with streaming stores, whatever the size; the element's size must divide 16.
#[cfg(target_arch = "x86_64")]
fn pad_streaming<T: Pod>(input: &[T], plan: &PadPlan, constant: &T, out: &mut Vec<T>) {
    assert!(
        matches!(size_of::<T>(), 1 | 2 | 4 | 8 | 16),
        "streaming needs an element size that divides 16"
    );
    out.clear();
    extend_streaming(out, plan.out_len(), |writer| pad_runs(input, plan, constant, writer));
}

/// Where the kernel puts the output, in order.
trait Sink<T> {
    /// Appends `count` copies of `value`.
    fn fill(&mut self, value: &T, count: usize);
    /// Appends `values`.
    fn copy(&mut self, values: &[T]);
}

impl<T: Clone> Sink<T> for Vec<T> {
    fn fill(&mut self, value: &T, count: usize) {
        self.resize(self.len() + count, value.clone());
    }

    fn copy(&mut self, values: &[T]) {
        self.extend_from_slice(values);
    }
}

#[cfg(target_arch = "x86_64")]
impl<T: Pod> Sink<T> for StreamWriter<'_> {
    fn fill(&mut self, value: &T, count: usize) {
        let element = bytemuck::bytes_of(value);
        // 16 bytes of the fill: the same everywhere, as the element's size divides 16.
        let pattern = std::array::from_fn(|i| element[i % element.len()]);
        self.write_repeated(pattern, count * element.len());
    }

    fn copy(&mut self, values: &[T]) {
        self.write(bytemuck::cast_slice(values));
    }
}

/// Appends the padding of `input` to `out`, moving contiguous runs.
fn pad_runs<T: Clone>(input: &[T], plan: &PadPlan, constant: &T, out: &mut impl Sink<T>) {
    if plan.out_len() == 0 {
        return;
    }
    let block = plan.block;
    // A second walk over the rows runs PREFETCH_ROWS ahead, so that the far sources of a row
    // to come are asked of memory while this one is written.
    let mut ahead = (!plan.far_sources.is_empty()).then(|| Rows::new(plan).skip(PREFETCH_ROWS));
    for base in Rows::new(plan) {
        if let Some(Some(Some(ahead))) = ahead.as_mut().map(Iterator::next) {
            for &source in &plan.far_sources {
                prefetch_source(input, ahead + source * block);
            }
        }
        let Some(base) = base else {
            out.fill(constant, plan.row_len);
            continue;
        };
        for run in &plan.runs {
            match *run {
                Run::Fill(count) => out.fill(constant, count * block),
                Run::Copy { start, len } => {
                    let from = base + start * block;
                    out.copy(&input[from..from + len * block]);
                }
                Run::Repeat { index, count } => {
                    let from = base + index * block;
                    let source = &input[from..from + block];
                    if block == 1 {
                        out.fill(&source[0], count);
                    } else {
                        for _ in 0..count {
                            out.copy(source);
                        }
                    }
                }
            }
        }
    }
}

/// Asks for the cache line holding `input[index]`, if there is one, ahead of its use.
#[inline]
fn prefetch_source<T>(input: &[T], index: usize) {
    #[cfg(target_arch = "x86_64")]
    if let Some(element) = input.get(index) {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        // SAFETY: a prefetch is a hint that reads nothing and cannot fault; the address is
        // an element of `input`.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(std::ptr::from_ref(element).cast()) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (input, index);
}

/// The output rows of a plan in order: for each, the input offset of its row (`None`: the
/// constant fills it), by an odometer over the outer output axes.
struct Rows<'a> {
    plan: &'a PadPlan,
    index: Vec<usize>,
    done: bool,
}

impl<'a> Rows<'a> {
    fn new(plan: &'a PadPlan) -> Rows<'a> {
        Rows {
            plan,
            index: vec![0; plan.outer_maps.len()],
            done: false,
        }
    }
}

impl Iterator for Rows<'_> {
    type Item = Option<usize>;

    fn next(&mut self) -> Option<Option<usize>> {
        if self.done {
            return None;
        }
        let plan = self.plan;
        let mut base = Some(0usize);
        for ((map, &i), &stride) in plan.outer_maps.iter().zip(&self.index).zip(&plan.outer_strides) {
            base = base.zip(map[i]).map(|(b, s)| b + s * stride);
        }
        // Advance the odometer; past the last row, the iterator is done.
        self.done = true;
        for axis in (0..self.index.len()).rev() {
            self.index[axis] += 1;
            if self.index[axis] < plan.outer_maps[axis].len() {
                self.done = false;
                break;
            }
            self.index[axis] = 0;
        }
        Some(base)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pad1(values: &[i32], begin: i64, end: i64, mode: PadMode) -> Result<Vec<i32>, PlanError> {
        let plan = PadPlan::new(&[values.len()], &[(begin, end)], mode, 4)?;
        let mut out = Vec::new();
        pad_into(values, &plan, &0, &mut out);
        Ok(out)
    }

    #[test]
    fn reflect_mirrors_without_the_edge_and_keeps_going() {
        assert_eq!(pad1(&[1, 2, 3], 2, 0, PadMode::Reflect).unwrap(), [3, 2, 1, 2, 3]);
        // numpy.pad([1, 2, 3], (4, 3), 'reflect')
        assert_eq!(
            pad1(&[1, 2, 3], 4, 3, PadMode::Reflect).unwrap(),
            [1, 2, 3, 2, 1, 2, 3, 2, 1, 2]
        );
        assert_eq!(pad1(&[7], 2, 1, PadMode::Reflect).unwrap(), [7, 7, 7, 7]);
    }

    #[test]
    fn only_jumps_ahead_of_the_row_are_prefetched() {
        let far = |shape: &[usize], pads: &[(i64, i64)], mode| PadPlan::new(shape, pads, mode, 4).unwrap().far_sources;
        // Wrap reads a row's last two elements first: 2040 bytes in.
        assert_eq!(far(&[8, 512], &[(0, 0), (2, 2)], PadMode::Wrap), [510]);
        // Reflect reads near the row's start, then in order, then its end after the rest.
        for mode in [PadMode::Constant, PadMode::Edge, PadMode::Reflect] {
            assert_eq!(far(&[8, 512], &[(2, 2), (2, 2)], mode), [] as [usize; 0], "{mode}");
        }
        // A short row's jump stays within a few cache lines.
        assert_eq!(far(&[8, 16], &[(0, 0), (2, 2)], PadMode::Wrap), [] as [usize; 0]);
        // Cropping the front skips ahead by a row's first 100 elements.
        assert_eq!(far(&[4, 512], &[(0, 0), (-100, 0)], PadMode::Constant), [100]);
    }

    #[test]
    fn wrap_after_crop_uses_the_remaining_data() {
        // docs/semantics.md: wrap of [a, b, c, d] with pads [1, -1] gives [c, a, b, c].
        assert_eq!(pad1(&[1, 2, 3, 4], 1, -1, PadMode::Wrap).unwrap(), [3, 1, 2, 3]);
        assert_eq!(pad1(&[1, 2], 5, 0, PadMode::Wrap).unwrap(), [2, 1, 2, 1, 2, 1, 2]);
    }

    #[test]
    fn over_removal_fills_with_the_constant_or_is_refused() {
        assert_eq!(pad1(&[1, 2, 3], -5, 4, PadMode::Constant).unwrap(), [0, 0]);
        assert!(matches!(
            pad1(&[1, 2, 3], -5, 4, PadMode::Edge),
            Err(PlanError::NothingToCopy {
                axis: 0,
                mode: PadMode::Edge,
                ..
            })
        ));
        assert!(matches!(
            pad1(&[1, 2, 3], -2, -2, PadMode::Constant),
            Err(PlanError::NegativeExtent { axis: 0, out: -1, .. })
        ));
    }

    /// The bound the plan refuses by is never above the runs it would enumerate, and the
    /// enumeration itself stops at its budget.
    #[test]
    fn the_fewest_runs_bound_the_runs() {
        for mode in [PadMode::Constant, PadMode::Edge, PadMode::Wrap, PadMode::Reflect] {
            for extent in 1..9 {
                for begin in -3..20 {
                    for end in -3..20 {
                        let Ok(axis) = AxisPad::new(0, extent, begin, end, mode) else {
                            continue;
                        };
                        let all = runs(axis.sources(mode), usize::MAX).unwrap().len() as i128;
                        let fewest = axis.fewest_runs(mode);
                        assert!(fewest <= all, "{mode:?} {extent} ({begin}, {end}): {fewest} > {all}");
                        // Close enough to refuse what cannot fit: within a factor of two once
                        // reflect has gone back and forth twice.
                        if mode == PadMode::Reflect && axis.kept > 2 && axis.out > 4 * (axis.kept - 1) {
                            assert!(
                                2 * fewest >= all,
                                "{mode:?} {extent} ({begin}, {end}): {fewest} ≪ {all}"
                            );
                        }
                        let budget = (all as usize).saturating_sub(1);
                        assert!(all == 0 || runs(axis.sources(mode), budget).is_none());
                    }
                }
            }
        }
    }

    #[test]
    fn runs_group_copies_repeats_and_fills() {
        let map = [None, None, Some(0), Some(0), Some(1), Some(2), Some(1), None];
        assert_eq!(
            runs(map.into_iter(), usize::MAX).unwrap(),
            [
                Run::Fill(2),
                Run::Repeat { index: 0, count: 2 },
                Run::Copy { start: 1, len: 2 },
                Run::Copy { start: 1, len: 1 },
                Run::Fill(1)
            ]
        );
    }

    #[test]
    fn outer_axis_padding_fills_whole_rows() {
        let plan = PadPlan::new(&[2, 2], &[(1, 0), (0, 1)], PadMode::Constant, 4).unwrap();
        let mut out = vec![99; 100];
        pad_into(&[1, 2, 3, 4], &plan, &-1, &mut out);
        assert_eq!(plan.out_shape(), [3, 3]);
        assert_eq!(out, [-1, -1, -1, 1, 2, -1, 3, 4, -1]);
    }

    #[test]
    fn hostile_pads_are_refused_before_allocating() {
        let huge = PadPlan::new(&[2, 3], &[(0, 1 << 40), (0, 0)], PadMode::Constant, 4);
        assert!(matches!(
            huge,
            Err(PlanError::TooLarge {
                limit: MAX_OUTPUT_ELEMENTS,
                ..
            })
        ));
        let overflow = PadPlan::new(&[2, 3], &[(0, i64::MAX), (i64::MAX, 0)], PadMode::Constant, 4);
        assert!(matches!(overflow, Err(PlanError::TooLarge { .. })));
        // Within the element limit, over the byte limit at 16 bytes an element.
        let wide = PadPlan::new(&[2], &[(0, (1 << 28) - 2)], PadMode::Constant, 16);
        assert!(matches!(wide, Err(PlanError::TooManyBytes { element_bytes: 16, .. })));
        // Wrapping a 2-element axis 2^26 times is 2^26 copy runs: over the plan's budget; so
        // is reflecting a 100-element axis over 2^26 outputs (a run per step back).
        let pieces = PadPlan::new(&[2], &[(0, 1 << 27)], PadMode::Wrap, 4);
        assert!(matches!(pieces, Err(PlanError::PlanTooLarge { .. })));
        let steps = PadPlan::new(&[100], &[(0, 1 << 26)], PadMode::Reflect, 4);
        assert!(matches!(steps, Err(PlanError::PlanTooLarge { .. })));
        // A long edge or constant border is one run, whatever its length.
        let long = PadPlan::new(&[2], &[(1 << 20, 1 << 20)], PadMode::Edge, 4).unwrap();
        assert_eq!(
            long.runs,
            [
                Run::Repeat {
                    index: 0,
                    count: (1 << 20) + 1
                },
                Run::Repeat {
                    index: 1,
                    count: (1 << 20) + 1
                }
            ]
        );
        // Empty because another axis is 0: no map is built for the long axis.
        let empty = PadPlan::new(&[0, 3], &[(0, 0), (0, 1 << 40)], PadMode::Constant, 4).unwrap();
        assert_eq!(empty.out_shape(), [0, 3 + (1 << 40)]);
        let mut out = vec![1];
        pad_into::<i32>(&[], &empty, &0, &mut out);
        assert!(out.is_empty());
    }

    /// The streaming kernel against the generic one, which the property tests hold to the
    /// per-element definition.
    #[cfg(target_arch = "x86_64")]
    mod streaming {
        use num_complex::Complex;
        use proptest::collection::vec;
        use proptest::prelude::*;

        use super::*;

        /// Pads `input` of `shape` in each mode both ways, and compares.
        fn streaming_agrees<T: Pod + PartialEq + std::fmt::Debug>(
            shape: &[usize],
            pads: &[(i64, i64)],
            input: &[T],
            fill: T,
        ) {
            for mode in [PadMode::Constant, PadMode::Edge, PadMode::Reflect, PadMode::Wrap] {
                let Ok(plan) = PadPlan::new(shape, pads, mode, size_of::<T>()) else {
                    continue;
                };
                let (mut expected, mut streamed) = (Vec::new(), vec![fill; 3]);
                pad_into(input, &plan, &fill, &mut expected);
                pad_streaming(input, &plan, &fill, &mut streamed);
                assert_eq!(streamed, expected, "shape {shape:?}, pads {pads:?}, {mode}");
            }
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(256))]

            #[test]
            fn streaming_matches_the_generic_kernel_for_every_element_size(
                (shape, pads) in (0..=4usize).prop_flat_map(|rank| (vec(0..5usize, rank), vec((-3..6i64, -3..6i64), rank)))
            ) {
                let labels = 1..=shape.iter().product::<usize>();
                streaming_agrees(&shape, &pads, &labels.clone().map(|l| l as u8).collect::<Vec<_>>(), 0xEE);
                streaming_agrees(&shape, &pads, &labels.clone().map(|l| l as u16).collect::<Vec<_>>(), 0xEEEE);
                streaming_agrees(&shape, &pads, &labels.clone().map(|l| l as f32).collect::<Vec<_>>(), -1.5);
                let complex64: Vec<Complex<f32>> = labels.clone().map(|l| Complex::new(l as f32, -(l as f32))).collect();
                streaming_agrees(&shape, &pads, &complex64, Complex::new(-1.0, -2.0));
                let complex128: Vec<Complex<f64>> = labels.map(|l| Complex::new(l as f64, 0.5)).collect();
                streaming_agrees(&shape, &pads, &complex128, Complex::new(-1.0, -2.0));
            }
        }
    }

    // 32 MiB outputs in four modes: a step of .ci/run, not of `cargo test` (the streaming
    // kernel's small cases are the proptest's above).
    #[test]
    #[ignore = "slow: run by .ci/run"]
    fn a_large_plain_output_is_padded_right() {
        // Past the streaming threshold in every mode: [2, 1024, 4096] to [2, 1029, 4099].
        const H: i32 = 1024;
        const W: i32 = 4096;
        let (shape, pads) = ([2, H as usize, W as usize], [(0, 0), (2, 3), (-1, 4)]);
        let input: Vec<i32> = (0..2 * H * W).collect();
        let value = |c: i32, h: i32, w: i32| (c * H + h) * W + w;
        // One pair of buffers for the four modes, as a caller running many paddings keeps.
        let (mut expected, mut out) = (Vec::new(), Vec::new());
        for mode in [PadMode::Constant, PadMode::Edge, PadMode::Reflect, PadMode::Wrap] {
            let plan = PadPlan::new(&shape, &pads, mode, 4).unwrap();
            assert!(plan.out_len() * size_of::<i32>() >= STREAM_MIN_BYTES);
            pad_into(&input, &plan, &-7, &mut expected);
            pad_pod_into(&input, &plan, &-7, &mut out);
            assert!(out == expected, "{mode}");
            // Spot checks against the definition, so that both cannot be wrong alike.
            let at = |c: usize, h: usize, w: usize| out[(c * 1029 + h) * 4099 + w];
            assert_eq!(at(1, 2, 0), value(1, 0, 1));
            assert_eq!(at(1, 1025, 4094), value(1, H - 1, W - 1));
            let top = match mode {
                PadMode::Constant => -7,
                PadMode::Edge => value(1, 0, 1),
                PadMode::Reflect => value(1, 2, 1),
                PadMode::Wrap => value(1, H - 2, 1),
            };
            assert_eq!(at(1, 0, 0), top, "{mode}");
            // Column 4098 is 4 past the last of the 4095 columns kept after the crop.
            let right = match mode {
                PadMode::Constant => -7,
                PadMode::Edge => value(0, 3, W - 1),
                PadMode::Reflect => value(0, 3, W - 5),
                PadMode::Wrap => value(0, 3, 4),
            };
            assert_eq!(at(0, 5, 4098), right, "{mode}");
        }
    }
}
