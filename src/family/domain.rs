//! Operator domains: ONNX's standard one (spelled `""` or `ai.onnx`) and onnxruntime's.

/// The domain ONNX's standard operators live in, as models spell it most often.
pub(crate) const ONNX_DOMAIN: &str = "";
/// The domain of onnxruntime's contrib operators.
pub(crate) const MICROSOFT_DOMAIN: &str = "com.microsoft";

/// `""` for the standard domain, however the model spells it.
pub(crate) fn normalize_domain(domain: &str) -> &str {
    if domain == "ai.onnx" { ONNX_DOMAIN } else { domain }
}

/// The domain as reports spell it: `ai.onnx` for the standard one.
pub(crate) fn domain_name(domain: &str) -> &str {
    if domain.is_empty() { "ai.onnx" } else { domain }
}
