//! Errors that point into a lesson file.

use std::fmt;

/// A problem in a lesson file, at a line and column (both from 1; column 0 when the problem
/// concerns a whole line or the whole file).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct LessonError {
    /// The file, as given to the parser.
    pub file: String,
    /// Line, from 1 (0 when the problem concerns the whole file).
    pub line: usize,
    /// Column, from 1 (0 when not known).
    pub column: usize,
    /// What is wrong.
    pub message: String,
}

impl LessonError {
    /// An error at a byte offset of `text`.
    pub fn at(file: &str, text: &str, offset: usize, message: impl Into<String>) -> LessonError {
        let (line, column) = line_column(text, offset);
        LessonError { file: file.to_owned(), line, column, message: message.into() }
    }

    /// An error about a whole line (or the whole file with line 0).
    pub fn on_line(file: &str, line: usize, message: impl Into<String>) -> LessonError {
        LessonError { file: file.to_owned(), line, column: 0, message: message.into() }
    }
}

impl fmt::Display for LessonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.line, self.column) {
            (0, _) => write!(f, "{}: {}", self.file, self.message),
            (line, 0) => write!(f, "{}:{line}: {}", self.file, self.message),
            (line, column) => write!(f, "{}:{line}:{column}: {}", self.file, self.message),
        }
    }
}

impl std::error::Error for LessonError {}

/// The line and column (both from 1) of a byte offset.
pub fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = &text.as_bytes()[..offset];
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let line_start = before.iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1);
    let column = String::from_utf8_lossy(&before[line_start..]).chars().count() + 1;
    (line, column)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_become_lines_and_columns() {
        let text = "a = 1\nbé = 2\n";
        assert_eq!(line_column(text, 0), (1, 1));
        assert_eq!(line_column(text, 6), (2, 1));
        // Columns count characters, not bytes.
        assert_eq!(line_column(text, 9), (2, 3));
        assert_eq!(LessonError::at("l.toml", text, 6, "bad").to_string(), "l.toml:2:1: bad");
        assert_eq!(LessonError::on_line("l.toml", 3, "bad").to_string(), "l.toml:3: bad");
        assert_eq!(LessonError::on_line("l.toml", 0, "bad").to_string(), "l.toml: bad");
    }
}
