//! Exact decimal numbers with DynamoDB's limits.
//!
//! A [`Number`] is `±mantissa × 10^exponent` where the mantissa has at most 38 decimal digits.
//! Invariant: the representation is canonical — the mantissa has no trailing zero digits
//! (they are moved into the exponent), zero is `+0 × 10^0`, and the value lies in DynamoDB's
//! range (zero, or magnitude in `[1E-130, 1E+126)`). Because it is canonical, the derived
//! `Eq`/`Hash` are numeric equality (`1.50 == 1.5 == 15E-1`).

use std::cmp::Ordering;
use std::fmt;
use std::str::FromStr;

use crate::NumberError;

/// The largest number of significant digits DynamoDB stores.
pub const MAX_DIGITS: u32 = 38;
/// Adjusted exponent (position of the leading digit) limits: 1E-130 ..= 9.99…E+125.
const MIN_ADJUSTED_EXP: i32 = -130;
const MAX_ADJUSTED_EXP: i32 = 125;

/// An exact DynamoDB number. See the module docs for the invariant.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Number {
    negative: bool,
    mantissa: Mantissa,
    exponent: i32,
}

/// A 128-bit mantissa stored as two 64-bit halves, so that a [`Number`] (and with it every
/// `AttributeValue`) needs only 8-byte alignment: a `u128` field would make `Number` 32 bytes
/// and `AttributeValue` 48 where 24 and 32 suffice. Values are always read whole via
/// [`Mantissa::get`].
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
struct Mantissa {
    low: u64,
    high: u64,
}

impl Mantissa {
    const fn new(m: u128) -> Mantissa {
        Mantissa { low: m as u64, high: (m >> 64) as u64 }
    }

    fn get(self) -> u128 {
        (u128::from(self.high) << 64) | u128::from(self.low)
    }
}

impl fmt::Display for Mantissa {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.get(), f)
    }
}

fn digit_count(mut m: u128) -> u32 {
    let mut n = 1;
    while m >= 10 {
        m /= 10;
        n += 1;
    }
    n
}

impl Number {
    /// The number zero.
    pub const ZERO: Number = Number { negative: false, mantissa: Mantissa::new(0), exponent: 0 };

    /// Builds a number from decimal digits (most significant first, each `0..=9`), a sign and
    /// the power of ten of the last digit, checking DynamoDB's precision and range rules.
    /// Leading and trailing zero digits are not significant.
    pub fn from_digits(negative: bool, digits: &[u8], exponent: i64) -> Result<Number, NumberError> {
        let start = digits.iter().position(|&d| d != 0);
        let Some(start) = start else { return Ok(Number::ZERO) };
        let end = digits.iter().rposition(|&d| d != 0).map_or(start, |e| e + 1);
        let significant = &digits[start..end];
        let trailing = (digits.len() - end) as i64;
        let exponent = exponent.saturating_add(trailing);
        let adjusted = exponent.saturating_add(significant.len() as i64 - 1);
        if significant.len() > MAX_DIGITS as usize {
            return Err(NumberError::Precision);
        }
        if adjusted > MAX_ADJUSTED_EXP as i64 {
            return Err(NumberError::Overflow);
        }
        if adjusted < MIN_ADJUSTED_EXP as i64 {
            return Err(NumberError::Underflow);
        }
        let mut mantissa: u128 = 0;
        for &d in significant {
            mantissa = mantissa * 10 + d as u128;
        }
        Ok(Number { negative, mantissa: Mantissa::new(mantissa), exponent: exponent as i32 })
    }

    /// Parses DynamoDB's number text: optional sign, digits with an optional decimal point,
    /// optional `e`/`E` exponent. Surrounding whitespace is refused.
    pub fn parse(text: &str) -> Result<Number, NumberError> {
        let bytes = text.as_bytes();
        let mut i = 0;
        let mut negative = false;
        if let Some(&c) = bytes.first() {
            if c == b'-' || c == b'+' {
                negative = c == b'-';
                i = 1;
            }
        }
        let mut digits: Vec<u8> = Vec::with_capacity(bytes.len());
        let mut frac_digits: i64 = 0;
        let mut seen_point = false;
        let mut seen_digit = false;
        while i < bytes.len() {
            match bytes[i] {
                c @ b'0'..=b'9' => {
                    // Skip leading zeros so very long zero prefixes cost nothing.
                    if !(digits.is_empty() && c == b'0') {
                        digits.push(c - b'0');
                    }
                    seen_digit = true;
                    if seen_point {
                        frac_digits += 1;
                    }
                }
                b'.' if !seen_point => seen_point = true,
                b'e' | b'E' => break,
                _ => return Err(NumberError::NotANumber),
            }
            i += 1;
        }
        if !seen_digit {
            return Err(NumberError::NotANumber);
        }
        let mut exp: i64 = 0;
        if i < bytes.len() {
            // bytes[i] is 'e' or 'E'.
            i += 1;
            let mut exp_negative = false;
            if let Some(&c) = bytes.get(i) {
                if c == b'-' || c == b'+' {
                    exp_negative = c == b'-';
                    i += 1;
                }
            }
            if i >= bytes.len() {
                return Err(NumberError::NotANumber);
            }
            for &c in &bytes[i..] {
                if !c.is_ascii_digit() {
                    return Err(NumberError::NotANumber);
                }
                exp = exp.saturating_mul(10).saturating_add((c - b'0') as i64);
            }
            if exp_negative {
                exp = -exp;
            }
        }
        Number::from_digits(negative, &digits, exp.saturating_sub(frac_digits))
    }

    /// True for zero.
    pub fn is_zero(&self) -> bool {
        self.mantissa.get() == 0
    }

    /// True for numbers below zero.
    pub fn is_negative(&self) -> bool {
        self.negative
    }

    /// How many significant digits the mantissa has (1 for zero).
    pub fn digit_count(&self) -> usize {
        digit_count(self.mantissa.get()) as usize
    }

    /// The significant digits, most significant first (`[0]` for zero).
    pub fn digits(&self) -> Vec<u8> {
        self.mantissa.get().to_string().bytes().map(|b| b - b'0').collect()
    }

    /// The power of ten of the last significant digit.
    pub fn exponent(&self) -> i32 {
        self.exponent
    }

    /// The power of ten of the leading digit (`0` for zero): `123` → 2, `0.05` → -2.
    pub fn adjusted_exponent(&self) -> i32 {
        if self.is_zero() {
            0
        } else {
            self.exponent + digit_count(self.mantissa.get()) as i32 - 1
        }
    }

    /// The negated number.
    pub fn neg(&self) -> Number {
        if self.is_zero() {
            *self
        } else {
            Number { negative: !self.negative, ..*self }
        }
    }

    /// Exact sum; errors when the result leaves DynamoDB's precision or range.
    pub fn checked_add(&self, other: &Number) -> Result<Number, NumberError> {
        if self.is_zero() {
            return Ok(*other);
        }
        if other.is_zero() {
            return Ok(*self);
        }
        match self.add_in_u128(other) {
            Some(sum) => sum,
            None => self.add_by_digits(other),
        }
    }

    /// The sum when both mantissas, aligned on the smaller exponent, and their sum fit in a
    /// `u128` (counters and prices always do); `None` sends the caller to the digit path.
    fn add_in_u128(&self, other: &Number) -> Option<Result<Number, NumberError>> {
        let lo = self.exponent.min(other.exponent);
        let aligned = |n: &Number| {
            let shift = u32::try_from(n.exponent - lo).ok()?;
            10u128.checked_pow(shift).and_then(|p| n.mantissa.get().checked_mul(p))
        };
        let (a, b) = (aligned(self)?, aligned(other)?);
        let (negative, mantissa) = if self.negative == other.negative {
            (self.negative, a.checked_add(b)?)
        } else {
            match a.cmp(&b) {
                Ordering::Equal => return Some(Ok(Number::ZERO)),
                Ordering::Greater => (self.negative, a - b),
                Ordering::Less => (other.negative, b - a),
            }
        };
        Some(Number::from_mantissa(negative, mantissa, lo as i64))
    }

    /// `±mantissa × 10^exponent` under the same rules as [`Number::from_digits`].
    fn from_mantissa(negative: bool, mut mantissa: u128, mut exponent: i64) -> Result<Number, NumberError> {
        if mantissa == 0 {
            return Ok(Number::ZERO);
        }
        while mantissa.is_multiple_of(10) {
            mantissa /= 10;
            exponent += 1;
        }
        let digits = digit_count(mantissa);
        if digits > MAX_DIGITS {
            return Err(NumberError::Precision);
        }
        let adjusted = exponent.saturating_add(digits as i64 - 1);
        if adjusted > MAX_ADJUSTED_EXP as i64 {
            return Err(NumberError::Overflow);
        }
        if adjusted < MIN_ADJUSTED_EXP as i64 {
            return Err(NumberError::Underflow);
        }
        Ok(Number { negative, mantissa: Mantissa::new(mantissa), exponent: exponent as i32 })
    }

    /// The general sum, digit by digit.
    fn add_by_digits(&self, other: &Number) -> Result<Number, NumberError> {
        // Align both mantissas on the smaller exponent, as little-endian digit vectors.
        let lo = self.exponent.min(other.exponent);
        let a = aligned_digits(self, lo);
        let b = aligned_digits(other, lo);
        let (negative, digits) = if self.negative == other.negative {
            (self.negative, add_digits(&a, &b))
        } else {
            match cmp_digits(&a, &b) {
                Ordering::Equal => return Ok(Number::ZERO),
                Ordering::Greater => (self.negative, sub_digits(&a, &b)),
                Ordering::Less => (other.negative, sub_digits(&b, &a)),
            }
        };
        let big_endian: Vec<u8> = digits.into_iter().rev().collect();
        Number::from_digits(negative, &big_endian, lo as i64)
    }

    /// Exact difference; errors when the result leaves DynamoDB's precision or range.
    pub fn checked_sub(&self, other: &Number) -> Result<Number, NumberError> {
        self.checked_add(&other.neg())
    }

    /// The mantissa scaled to exactly 38 digits, for comparing magnitudes with equal adjusted
    /// exponents. Fits in u128 because 10^38 < 2^127.
    fn scaled_mantissa(&self) -> u128 {
        let n = digit_count(self.mantissa.get());
        self.mantissa.get() * 10u128.pow(MAX_DIGITS - n)
    }

    fn cmp_magnitude(&self, other: &Number) -> Ordering {
        match (self.is_zero(), other.is_zero()) {
            (true, true) => return Ordering::Equal,
            (true, false) => return Ordering::Less,
            (false, true) => return Ordering::Greater,
            _ => {}
        }
        self.adjusted_exponent()
            .cmp(&other.adjusted_exponent())
            .then_with(|| self.scaled_mantissa().cmp(&other.scaled_mantissa()))
    }
}

fn aligned_digits(n: &Number, lo: i32) -> Vec<u8> {
    let mut out = vec![0u8; (n.exponent - lo) as usize];
    let mut m = n.mantissa.get();
    while m > 0 {
        out.push((m % 10) as u8);
        m /= 10;
    }
    out
}

fn add_digits(a: &[u8], b: &[u8]) -> Vec<u8> {
    let len = a.len().max(b.len());
    let mut out = Vec::with_capacity(len + 1);
    let mut carry = 0u8;
    for i in 0..len {
        let s = a.get(i).copied().unwrap_or(0) + b.get(i).copied().unwrap_or(0) + carry;
        out.push(s % 10);
        carry = s / 10;
    }
    if carry > 0 {
        out.push(carry);
    }
    out
}

/// Little-endian digit vectors compared by value.
fn cmp_digits(a: &[u8], b: &[u8]) -> Ordering {
    let len = a.len().max(b.len());
    for i in (0..len).rev() {
        let x = a.get(i).copied().unwrap_or(0);
        let y = b.get(i).copied().unwrap_or(0);
        if x != y {
            return x.cmp(&y);
        }
    }
    Ordering::Equal
}

/// `a - b` for little-endian digit vectors with `a >= b`.
fn sub_digits(a: &[u8], b: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(a.len());
    let mut borrow = 0i8;
    for (i, &x) in a.iter().enumerate() {
        let mut d = x as i8 - b.get(i).copied().unwrap_or(0) as i8 - borrow;
        borrow = 0;
        if d < 0 {
            d += 10;
            borrow = 1;
        }
        out.push(d as u8);
    }
    out
}

impl Ord for Number {
    fn cmp(&self, other: &Number) -> Ordering {
        match (self.negative, other.negative) {
            (false, true) => Ordering::Greater,
            (true, false) => Ordering::Less,
            (false, false) => self.cmp_magnitude(other),
            (true, true) => other.cmp_magnitude(self),
        }
    }
}

impl PartialOrd for Number {
    fn partial_cmp(&self, other: &Number) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl FromStr for Number {
    type Err = NumberError;
    fn from_str(s: &str) -> Result<Number, NumberError> {
        Number::parse(s)
    }
}

/// DynamoDB's canonical text: plain decimal notation, no exponent, no trailing fractional
/// zeros, no `+`, and `0` for zero.
impl Number {
    /// Appends the canonical text (what `Display` writes) to `out`, without the formatting
    /// machinery: the response writer prints a number for every `N` it sends.
    pub fn write_text(&self, out: &mut Vec<u8>) {
        let _ = self.pieces(|piece| {
            out.extend_from_slice(piece.as_bytes());
            Ok(())
        });
    }

    /// Hands the canonical text to `piece` in pieces, from a stack buffer, without allocating.
    fn pieces(&self, mut piece: impl FnMut(&str) -> fmt::Result) -> fmt::Result {
        if self.is_zero() {
            return piece("0");
        }
        let mut buf = [0u8; 40];
        let digits = mantissa_digits(self.mantissa.get(), &mut buf);
        if self.negative {
            piece("-")?;
        }
        if self.exponent >= 0 {
            piece(digits)?;
            zeros(&mut piece, self.exponent as usize)
        } else {
            let frac = self.exponent.unsigned_abs() as usize;
            if frac >= digits.len() {
                piece("0.")?;
                zeros(&mut piece, frac - digits.len())?;
                piece(digits)
            } else {
                let (int, rest) = digits.split_at(digits.len() - frac);
                piece(int)?;
                piece(".")?;
                piece(rest)
            }
        }
    }
}

impl fmt::Display for Number {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.pieces(|piece| f.write_str(piece))
    }
}

/// The decimal digits of `m` (at most 39 for a `u128`), written at the end of `buf`.
fn mantissa_digits(m: u128, buf: &mut [u8; 40]) -> &str {
    let mut pos = buf.len();
    let mut wide = m;
    while wide > u128::from(u64::MAX) {
        pos -= 1;
        buf[pos] = b'0' + (wide % 10) as u8;
        wide /= 10;
    }
    let mut narrow = wide as u64;
    loop {
        pos -= 1;
        buf[pos] = b'0' + (narrow % 10) as u8;
        narrow /= 10;
        if narrow == 0 {
            break;
        }
    }
    // Only ASCII digits were written.
    std::str::from_utf8(&buf[pos..]).unwrap_or("")
}

fn zeros(piece: &mut impl FnMut(&str) -> fmt::Result, mut n: usize) -> fmt::Result {
    const ZEROS: &str = "0000000000000000000000000000000000000000000000000000000000000000";
    while n > 0 {
        let k = n.min(ZEROS.len());
        piece(&ZEROS[..k])?;
        n -= k;
    }
    Ok(())
}

impl fmt::Debug for Number {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Number({self})")
    }
}

macro_rules! from_int {
    ($($t:ty),*) => {$(
        impl From<$t> for Number {
            fn from(v: $t) -> Number {
                // Integers of these widths have at most 20 digits: always in range.
                let negative = (v as i128) < 0;
                let mut mantissa = (v as i128).unsigned_abs();
                let mut exponent = 0;
                while mantissa != 0 && mantissa % 10 == 0 {
                    mantissa /= 10;
                    exponent += 1;
                }
                Number { negative: negative && mantissa != 0, mantissa: Mantissa::new(mantissa), exponent }
            }
        }
    )*};
}
from_int!(i8, i16, i32, i64, u8, u16, u32, u64, isize, usize);

#[cfg(test)]
mod tests {
    use super::*;

    fn n(s: &str) -> Number {
        Number::parse(s).unwrap()
    }

    /// The straightforward formatting the allocation-free `Display` replaced.
    fn reference_text(n: &Number) -> String {
        if n.is_zero() {
            return "0".into();
        }
        let digits = n.mantissa.to_string();
        let sign = if n.negative { "-" } else { "" };
        if n.exponent >= 0 {
            format!("{sign}{digits}{}", "0".repeat(n.exponent as usize))
        } else {
            let frac = (-n.exponent) as usize;
            if frac >= digits.len() {
                format!("{sign}0.{}{digits}", "0".repeat(frac - digits.len()))
            } else {
                let (int, rest) = digits.split_at(digits.len() - frac);
                format!("{sign}{int}.{rest}")
            }
        }
    }

    #[test]
    fn text_matches_the_reference_formatting_at_the_extremes() {
        let nines = "9".repeat(38);
        for text in [
            "1",
            "-1",
            "0.5",
            "123.456",
            "1E125",
            "-1E-130",
            "1E-130",
            "18446744073709551615",
            "18446744073709551616",
            "-184467440737095516160000",
            "1.8446744073709551616E-100",
            nines.as_str(),
            &format!("-{nines}E87"),
            &format!("0.{nines}E-92"),
            "12345678901234567890123.5",
        ] {
            let v = n(text);
            assert_eq!(v.to_string(), reference_text(&v), "{text}");
        }
    }

    #[test]
    fn canonical_text_drops_exponent_and_trailing_zeros() {
        assert_eq!(n("1.50").to_string(), "1.5");
        assert_eq!(n("1e2").to_string(), "100");
        assert_eq!(n("-0").to_string(), "0");
        assert_eq!(n("+0.000").to_string(), "0");
        assert_eq!(n("0.0001").to_string(), "0.0001");
        assert_eq!(n("-12.340E1").to_string(), "-123.4");
        assert_eq!(n("007").to_string(), "7");
        assert_eq!(n(".5").to_string(), "0.5");
        assert_eq!(n("5.").to_string(), "5");
    }

    #[test]
    fn equal_values_with_different_text_are_equal() {
        assert_eq!(n("1.50"), n("15E-1"));
        assert_eq!(n("100"), n("1e2"));
        assert_eq!(n("-0"), n("0"));
    }

    #[test]
    fn thirty_eight_significant_digits_are_accepted_thirty_nine_refused() {
        let ok = "1".repeat(38);
        assert_eq!(n(&ok).to_string(), ok);
        assert_eq!(Number::parse(&"1".repeat(39)), Err(NumberError::Precision));
        // Trailing and leading zeros are not significant.
        assert!(Number::parse(&format!("1{}", "0".repeat(100))).is_ok());
        assert!(Number::parse(&format!("0.{}1", "0".repeat(100))).is_ok());
    }

    #[test]
    fn magnitude_limits_match_dynamodb() {
        assert!(Number::parse("9.9999999999999999999999999999999999999E+125").is_ok());
        assert_eq!(Number::parse("1E+126"), Err(NumberError::Overflow));
        assert!(Number::parse("1E-130").is_ok());
        assert!(Number::parse("-1E-130").is_ok());
        assert_eq!(Number::parse("1E-131"), Err(NumberError::Underflow));
        assert_eq!(Number::parse("0E+999999"), Ok(Number::ZERO));
    }

    #[test]
    fn malformed_numbers_are_refused() {
        for s in ["", "-", "abc", "1..2", "1e", "1e+", " 1", "1 ", "0x10", "NaN", "Infinity", "1e1.5", "--1"]
        {
            assert_eq!(Number::parse(s), Err(NumberError::NotANumber), "{s:?}");
        }
    }

    #[test]
    fn ordering_is_numeric() {
        let mut v: Vec<Number> =
            ["10", "-1", "9.5", "0", "-10", "1E-130", "-0.5", "1E125", "100"].iter().map(|s| n(s)).collect();
        v.sort();
        let text: Vec<String> = v.iter().map(|x| x.to_string()).collect();
        assert_eq!(text[0], "-10");
        assert_eq!(text[1], "-1");
        assert_eq!(text[2], "-0.5");
        assert_eq!(text[3], "0");
        assert_eq!(text[5], "9.5");
        assert_eq!(text[6], "10");
        assert_eq!(text[7], "100");
    }

    #[test]
    fn addition_is_exact() {
        assert_eq!(n("0.1").checked_add(&n("0.2")).unwrap(), n("0.3"));
        assert_eq!(n("1").checked_sub(&n("1")).unwrap(), Number::ZERO);
        assert_eq!(n("-5").checked_add(&n("3")).unwrap(), n("-2"));
        assert_eq!(n("99").checked_add(&n("1")).unwrap(), n("100"));
        let big = "9".repeat(38);
        assert_eq!(n(&big).checked_add(&n("1")).unwrap().to_string(), format!("1{}", "0".repeat(38)));
        assert_eq!(n("1E125").checked_add(&n("1E-5")), Err(NumberError::Precision));
        assert_eq!(
            n("9.9999999999999999999999999999999999999E+125").checked_add(&n("1E+88")),
            Err(NumberError::Overflow)
        );
    }

    proptest::proptest! {
        #[test]
        fn text_round_trips_and_order_and_sum_match_i64(a: i64, b: i64) {
            let (x, y) = (Number::from(a), Number::from(b));
            proptest::prop_assert_eq!(Number::parse(&x.to_string()).unwrap(), x);
            proptest::prop_assert_eq!(x.cmp(&y), a.cmp(&b));
            let sum = Number::parse(&(a as i128 + b as i128).to_string()).unwrap();
            proptest::prop_assert_eq!(x.checked_add(&y).unwrap(), sum);
        }

        #[test]
        fn the_u128_sum_is_the_digit_sum(
            a in -(10i128.pow(20))..10i128.pow(20), ea in -140i32..130,
            b in -(10i128.pow(20))..10i128.pow(20), eb in -140i32..130,
        ) {
            let x = Number::parse(&format!("{a}E{ea}"));
            let y = Number::parse(&format!("{b}E{eb}"));
            if let (Ok(x), Ok(y)) = (x, y) {
                if !x.is_zero() && !y.is_zero() {
                    if let Some(fast) = x.add_in_u128(&y) {
                        proptest::prop_assert_eq!(fast, x.add_by_digits(&y));
                    }
                }
            }
        }
    }
}
