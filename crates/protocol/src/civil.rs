//! Calendar dates for Unix times in milliseconds, in integer arithmetic (no clock is read):
//! what the server's log lines and the pictures' id times print.

/// A UTC date and time of day.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Civil {
    /// The proleptic Gregorian year.
    pub year: i64,
    /// 1 to 12.
    pub month: i64,
    /// 1 to 31.
    pub day: i64,
    /// 0 to 23.
    pub hour: i64,
    /// 0 to 59.
    pub minute: i64,
    /// 0 to 59.
    pub second: i64,
    /// 0 to 999.
    pub milli: i64,
}

impl Civil {
    /// The UTC date and time `ms` milliseconds after 1970-01-01 00:00 UTC (before it, when
    /// negative). Days become a date by Howard Hinnant's days-to-civil method: 400-year eras
    /// of 146,097 days, counted from a year that starts in March so leap days fall last.
    pub fn from_unix_ms(ms: i64) -> Civil {
        Civil::from_day(ms.div_euclid(86_400_000), ms.rem_euclid(86_400_000))
    }

    /// [`Civil::from_unix_ms`] for a time given as whole days since 1970 and the ms into the
    /// last one (0 to 86,399,999): how a stream id's u64 ms, past i64, still gets its date.
    pub fn from_day(days: i64, in_day: i64) -> Civil {
        let z = days + 719_468;
        let (era, doe) = (z.div_euclid(146_097), z.rem_euclid(146_097));
        let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        let mp = (5 * doy + 2) / 153;
        let day = doy - (153 * mp + 2) / 5 + 1;
        let month = if mp < 10 { mp + 3 } else { mp - 9 };
        Civil {
            year: yoe + era * 400 + i64::from(month <= 2),
            month,
            day,
            hour: in_day / 3_600_000,
            minute: in_day / 60_000 % 60,
            second: in_day / 1000 % 60,
            milli: in_day % 1000,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Civil;

    #[test]
    fn dates_across_leap_days_and_eras() {
        let at = |ms| {
            let c = Civil::from_unix_ms(ms);
            (c.year, c.month, c.day, c.hour, c.minute, c.second, c.milli)
        };
        assert_eq!(at(0), (1970, 1, 1, 0, 0, 0, 0));
        assert_eq!(at(1_700_000_000_000), (2023, 11, 14, 22, 13, 20, 0));
        assert_eq!(at(951_782_400_000), (2000, 2, 29, 0, 0, 0, 0));
        assert_eq!(at(4_107_542_399_999), (2100, 2, 28, 23, 59, 59, 999));
        assert_eq!(at(4_107_542_400_000), (2100, 3, 1, 0, 0, 0, 0));
        assert_eq!(at(-1), (1969, 12, 31, 23, 59, 59, 999));
        assert_eq!(at(i64::from(u32::MAX) * 1000 + 1), (2106, 2, 7, 6, 28, 15, 1));
    }
}
