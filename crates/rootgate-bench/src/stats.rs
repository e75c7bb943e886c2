//! The benchmark's statistics object, `{count,min,median,p90,p99,max}` in
//! milliseconds, with the README's quantile: for sorted samples `s`,
//! `q(p) = s[min(len-1, floor(p·(len-1) + 0.5))]`.

use serde::Serialize;

/// Summary of a list of samples, in milliseconds.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Stats {
    pub count: usize,
    pub min: f64,
    pub median: f64,
    pub p90: f64,
    pub p99: f64,
    pub max: f64,
}

/// The statistics of `samples`; `None` when there are none (the driver
/// fails then: a metric with no sample measured nothing).
pub fn stats(samples: &[f64]) -> Option<Stats> {
    let mut s = samples.to_vec();
    s.sort_by(f64::total_cmp);
    let last = s.len().checked_sub(1)?;
    let q = |p: f64| s[last.min((p * last as f64 + 0.5).floor() as usize)];
    Some(Stats {
        count: s.len(),
        min: s[0],
        median: q(0.5),
        p90: q(0.9),
        p99: q(0.99),
        max: s[last],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_follow_the_readme_formula() {
        // Python: s[min(len(s)-1, int(p*(len(s)-1) + 0.5))]
        let samples: Vec<f64> = (1..=10).rev().map(f64::from).collect();
        let st = stats(&samples).unwrap();
        assert_eq!(st.count, 10);
        assert_eq!((st.min, st.max), (1.0, 10.0));
        // 0.5*9+0.5 = 5.0 -> s[5] = 6; 0.9*9+0.5 = 8.6 -> s[8] = 9;
        // 0.99*9+0.5 = 9.41 -> s[9] = 10.
        assert_eq!((st.median, st.p90, st.p99), (6.0, 9.0, 10.0));
        let one = stats(&[2.5]).unwrap();
        assert_eq!(
            (one.min, one.median, one.p99, one.max),
            (2.5, 2.5, 2.5, 2.5)
        );
        assert_eq!(stats(&[]), None);
    }

    #[test]
    fn serialises_in_the_readme_field_order() {
        let json = serde_json::to_string(&stats(&[1.0, 2.0]).unwrap()).unwrap();
        assert_eq!(
            json,
            r#"{"count":2,"min":1.0,"median":2.0,"p90":2.0,"p99":2.0,"max":2.0}"#
        );
    }
}
