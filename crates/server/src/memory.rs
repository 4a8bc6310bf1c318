//! Giving freed memory back to the system.
//!
//! glibc keeps what is freed for reuse, and after a large block is freed it raises the size
//! it serves from its heap rather than by `mmap`, so the memory of large requests stayed with
//! the process after their clients left (about 1 GB after a trickled 10M-argument request,
//! 141 MB after 200 partial 1 MB bulks). The loop counts what it releases (a finished large
//! request, a leaving client's buffers and half-read request) and, past [`TRIM_AFTER`], asks
//! glibc to return its free pages with `malloc_trim`.

/// How much released memory makes the loop trim the heap: trimming walks the heap, so it is
/// done after large releases only.
pub(crate) const TRIM_AFTER: usize = 8 * 1024 * 1024;

/// Returns the allocator's free memory to the system (glibc; elsewhere nothing).
#[allow(unsafe_code)]
pub(crate) fn trim() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim takes no pointer and has no precondition; it only releases free
    // pages of glibc's own arenas, under their locks.
    unsafe {
        libc::malloc_trim(0);
    }
}
