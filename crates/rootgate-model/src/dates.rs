//! Calendar dates from milliseconds since the epoch, in UTC: what file
//! names and the words "from 2026-01-15 10:00 UTC" need, and no more (no
//! time zones, no parsing), so that no date crate is linked for them.

/// The UTC calendar date (year, month 1-12, day 1-31) of `ms` since the
/// epoch, for the proleptic Gregorian calendar (Howard Hinnant's
/// days-to-civil algorithm).
pub(crate) fn civil(ms: u64) -> (i64, u32, u32) {
    let z = (ms / 86_400_000) as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// `2026-01-15`: the UTC day of `ms`.
pub fn day(ms: u64) -> String {
    let (y, m, d) = civil(ms);
    format!("{y:04}-{m:02}-{d:02}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn days_are_utc_calendar_days() {
        assert_eq!(day(0), "1970-01-01");
        assert_eq!(day(1_764_806_400_000), "2025-12-04");
        assert_eq!(day(951_782_400_000), "2000-02-29");
        assert_eq!(day(951_868_799_999), "2000-02-29");
        assert_eq!(civil(4_102_444_800_000), (2100, 1, 1));
    }
}
