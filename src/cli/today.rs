//! Today's date, UTC, as `promote` dates a changelog section and `history record` a stored
//! release.

/// Today, UTC: the date of the changelog's section (and of a stored release).
pub(super) fn today() -> String {
    let seconds = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    chrono::DateTime::from_timestamp(i64::try_from(seconds).unwrap_or(0), 0)
        .unwrap_or_default()
        .format("%Y-%m-%d")
        .to_string()
}
