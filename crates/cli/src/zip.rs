//! A zip archive writer, as much of the format (PKWARE APPNOTE 6.3) as a course package needs:
//! files deflated (or stored, when deflate does not make them smaller), UTF-8 names, no zip64
//! (a package is far below 4 GiB and 65,535 files), every date 1980-01-01 so the same input
//! writes the same bytes.

use miniz_oxide::deflate::compress_to_vec;

const LOCAL: u32 = 0x0403_4b50;
const CENTRAL: u32 = 0x0201_4b50;
const END: u32 = 0x0605_4b50;
/// Version 2.0: deflate.
const VERSION: u16 = 20;
/// Bit 11: the name is UTF-8.
const UTF8: u16 = 1 << 11;
/// 1980-01-01 in MS-DOS date format; the time is 00:00.
const DATE: u16 = (1 << 5) | 1;

/// The CRC-32 (ISO 3309, as zip uses it) of `bytes`.
pub fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &byte in bytes {
        crc ^= u32::from(byte);
        for _ in 0..8 {
            crc = if crc & 1 == 1 { (crc >> 1) ^ 0xEDB8_8320 } else { crc >> 1 };
        }
    }
    !crc
}

/// Files in the order added; `finish` writes the archive.
#[derive(Default)]
pub struct Zip {
    out: Vec<u8>,
    central: Vec<u8>,
    count: u16,
}

impl Zip {
    /// Adds `name` (a relative path with `/`) holding `data`.
    pub fn add(&mut self, name: &str, data: &[u8]) -> Result<(), String> {
        if name.is_empty() || name.starts_with('/') || name.split('/').any(|part| part.is_empty() || part == "..") {
            return Err(format!("\"{name}\" is not a relative file name"));
        }
        let deflated = compress_to_vec(data, 9);
        let (method, body) = if deflated.len() < data.len() { (8u16, &deflated[..]) } else { (0, data) };
        let (size, stored, offset) = (u32(data.len())?, u32(body.len())?, u32(self.out.len())?);
        let name_len = u16::try_from(name.len()).map_err(|_| format!("\"{name}\" is too long a name"))?;
        self.count = self.count.checked_add(1).ok_or("a zip of more than 65,535 files")?;
        let crc = crc32(data);
        // Version needed, flags, method, time, date, CRC, sizes, name length, no extra field.
        let mut head = Vec::new();
        for half in [VERSION, UTF8, method, 0, DATE] {
            head.extend(half.to_le_bytes());
        }
        for word in [crc, stored, size] {
            head.extend(word.to_le_bytes());
        }
        head.extend(name_len.to_le_bytes());
        head.extend(0u16.to_le_bytes());

        self.out.extend(LOCAL.to_le_bytes());
        self.out.extend(&head);
        self.out.extend(name.as_bytes());
        self.out.extend(body);

        self.central.extend(CENTRAL.to_le_bytes());
        self.central.extend(VERSION.to_le_bytes()); // made by: MS-DOS, 2.0
        self.central.extend(&head);
        // No comment, disk 0, no attributes; where the local header is.
        for half in [0u16, 0, 0] {
            self.central.extend(half.to_le_bytes());
        }
        self.central.extend(0u32.to_le_bytes());
        self.central.extend(offset.to_le_bytes());
        self.central.extend(name.as_bytes());
        u32(self.out.len() + self.central.len()).map(|_| ())
    }

    /// The archive's bytes.
    pub fn finish(mut self) -> Result<Vec<u8>, String> {
        let (size, offset) = (u32(self.central.len())?, u32(self.out.len())?);
        self.out.append(&mut self.central);
        self.out.extend(END.to_le_bytes());
        for half in [0u16, 0, self.count, self.count] {
            self.out.extend(half.to_le_bytes());
        }
        self.out.extend(size.to_le_bytes());
        self.out.extend(offset.to_le_bytes());
        self.out.extend(0u16.to_le_bytes());
        Ok(self.out)
    }
}

fn u32(n: usize) -> Result<u32, String> {
    u32::try_from(n).map_err(|_| "a zip over 4 GiB".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc_of_the_check_string() {
        // The CRC-32 check value every implementation gives for "123456789".
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
        assert_eq!(crc32(b""), 0);
    }

    #[test]
    fn bad_names_are_refused() {
        let mut zip = Zip::default();
        for name in ["", "/etc/passwd", "a/../b", "a//b", "../x"] {
            assert!(zip.add(name, b"x").is_err(), "{name}");
        }
    }

    /// Python's zipfile reads it back: names, contents (stored and deflated), CRCs.
    #[test]
    fn python_reads_what_is_written() {
        let big = "XADD jobs * type email\n".repeat(500);
        let mut zip = Zip::default();
        zip.add("imsmanifest.xml", b"<manifest/>").unwrap();
        zip.add("lessons/a.toml", big.as_bytes()).unwrap();
        zip.add("empty", b"").unwrap();
        zip.add("caf\u{e9}.txt", b"\x00\x01").unwrap();
        let bytes = zip.finish().unwrap();
        assert_eq!(bytes, {
            let mut again = Zip::default();
            again.add("imsmanifest.xml", b"<manifest/>").unwrap();
            again.add("lessons/a.toml", big.as_bytes()).unwrap();
            again.add("empty", b"").unwrap();
            again.add("caf\u{e9}.txt", b"\x00\x01").unwrap();
            again.finish().unwrap()
        });
        assert!(bytes.len() < big.len() / 4, "deflated: {} bytes", bytes.len());
        let file = std::env::temp_dir().join(format!("streamlab-zip-test-{}.zip", std::process::id()));
        std::fs::write(&file, &bytes).unwrap();
        let script = "import sys, zipfile, json\n\
            z = zipfile.ZipFile(sys.argv[1])\n\
            assert z.testzip() is None\n\
            print(json.dumps([[i.filename, i.compress_type, z.read(i).decode('latin-1')[:30], i.date_time[0]] for i in z.infolist()]))";
        let out = std::process::Command::new("python3").args(["-c", script]).arg(&file).output().unwrap();
        let _ = std::fs::remove_file(&file);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        assert_eq!(
            String::from_utf8_lossy(&out.stdout).trim(),
            r#"[["imsmanifest.xml", 0, "<manifest/>", 1980], ["lessons/a.toml", 8, "XADD jobs * type email\nXADD jo", 1980], ["empty", 0, "", 1980], ["caf\u00e9.txt", 0, "\u0000\u0001", 1980]]"#
        );
    }
}
