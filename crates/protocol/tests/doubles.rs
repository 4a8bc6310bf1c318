//! `format_double` against doubles printed by the real Redis 8.2.3.

use streamlab_protocol::format_double;
use streamlab_testkit::rng::Rng;

#[test]
fn matches_redis_zscore_output() {
    let data = include_str!("data/redis_doubles.txt");
    let mut checked = 0;
    for line in data.lines().filter(|l| !l.starts_with('#')) {
        let (bits, want) = line.split_once(' ').expect("bits and text");
        let d = f64::from_bits(bits.parse().expect("decimal bits"));
        assert_eq!(format_double(d), want, "{d:e}");
        checked += 1;
    }
    assert!(checked > 1000);
}

#[test]
fn grisu_is_not_shortest() {
    // Values where Redis's Grisu2 picks a different last digit than the shortest repr.
    assert_eq!(format_double(224866638629131.38), "224866638629131.37");
    assert_eq!(format_double(0.0003349391766776726), "3.3493917667767257e-4");
    assert_eq!(format_double(-9.82588994698816e18), "-9825889946988159000");
}

#[test]
fn every_output_reads_back_as_the_same_double() {
    // Uniform random bit patterns cover denormals, NaNs, huge and tiny exponents alike (one
    // pattern in 2048 has each extreme exponent).
    let mut rng = Rng::new(0);
    let mut denormals = 0;
    for _ in 0..200_000 {
        let d = f64::from_bits(rng.next());
        denormals += usize::from(d.is_subnormal());
        let text = format_double(d);
        if d.is_nan() {
            assert_eq!(text, "nan");
            continue;
        }
        let back: f64 = text.parse().expect("a number");
        assert_eq!(back.to_bits(), d.to_bits(), "{d:e} printed as {text}");
    }
    assert!(denormals > 50, "{denormals} denormals");
}
