// Package safefile writes the files crystal-star keeps for the operator —
// the trust file, both config.toml layers, formatted plugin sources — so
// that no crash, concurrent writer or parse error loses what they held:
//
//   - WriteFile replaces a file atomically (temporary file, fsync, rename,
//     fsync of the directory): readers see the old or the new content,
//     never a mix.
//   - Replace does the same for a file that already exists, keeping what
//     the operator made of it: its permission bits, and a symbolic link
//     (the file it points to is replaced).
//   - Lock is an exclusive cross-process lock; Edit is the locked
//     read-modify-write every shared file goes through, and it never
//     overwrites a file it could not read or parse.
//
// It imports the standard library only.
package safefile
