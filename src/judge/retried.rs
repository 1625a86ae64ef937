//! What an outcome records of a retry ([`crate::judge::retry`] decides them): how the first
//! try failed, and the digest of an answer that tries are compared by. Apart from the retry's
//! rule, which works on outcomes, so that the outcome can hold them.

use serde::{Deserialize, Serialize};

use super::verdict::Failure;

/// The first try failed this way, and the data set was run again.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Retry {
    /// How the first try failed: a crash or a timeout.
    pub after: Failure,
    /// The tries made, the first included.
    pub tries: u32,
    /// What the first try reported.
    pub first: String,
}

impl Retry {
    /// `passed after a crash`, `passed after a timeout`: what a report says of a retried pass.
    pub fn passed_after(&self) -> &'static str {
        match self.after {
            Failure::Timeout => "passed after a timeout",
            _ => "passed after a crash",
        }
    }
}

/// The sha256 of outputs (their element types, shapes and values), for comparing tries.
pub(crate) fn answer_digest(outputs: &[crate::tensor::Tensor]) -> String {
    use prost::Message;
    use sha2::{Digest, Sha256};
    let mut hasher = Sha256::new();
    for tensor in outputs {
        let bytes = crate::tensor::encode_tensor(tensor, "").encode_to_vec();
        hasher.update((bytes.len() as u64).to_le_bytes());
        hasher.update(bytes);
    }
    hasher.finalize().iter().map(|b| format!("{b:02x}")).collect()
}
