//! `streamlab-server`: StreamLab over RESP, started like redis-server (see the library docs).

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args_os().skip(1).map(|a| a.to_string_lossy().into_owned()).collect();
    streamlab_server::main_with_args(&args)
}
