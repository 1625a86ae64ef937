//! The shape of the cases the fuzzing tests draw.

use pad_conformance::fuzz::Shape;

/// The default shape with inputs of at most 4,096 elements. What those tests show — causes,
/// shards, shrinking, encodings — needs no larger input, and the default's rare long axes (up
/// to 65,536 elements) were most of their time. Each case keeps its own seed, so the cases
/// without a long axis are drawn as under the default. The default shape is fuzzed by .ci/run.
pub fn small_inputs() -> Shape {
    Shape {
        max_elements: 4096,
        ..Shape::default()
    }
}
