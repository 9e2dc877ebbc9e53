#[macro_export]
macro_rules! square {
    ($x:expr) => {
        $x * $x
    };
}

pub fn clamp(value: f64, lo: f64, hi: f64) -> f64 {
    value.max(lo).min(hi)
}
