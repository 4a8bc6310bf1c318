//! A tiny static file server (std only) for `cargo xtask serve`: GET and HEAD of files under
//! one directory, on the loopback interface.

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Component, Path, PathBuf};

/// Serves `dir` on 127.0.0.1:`port` until the process is stopped.
pub fn serve(dir: &Path, port: u16) -> Result<(), String> {
    let listener = TcpListener::bind(("127.0.0.1", port)).map_err(|e| format!("127.0.0.1:{port}: {e}"))?;
    println!("StreamLab playground: http://127.0.0.1:{port}/  (Ctrl+C stops)");
    for stream in listener.incoming().filter_map(Result::ok) {
        let dir = dir.to_path_buf();
        std::thread::spawn(move || {
            let _ = answer(stream, &dir);
        });
    }
    Ok(())
}

/// The file a request path names inside `dir`, refusing anything that climbs out of it.
pub fn resolve(dir: &Path, target: &str) -> Option<PathBuf> {
    let path = target.split(['?', '#']).next().unwrap_or("/");
    let mut file = dir.to_path_buf();
    for component in Path::new(path.trim_start_matches('/')).components() {
        match component {
            Component::Normal(part) => file.push(part),
            Component::CurDir => {}
            _ => return None,
        }
    }
    if file.is_dir() {
        file.push("index.html");
    }
    Some(file)
}

fn content_type(path: &Path) -> &'static str {
    match path.extension().and_then(|e| e.to_str()) {
        Some("html") => "text/html; charset=utf-8",
        Some("js" | "mjs") => "text/javascript; charset=utf-8",
        Some("wasm") => "application/wasm",
        Some("css") => "text/css; charset=utf-8",
        Some("svg") => "image/svg+xml",
        Some("png") => "image/png",
        Some("json") => "application/json",
        Some("toml") => "text/plain; charset=utf-8",
        Some("ico") => "image/x-icon",
        _ => "application/octet-stream",
    }
}

fn answer(stream: TcpStream, dir: &Path) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut request = String::new();
    reader.read_line(&mut request)?;
    // Read (and ignore) the headers.
    let mut header = String::new();
    while reader.read_line(&mut header)? > 2 {
        header.clear();
    }
    let mut parts = request.split_whitespace();
    let (method, target) = (parts.next().unwrap_or(""), parts.next().unwrap_or("/"));
    let mut stream = stream;
    if method != "GET" && method != "HEAD" {
        return stream.write_all(b"HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
    }
    let body = resolve(dir, target).and_then(|file| std::fs::read(&file).ok().map(|bytes| (file, bytes)));
    match body {
        Some((file, bytes)) => {
            let head = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: {}\r\nContent-Length: {}\r\nCache-Control: no-cache\r\nConnection: close\r\n\r\n",
                content_type(&file),
                bytes.len()
            );
            stream.write_all(head.as_bytes())?;
            if method == "GET" {
                stream.write_all(&bytes)?;
            }
            Ok(())
        }
        None => stream.write_all(b"HTTP/1.1 404 Not Found\r\nContent-Length: 9\r\nConnection: close\r\n\r\nnot found"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_stay_inside_the_directory() {
        let dir = std::env::temp_dir();
        assert_eq!(resolve(&dir, "/a/b.js?x=1"), Some(dir.join("a/b.js")));
        assert_eq!(resolve(&dir, "/../etc/passwd"), None);
        assert_eq!(resolve(&dir, "/"), Some(dir.join("index.html")));
        assert_eq!(content_type(Path::new("x.wasm")), "application/wasm");
    }
}
